package structured

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaURL names the schema inside the compiler; nothing is loaded from
// it. It shows in no message the operator reads.
const schemaURL = "urn:atelier:output-schema"

// Schema is a compiled output schema.
type Schema struct {
	raw json.RawMessage // compacted
	doc any             // decoded, numbers as json.Number
	s   *jsonschema.Schema
}

// noLoader refuses every reference outside the schema: the meta-schemas
// are bundled, and nothing else may be read on the host's behalf.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s: a reference outside the schema (only the schema's own definitions can be used)", url)
}

// Compile checks an output schema and compiles it. The error says why a
// schema cannot be used: not JSON, not a schema (an object or a boolean),
// not valid against its draft's meta-schema, or a reference it cannot
// resolve.
func Compile(raw []byte) (*Schema, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 {
		return nil, errors.New("the output schema is empty")
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(trimmed))
	if err != nil {
		return nil, fmt.Errorf("the output schema is not JSON: %w", err)
	}
	switch doc.(type) {
	case map[string]any, bool:
	default:
		return nil, errors.New("the output schema must be a JSON object (or a boolean)")
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, trimmed); err != nil {
		return nil, fmt.Errorf("the output schema is not JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	c.AssertFormat()
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, fmt.Errorf("the output schema: %w", err)
	}
	s, err := c.Compile(schemaURL)
	if err != nil {
		return nil, fmt.Errorf("the output schema cannot be used: %s", strings.ReplaceAll(err.Error(), schemaURL, "schema"))
	}
	return &Schema{raw: compact.Bytes(), doc: doc, s: s}, nil
}

// Raw returns the schema as compact JSON.
func (s *Schema) Raw() json.RawMessage { return append(json.RawMessage(nil), s.raw...) }

// Validate checks one JSON value against the schema: nil when it matches,
// else one line per failed keyword, naming where in the value.
func (s *Schema) Validate(value []byte) []string {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(value))
	if err != nil {
		return []string{"not JSON: " + err.Error()}
	}
	err = s.s.Validate(inst)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []string{err.Error()}
	}
	return flatten(ve)
}

// flatten turns a validation error into one line per leaf cause: the
// causes say what is wrong; their parents only say that something below
// is.
func flatten(ve *jsonschema.ValidationError) []string {
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		out = append(out, "at "+location(e.InstanceLocation)+": "+e.ErrorKind.LocalizedString(printer))
	}
	walk(ve)
	if len(out) == 0 {
		out = []string{ve.Error()}
	}
	return out
}

// location is a JSON pointer into the answer ("the root" for the whole).
func location(tokens []string) string {
	if len(tokens) == 0 {
		return "the root"
	}
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		t = strings.ReplaceAll(t, "~", "~0")
		b.WriteString(strings.ReplaceAll(t, "/", "~1"))
	}
	return b.String()
}

// Result is what Check found in an answer: the value that matched (Value,
// compact JSON) or, when none did, why (Errors).
type Result struct {
	Value  json.RawMessage
	Errors []string
}

// Valid reports whether the answer held a value that matches.
func (r Result) Valid() bool { return r.Value != nil }

// Check finds the JSON candidates of an answer (see Candidates) and
// returns the last one that matches the schema; when none does, the
// errors of the last candidate, or that there was none.
func (s *Schema) Check(answer string) Result {
	cands := Candidates(answer)
	if len(cands) == 0 {
		return Result{Errors: []string{"the answer holds no JSON value (give it in a ```json fenced block)"}}
	}
	var last []string
	for i := len(cands) - 1; i >= 0; i-- {
		errs := s.Validate([]byte(cands[i]))
		if len(errs) == 0 {
			var b bytes.Buffer
			if err := json.Compact(&b, []byte(cands[i])); err != nil {
				return Result{Errors: []string{"the matching JSON value cannot be compacted: " + err.Error()}}
			}
			return Result{Value: b.Bytes()}
		}
		if i == len(cands)-1 {
			last = errs
		}
	}
	if len(cands) > 1 {
		head := fmt.Sprintf("none of the %d JSON values in the answer matches the schema; the last one:", len(cands))
		return Result{Errors: append([]string{head}, last...)}
	}
	return Result{Errors: last}
}

// Guidance is the text the engine adds to a prompt that carries the
// schema: what to answer with, where to put it, the top-level fields it
// requires, and the schema itself.
func (s *Schema) Guidance() string {
	var b strings.Builder
	b.WriteString("Give your answer as JSON that matches the JSON Schema below. Put the JSON last in your reply, " +
		"in one ```json fenced block, with nothing after it.")
	if req := requiredFields(s.doc); req != "" {
		b.WriteString(" Required fields: " + req + ".")
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, s.raw, "", "  "); err != nil {
		pretty.Reset()
		pretty.Write(s.raw)
	}
	b.WriteString("\n\n```json\n")
	b.Write(pretty.Bytes())
	b.WriteString("\n```")
	return b.String()
}

// requiredFields lists an object schema's required properties with what
// each must be: `"summary" (string), "risk" (one of "low", "high")`.
func requiredFields(doc any) string {
	m, ok := doc.(map[string]any)
	if !ok {
		return ""
	}
	req, _ := m["required"].([]any)
	props, _ := m["properties"].(map[string]any)
	var parts []string
	for _, r := range req {
		name, ok := r.(string)
		if !ok {
			continue
		}
		part := quoteJSON(name)
		if d := describe(props[name]); d != "" {
			part += " (" + d + ")"
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, ", ")
}

// describe says in a few words what a property's schema allows.
func describe(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return ""
	}
	if c, ok := m["const"]; ok {
		return "exactly " + quoteJSON(c)
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		var vals []string
		for _, x := range e {
			vals = append(vals, quoteJSON(x))
		}
		return "one of " + strings.Join(vals, ", ")
	}
	switch t := m["type"].(type) {
	case string:
		return t
	case []any:
		var ts []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				ts = append(ts, s)
			}
		}
		sort.Strings(ts)
		return strings.Join(ts, " or ")
	}
	return ""
}

func quoteJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
