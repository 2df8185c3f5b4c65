package exemplar

import (
	"fmt"
	"math"
	"regexp"
	"sort"
)

// Objects and arrays: the required members, each built from its own
// schema, within the count bounds.

func (g *gen) object(m map[string]any, depth int) (any, error) {
	props, _ := m["properties"].(map[string]any)
	out := map[string]any{}
	add := func(name string) error {
		if _, done := out[name]; done {
			return nil
		}
		v, err := g.value(g.propertySchema(m, props, name), 0, depth+1)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		out[name] = v
		return nil
	}
	req, _ := m["required"].([]any)
	for _, r := range req {
		if name, ok := r.(string); ok {
			if err := add(name); err != nil {
				return nil, err
			}
		}
	}
	if minP, ok := num(m["minProperties"]); ok {
		names := make([]string, 0, len(props))
		for name := range props {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			if float64(len(out)) >= minP {
				break
			}
			if err := add(name); err != nil {
				return nil, err
			}
		}
		for i := 1; float64(len(out)) < minP && m["additionalProperties"] != false; i++ {
			if err := add(fmt.Sprintf("field%d", i)); err != nil {
				return nil, err
			}
		}
	}
	// Properties present may require others (dependentRequired, and
	// draft 4-7's dependencies with a list of names).
	for _, key := range []string{"dependentRequired", "dependencies"} {
		deps, _ := m[key].(map[string]any)
		for changed := true; changed; {
			changed = false
			for name, need := range deps {
				list, ok := need.([]any)
				if _, present := out[name]; !present || !ok {
					continue
				}
				for _, n := range list {
					if s, ok := n.(string); ok {
						if _, have := out[s]; !have {
							if err := add(s); err != nil {
								return nil, err
							}
							changed = true
						}
					}
				}
			}
		}
	}
	return out, nil
}

// propertySchema is the schema a property's value must match: its own,
// a matching patternProperties entry, or additionalProperties.
func (g *gen) propertySchema(m, props map[string]any, name string) any {
	if s, ok := props[name]; ok {
		return s
	}
	if pp, ok := m["patternProperties"].(map[string]any); ok {
		for pat, s := range pp {
			if re, err := regexp.Compile(pat); err == nil && re.MatchString(name) {
				return s
			}
		}
	}
	if ap, ok := m["additionalProperties"]; ok && ap != false {
		return ap
	}
	return true
}

func (g *gen) array(m map[string]any, depth int) (any, error) {
	var prefix []any
	var rest any = true
	if p, ok := m["prefixItems"].([]any); ok {
		prefix = p
		if it, ok := m["items"]; ok {
			rest = it
		}
	} else if it, ok := m["items"].([]any); ok {
		prefix = it // drafts 4 to 2019-09: items as a tuple
		if ai, ok := m["additionalItems"]; ok {
			rest = ai
		}
	} else if it, ok := m["items"]; ok {
		rest = it
	}
	n := 1 // one item shows what an item looks like
	if minI, ok := num(m["minItems"]); ok {
		n = max(n, int(math.Ceil(minI)))
	}
	if maxI, ok := num(m["maxItems"]); ok {
		n = min(n, int(maxI))
	}
	if rest == false {
		n = min(n, len(prefix))
	}
	out := make([]any, 0, n)
	if c, ok := m["contains"]; ok && n > 0 && len(prefix) == 0 {
		item, err := g.value(map[string]any{"allOf": []any{rest, c}}, 0, depth+1)
		if err != nil {
			return nil, fmt.Errorf("contains: %w", err)
		}
		out = append(out, item)
	}
	for i := len(out); i < n; i++ {
		s := rest
		if i < len(prefix) {
			s = prefix[i]
		}
		item, err := g.value(s, i, depth+1)
		if err != nil {
			return nil, fmt.Errorf("item %d: %w", i, err)
		}
		out = append(out, item)
	}
	return out, nil
}

// formats are sample values of the formats JSON Schema names.
var formats = map[string]string{
	"date-time":             "2025-01-31T12:00:00Z",
	"date":                  "2025-01-31",
	"time":                  "12:00:00Z",
	"duration":              "P1D",
	"email":                 "someone@example.com",
	"idn-email":             "someone@example.com",
	"hostname":              "example.com",
	"idn-hostname":          "example.com",
	"ipv4":                  "192.0.2.1",
	"ipv6":                  "2001:db8::1",
	"uri":                   "https://example.com/",
	"uri-reference":         "https://example.com/",
	"iri":                   "https://example.com/",
	"iri-reference":         "https://example.com/",
	"uri-template":          "https://example.com/{id}",
	"uuid":                  "123e4567-e89b-42d3-a456-426614174000",
	"json-pointer":          "/example",
	"relative-json-pointer": "0",
	"regex":                 "^example$",
	"period":                "2025-01-01T00:00:00Z/P1D",
	"semver":                "1.0.0",
}
