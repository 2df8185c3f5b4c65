package exemplar

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/structured"
)

// TestForValidates builds a value for many shapes of schema and checks each
// against the schema with the validator the engine uses.
func TestForValidates(t *testing.T) {
	cases := []struct{ name, schema string }{
		{"empty", `{}`},
		{"true", `true`},
		{"string", `{"type":"string"}`},
		{"string bounds", `{"type":"string","minLength":12,"maxLength":14}`},
		{"short string", `{"type":"string","maxLength":3}`},
		{"pattern", `{"type":"string","pattern":"^[A-Z]{3}-[0-9]{4}$"}`},
		{"pattern unanchored", `{"type":"string","pattern":"ab+c"}`},
		{"pattern alternation", `{"type":"string","pattern":"^(red|green|blue)$"}`},
		{"pattern with length", `{"type":"string","pattern":"^[a-z]+$","minLength":5}`},
		{"pattern classes", `{"type":"string","pattern":"^\\d{2}\\.\\w+\\s?[^x]$"}`},
		{"formats", `{"type":"object","required":["a","b","c","d","e","f","g","h","i"],"properties":{
			"a":{"type":"string","format":"date-time"},"b":{"type":"string","format":"date"},
			"c":{"type":"string","format":"email"},"d":{"type":"string","format":"uri"},
			"e":{"type":"string","format":"uuid"},"f":{"type":"string","format":"ipv4"},
			"g":{"type":"string","format":"ipv6"},"h":{"type":"string","format":"hostname"},
			"i":{"type":"string","format":"duration"}}}`},
		{"integer", `{"type":"integer"}`},
		{"integer bounds", `{"type":"integer","minimum":10,"maximum":12}`},
		{"integer exclusive", `{"type":"integer","exclusiveMinimum":5,"exclusiveMaximum":7}`},
		{"integer negative", `{"type":"integer","maximum":-3}`},
		{"integer multiple", `{"type":"integer","minimum":7,"multipleOf":5}`},
		{"integer fraction multiple", `{"type":"integer","minimum":1,"multipleOf":0.5}`},
		{"number", `{"type":"number"}`},
		{"number exclusive", `{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1}`},
		{"number multiple", `{"type":"number","minimum":0.25,"multipleOf":0.1}`},
		{"draft4 exclusive", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"number","minimum":3,"exclusiveMinimum":true}`},
		{"boolean", `{"type":"boolean"}`},
		{"null", `{"type":"null"}`},
		{"nullable", `{"type":["null","string"],"minLength":2}`},
		{"enum", `{"enum":["low","medium","high"]}`},
		{"typed enum", `{"type":"integer","enum":["x",3,4]}`},
		{"const", `{"const":{"v":1}}`},
		{"object", `{"type":"object","required":["summary","risk","count"],"properties":{
			"summary":{"type":"string","minLength":1},"risk":{"enum":["low","high"]},
			"count":{"type":"integer","minimum":0},"optional":{"type":"string"}},"additionalProperties":false}`},
		{"no type object", `{"required":["a"],"properties":{"a":{"minimum":2}}}`},
		{"required without property", `{"type":"object","required":["x"],"additionalProperties":{"type":"integer"}}`},
		{"pattern properties", `{"type":"object","required":["x_1"],"patternProperties":{"^x_":{"type":"boolean"}},"additionalProperties":false}`},
		{"min properties", `{"type":"object","minProperties":2,"properties":{"a":{"type":"string"},"b":{"type":"number"},"c":{}}}`},
		{"dependent required", `{"type":"object","required":["card"],"properties":{"card":{"type":"string"},"billing":{"type":"string"}},"dependentRequired":{"card":["billing"]}}`},
		{"nested", `{"type":"object","required":["report"],"properties":{"report":{"type":"object","required":["items","meta"],"properties":{
			"items":{"type":"array","minItems":2,"items":{"type":"object","required":["path","line"],"properties":{"path":{"type":"string"},"line":{"type":"integer","minimum":1}}}},
			"meta":{"type":"object","required":["ok"],"properties":{"ok":{"const":true}}}}}}}`},
		{"array", `{"type":"array","items":{"type":"string"}}`},
		{"empty array", `{"type":"array","maxItems":0}`},
		{"unique items", `{"type":"array","minItems":3,"uniqueItems":true,"items":{"type":"integer","minimum":1}}`},
		{"unique strings", `{"type":"array","minItems":3,"uniqueItems":true,"items":{"type":"string"}}`},
		{"unique enum", `{"type":"array","minItems":2,"uniqueItems":true,"items":{"enum":["a","b","c"]}}`},
		{"tuple", `{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"minItems":2,"items":false}`},
		{"draft7 tuple", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"array","items":[{"type":"boolean"},{"type":"null"}],"minItems":2,"additionalItems":false}`},
		{"contains", `{"type":"array","contains":{"type":"integer","minimum":100}}`},
		{"ref defs", `{"$defs":{"item":{"type":"object","required":["id"],"properties":{"id":{"type":"string","format":"uuid"}}}},
			"type":"array","minItems":1,"items":{"$ref":"#/$defs/item"}}`},
		{"ref definitions", `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"n":{"type":"integer","minimum":4}},"type":"object","required":["n"],"properties":{"n":{"$ref":"#/definitions/n"}}}`},
		{"recursive optional", `{"$defs":{"node":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}}}},"$ref":"#/$defs/node"}`},
		{"allOf", `{"allOf":[{"type":"object","required":["a"],"properties":{"a":{"type":"string"}}},{"required":["b"],"properties":{"b":{"type":"integer","minimum":3}}}]}`},
		{"allOf bounds", `{"type":"integer","allOf":[{"minimum":3},{"minimum":8},{"maximum":9}]}`},
		{"anyOf", `{"anyOf":[{"type":"string","minLength":4},{"type":"integer"}]}`},
		{"oneOf", `{"oneOf":[{"type":"null"},{"type":"object","required":["kind"],"properties":{"kind":{"const":"a"}}}]}`},
		{"oneOf typed", `{"type":"integer","oneOf":[{"type":"string"},{"minimum":5,"maximum":5}]}`},
		{"issue example", `{"type":"object","required":["summary"],"properties":{"summary":{"type":"string"}}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := structured.Compile([]byte(c.schema))
			if err != nil {
				t.Fatalf("the schema itself: %v", err)
			}
			v, err := For([]byte(c.schema))
			if err != nil {
				t.Fatalf("For: %v", err)
			}
			if errs := s.Validate(v); errs != nil {
				t.Fatalf("the value %s does not validate:\n%s", v, strings.Join(errs, "\n"))
			}
		})
	}
}

// TestForShapes checks what the values look like where the choice matters
// to a reader of the demo: required fields present, optional ones left
// out, nested arrays with an item.
func TestForShapes(t *testing.T) {
	v, err := For([]byte(`{"type":"object","required":["summary","files"],"properties":{
		"summary":{"type":"string"},"files":{"type":"array","items":{"type":"string"}},"extra":{"type":"string"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(v, &got); err != nil {
		t.Fatal(err)
	}
	if _, ok := got["extra"]; ok {
		t.Errorf("an optional field was filled in: %s", v)
	}
	if files, ok := got["files"].([]any); !ok || len(files) != 1 {
		t.Errorf("files should hold one item: %s", v)
	}
	if got["summary"] != "example" {
		t.Errorf("summary = %v", got["summary"])
	}
}

// TestForRefuses covers the schemas no value can be built for.
func TestForRefuses(t *testing.T) {
	for name, schema := range map[string]string{
		"false":         `false`,
		"not json":      `{"type":`,
		"outside ref":   `{"$ref":"https://example.com/schema.json"}`,
		"missing ref":   `{"$ref":"#/$defs/nothing"}`,
		"empty range":   `{"type":"integer","minimum":3,"maximum":2}`,
		"required loop": `{"$defs":{"n":{"type":"object","required":["next"],"properties":{"next":{"$ref":"#/$defs/n"}}}},"$ref":"#/$defs/n"}`,
		"false in all":  `{"allOf":[{"type":"string"},false]}`,
	} {
		t.Run(name, func(t *testing.T) {
			if v, err := For([]byte(schema)); err == nil {
				t.Fatalf("For(%s) = %s, want an error", schema, v)
			}
		})
	}
}
