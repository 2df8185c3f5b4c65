package api

import (
	"encoding/json"
	"reflect"
	"strings"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/engine"
)

func ref(name string) map[string]any { return map[string]any{"$ref": "#/components/schemas/" + name} }

// schemaGen derives JSON Schemas from Go types by their json tags; named
// structs and the named string types with constants (enumValues) become
// components.
//
// A field encoding/json always writes (no omitempty or omitzero) is
// required: in an answer's schema it is always there, and nullable when
// its Go type can be nil (a pointer, slice or map), so a generated client
// types what is always there as present and what may be null as such. In a
// request body's schema it is what the Go client always sends (a prompt's
// text, a move's place), so a generated client sends it too; the fields
// with omitempty are the optional ones. A struct reached both ways would
// need two schemas (nullable or not); conflicts records it, and the
// document refuses it.
type schemaGen struct {
	defs map[string]any
	// request is set while a request body's schema is derived.
	request bool
	// roles is "request" or "response" by component, conflicts the
	// components reached as both.
	roles     map[string]string
	conflicts []string
}

func newSchemaGen() *schemaGen {
	return &schemaGen{defs: map[string]any{}, roles: map[string]string{}}
}

// forRequest derives the schema of a request body.
func (g *schemaGen) forRequest(t reflect.Type) map[string]any {
	g.request = true
	defer func() { g.request = false }()
	return g.of(t)
}

func schemaName(t reflect.Type) string {
	// The client's wire types and the engine's own, which it sends as they
	// are, are the API's: they go unqualified.
	if p := t.PkgPath(); p == reflect.TypeFor[client.Event]().PkgPath() || p == reflect.TypeFor[engine.Event]().PkgPath() {
		return t.Name()
	}
	pkg := t.PkgPath()[strings.LastIndex(t.PkgPath(), "/")+1:]
	return pkg + "." + t.Name()
}

func (g *schemaGen) of(t reflect.Type) map[string]any {
	if t == reflect.TypeFor[time.Time]() {
		return map[string]any{"type": "string", "format": "date-time"}
	}
	if t == reflect.TypeFor[json.RawMessage]() {
		return map[string]any{}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return g.of(t.Elem())
	case reflect.String:
		if values, ok := enumValues[t]; ok {
			name := schemaName(t)
			g.defs[name] = map[string]any{"type": "string", "enum": values}
			return ref(name)
		}
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int64, reflect.Int32:
		return map[string]any{"type": "integer"}
	case reflect.Uint64, reflect.Uint32:
		return map[string]any{"type": "integer", "minimum": 0}
	case reflect.Float64, reflect.Float32:
		return map[string]any{"type": "number"}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": g.of(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.of(t.Elem())}
	case reflect.Interface:
		return map[string]any{}
	case reflect.Struct:
		return g.structRef(t)
	}
	return map[string]any{}
}

func (g *schemaGen) structRef(t reflect.Type) map[string]any {
	name := schemaName(t)
	role := "response"
	if g.request {
		role = "request"
	}
	if had, ok := g.roles[name]; ok {
		if had != role {
			g.conflicts = append(g.conflicts, name)
		}
		return ref(name)
	}
	g.roles[name] = role
	g.defs[name] = nil // a placeholder against recursion
	props := map[string]any{}
	var required []string
	g.fields(t, props, &required)
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	g.defs[name] = s
	return ref(name)
}

// fields adds the JSON fields of struct t to props, flattening embedded
// structs as encoding/json does, and the names of those always written to
// required.
func (g *schemaGen) fields(t reflect.Type, props map[string]any, required *[]string) {
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			g.fields(f.Type, props, required)
			continue
		}
		if name == "" {
			name = f.Name
		}
		s := g.of(f.Type)
		if values, ok := fieldEnums[t][name]; ok && f.Type.Kind() == reflect.String {
			s = map[string]any{"type": "string", "enum": values}
		}
		always := !hasOpt(opts, "omitempty") && !hasOpt(opts, "omitzero")
		if always {
			*required = append(*required, name)
			if !g.request {
				s = nullable(f.Type, s)
			}
		}
		props[name] = s
	}
}

// nullable widens s, the schema of a field of type t that is always
// written, to take null when a value of t can be nil.
func nullable(t reflect.Type, s map[string]any) map[string]any {
	if t == reflect.TypeFor[json.RawMessage]() {
		return s // any JSON value, null included
	}
	switch t.Kind() {
	case reflect.Pointer:
		return map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
	case reflect.Slice:
		s["type"] = []string{"array", "null"}
	case reflect.Map:
		s["type"] = []string{"object", "null"}
	}
	return s
}

func hasOpt(opts, opt string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o == opt {
			return true
		}
	}
	return false
}
