package structured

import (
	"reflect"
	"strings"
	"testing"
)

const report = `{"type":"object","required":["summary","risk"],"properties":{
	"summary":{"type":"string","minLength":3},"risk":{"enum":["low","high"]},
	"files":{"type":"array","items":{"type":"string"}}},"additionalProperties":false}`

func mustCompile(t *testing.T, schema string) *Schema {
	t.Helper()
	s, err := Compile([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCompileRefuses(t *testing.T) {
	cases := map[string]struct{ schema, want string }{
		"empty":           {"  ", "empty"},
		"not json":        {`{"type":`, "not JSON"},
		"array":           {`[{"type":"string"}]`, "must be a JSON object"},
		"string":          {`"object"`, "must be a JSON object"},
		"bad type":        {`{"type":"objekt"}`, "not valid against metaschema"},
		"bad keyword":     {`{"type":"string","minLength":-1}`, "minLength"},
		"missing ref":     {`{"$ref":"#/$defs/nope"}`, "not found"},
		"file ref":        {`{"$ref":"file:///etc/passwd"}`, "outside the schema"},
		"network ref":     {`{"$ref":"https://example.com/s.json"}`, "outside the schema"},
		"bad pattern":     {`{"type":"string","pattern":"(unclosed"}`, "pattern"},
		"draft4 bad bool": {`{"$schema":"http://json-schema.org/draft-04/schema#","exclusiveMinimum":3}`, "exclusiveMinimum"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Compile([]byte(c.schema))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Compile(%s) = %v, want an error with %q", c.schema, err, c.want)
			}
		})
	}
}

func TestCompileKeepsCompactSchema(t *testing.T) {
	s := mustCompile(t, "{\n  \"type\": \"string\"\n}\n")
	if got := string(s.Raw()); got != `{"type":"string"}` {
		t.Errorf("Raw = %s", got)
	}
	for _, ok := range []string{`true`, `{}`, `{"$defs":{"a":{"type":"string"}},"$ref":"#/$defs/a"}`} {
		if _, err := Compile([]byte(ok)); err != nil {
			t.Errorf("Compile(%s): %v", ok, err)
		}
	}
}

func TestGuidance(t *testing.T) {
	g := mustCompile(t, report).Guidance()
	for _, want := range []string{
		"```json fenced block",
		`Required fields: "summary" (string), "risk" (one of "low", "high").`,
		"\"additionalProperties\": false", // the schema itself, indented
	} {
		if !strings.Contains(g, want) {
			t.Errorf("guidance lacks %q:\n%s", want, g)
		}
	}
	if !strings.HasSuffix(g, "\n```") {
		t.Errorf("the schema should close the guidance in its fence:\n%s", g)
	}
	if g := mustCompile(t, `{"type":"array"}`).Guidance(); strings.Contains(g, "Required fields") {
		t.Errorf("an array schema has no required fields to list:\n%s", g)
	}
}

func TestCandidates(t *testing.T) {
	cases := []struct {
		name, text string
		want       []string
	}{
		{"fenced json", "Here it is:\n```json\n{\"a\": 1}\n```\n", []string{`{"a": 1}`}},
		{"fenced plain", "```\n[1, 2]\n```", []string{`[1, 2]`}},
		{"tilde fence", "~~~json\n{\"a\":1}\n~~~\n", []string{`{"a":1}`}},
		{"indented fence", "  ```json\n  {\"a\":1}\n  ```", []string{`{"a":1}`}},
		{"unclosed fence", "```json\n{\"a\":1}\n", []string{`{"a":1}`}},
		{"fence not json", "```go\nfunc main() {}\n```\n", nil},
		{"bare object amid prose", `I think the answer is {"a": {"b": [1, 2]}} and that's it.`, []string{`{"a": {"b": [1, 2]}}`}},
		{"bare array", `the list: ["x", "y"].`, []string{`["x", "y"]`}},
		{"braces that are not json", `use {braces} and [links](http://x) freely`, nil},
		{"whole answer scalar", "  42\n", []string{"42"}},
		{"prose only", "no JSON here", nil},
		{"several in order", "draft: {\"a\":1}\n```json\n{\"a\":2}\n```\nthen {\"a\":3}", []string{`{"a":1}`, `{"a":2}`, `{"a":3}`}},
		{"object inside a fence counted once", "```json\n{\"a\": {\"b\": 1}}\n```", []string{`{"a": {"b": 1}}`}},
		{"longer closing fence", "````\n{\"a\":1}\n`````\nafter {\"b\":2}", []string{`{"a":1}`, `{"b":2}`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Candidates(c.text); !reflect.DeepEqual(got, c.want) {
				t.Errorf("Candidates(%q) = %q, want %q", c.text, got, c.want)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	s := mustCompile(t, report)
	cases := []struct {
		name, answer string
		value        string   // the compact value that wins, "" for none
		errs         []string // substrings of the errors, in order
	}{
		{"fenced", "Done.\n```json\n{\"summary\": \"all good\", \"risk\": \"low\"}\n```", `{"summary":"all good","risk":"low"}`, nil},
		{"bare", `Result: {"summary":"fine","risk":"high","files":["a.go"]} — done`, `{"summary":"fine","risk":"high","files":["a.go"]}`, nil},
		{"last valid wins", "```json\n{\"summary\":\"first\",\"risk\":\"low\"}\n```\nor rather\n```json\n{\"summary\":\"second\",\"risk\":\"high\"}\n```",
			`{"summary":"second","risk":"high"}`, nil},
		{"a later invalid one does not hide a valid one", "{\"summary\":\"good\",\"risk\":\"low\"} and an example: {\"x\":1}", `{"summary":"good","risk":"low"}`, nil},
		{"missing", "I could not decide.", "", []string{"holds no JSON value"}},
		{"invalid", "```json\n{\"summary\":\"ok\",\"risk\":\"medium\",\"extra\":1}\n```", "",
			[]string{"at /risk: value must be one of 'low', 'high'", "at the root: additional properties 'extra' not allowed"}},
		{"nested location", `{"summary":"fine","risk":"low","files":["a", 3]}`, "", []string{"at /files/1: got number, want string"}},
		{"several invalid", `{"summary":"x"} then {"summary":"yes","risk":1}`, "",
			[]string{"none of the 2 JSON values in the answer matches the schema; the last one:", "at /risk"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := s.Check(c.answer)
			if string(r.Value) != c.value || r.Valid() != (c.value != "") {
				t.Fatalf("Check value = %s (valid %v), want %s; errors %q", r.Value, r.Valid(), c.value, r.Errors)
			}
			if len(c.errs) == 0 && len(r.Errors) > 0 {
				t.Fatalf("unexpected errors %q", r.Errors)
			}
			if len(c.errs) > 0 {
				joined := strings.Join(r.Errors, "\n")
				at := 0
				for _, want := range c.errs {
					i := strings.Index(joined[at:], want)
					if i < 0 {
						t.Fatalf("errors %q lack %q (in order)", r.Errors, want)
					}
					at += i + len(want)
				}
			}
		})
	}
}

func TestCheckAssertsFormats(t *testing.T) {
	s := mustCompile(t, `{"type":"object","required":["when"],"properties":{"when":{"type":"string","format":"date-time"}}}`)
	if r := s.Check(`{"when":"yesterday"}`); r.Valid() {
		t.Fatalf("a bad date-time was taken: %s", r.Value)
	}
	if r := s.Check(`{"when":"2025-01-31T12:00:00Z"}`); !r.Valid() {
		t.Fatalf("a good date-time was refused: %q", r.Errors)
	}
}
