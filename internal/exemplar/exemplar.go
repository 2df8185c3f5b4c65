// Package exemplar builds, from a JSON Schema, one JSON value that the
// schema accepts: every required property with a value of its type, enum
// or const, within its bounds, matching its pattern or format where it
// can, with nested objects and arrays built the same way.
//
// It exists so that structured output works with no model at all: the
// demo agent answers a prompt that carries an output schema with such a
// value, so the guidance, the parsing and validation of the answer, the
// CLI's --output and its exit codes can be tried offline and tested end
// to end; tests use it to make a valid answer for any schema. It lives
// apart from the demo because it is about schemas, not agents.
//
// It is not a validator. What it cannot satisfy exactly (a pattern its
// simple inversion misses, not, a oneOf whose branches overlap, a
// reference outside the schema) it approaches as well as it can or
// refuses with an error; whoever needs certainty validates the value.
package exemplar

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// maxDepth bounds how deep references and nesting may go: a schema whose
// required properties recurse has no finite instance.
const maxDepth = 64

// For returns a JSON value that schema (a JSON Schema document) accepts.
func For(schema []byte) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		return nil, fmt.Errorf("the schema is not JSON: %w", err)
	}
	g := &gen{root: root}
	v, err := g.value(root, 0, 0)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode the value: %w", err)
	}
	return b, nil
}

// gen holds the schema document, for references into it.
type gen struct {
	root any
}

// value builds a value for schema s. variant picks another value where
// there is a choice (the items of an array with uniqueItems).
func (g *gen) value(s any, variant, depth int) (any, error) {
	if depth > maxDepth {
		return nil, errors.New("the schema nests or refers to itself too deeply to build a value")
	}
	switch s := s.(type) {
	case nil:
		return nil, nil
	case bool:
		if !s {
			return nil, errors.New("the schema false accepts no value")
		}
		return nil, nil
	case map[string]any:
		m, err := g.flatten(s, depth)
		if err != nil {
			return nil, err
		}
		return g.build(m, variant, depth)
	}
	return nil, fmt.Errorf("a schema must be an object or a boolean, not %T", s)
}

// build makes the value of a flattened schema.
func (g *gen) build(m map[string]any, variant, depth int) (any, error) {
	if c, ok := m["const"]; ok {
		return c, nil
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		return enumValue(e, m, variant), nil
	}
	switch kind(m) {
	case "object":
		return g.object(m, depth)
	case "array":
		return g.array(m, depth)
	case "string":
		return stringValue(m, variant), nil
	case "integer":
		return integer(m, variant)
	case "number":
		return number(m, variant)
	case "boolean":
		return variant%2 == 0, nil
	}
	return nil, nil
}

// enumValue picks the variant-th value of an enum among those of the
// schema's type.
func enumValue(e []any, m map[string]any, variant int) any {
	t := types(m)
	var fit []any
	for _, v := range e {
		if len(t) == 0 || t[jsonType(v)] || (jsonType(v) == "integer" && t["number"]) {
			fit = append(fit, v)
		}
	}
	if len(fit) == 0 {
		fit = e
	}
	return fit[variant%len(fit)]
}

func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if _, err := v.Int64(); err == nil {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return ""
}

// kind says what to build: the schema's type (the first that is not
// "null" when it lists several), or the type its keywords imply.
func kind(m map[string]any) string {
	switch t := m["type"].(type) {
	case string:
		return t
	case []any:
		var first string
		for _, x := range t {
			s, _ := x.(string)
			if s != "null" && s != "" {
				return s
			}
			if first == "" {
				first = s
			}
		}
		return first
	}
	has := func(keys ...string) bool {
		for _, k := range keys {
			if _, ok := m[k]; ok {
				return true
			}
		}
		return false
	}
	switch {
	case has("properties", "required", "additionalProperties", "patternProperties", "minProperties", "maxProperties", "dependentRequired"):
		return "object"
	case has("items", "prefixItems", "minItems", "maxItems", "contains", "uniqueItems"):
		return "array"
	case has("minLength", "maxLength", "pattern", "format"):
		return "string"
	case has("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"):
		return "number"
	}
	return "null"
}
