package exemplar

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// Merging schemas: allOf, $ref and the alternatives of anyOf/oneOf are
// flattened into one schema before a value is built from it.

// flatten folds $ref, allOf and the first branch of anyOf and oneOf into
// one schema object, so build sees every constraint in one place.
func (g *gen) flatten(s map[string]any, depth int) (map[string]any, error) {
	if depth > maxDepth {
		return nil, errors.New("the schema nests or refers to itself too deeply to build a value")
	}
	out := map[string]any{}
	for k, v := range s {
		switch k {
		case "$ref", "allOf", "anyOf", "oneOf":
		default:
			out[k] = v
		}
	}
	var parts []any
	if ref, ok := s["$ref"].(string); ok {
		target, err := g.resolve(ref)
		if err != nil {
			return nil, err
		}
		parts = append(parts, target)
	}
	if all, ok := s["allOf"].([]any); ok {
		parts = append(parts, all...)
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := s[k].([]any); ok && len(alts) > 0 {
			parts = append(parts, pick(alts, out))
		}
	}
	for _, p := range parts {
		switch p := p.(type) {
		case bool:
			if !p {
				return nil, errors.New("the schema includes false, which accepts no value")
			}
		case map[string]any:
			fp, err := g.flatten(p, depth+1)
			if err != nil {
				return nil, err
			}
			out = merge(out, fp)
		}
	}
	return out, nil
}

// pick chooses the branch of an anyOf or oneOf to build: the first whose
// type the rest of the schema allows (a branch "null" only when nothing
// else is left).
func pick(alts []any, rest map[string]any) any {
	allowed := types(rest)
	for _, a := range alts {
		m, ok := a.(map[string]any)
		if !ok {
			continue
		}
		t, _ := m["type"].(string)
		if t == "null" {
			continue
		}
		if t == "" || len(allowed) == 0 || allowed[t] || (t == "integer" && allowed["number"]) {
			return a
		}
	}
	return alts[0]
}

// types returns the set of a schema's "type" keyword, empty for none.
func types(m map[string]any) map[string]bool {
	out := map[string]bool{}
	switch t := m["type"].(type) {
	case string:
		out[t] = true
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok {
				out[s] = true
			}
		}
	}
	return out
}

// resolve follows a reference inside the document: "#" or a JSON pointer
// ("#/$defs/item", "#/definitions/item").
func (g *gen) resolve(ref string) (any, error) {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, fmt.Errorf("cannot follow $ref %q: only references inside the schema (#/...) are followed", ref)
	}
	cur := g.root
	if frag == "" {
		return cur, nil
	}
	if !strings.HasPrefix(frag, "/") {
		return nil, fmt.Errorf("cannot follow $ref %q: anchors are not followed, only JSON pointers", ref)
	}
	for _, tok := range strings.Split(frag[1:], "/") {
		tok, err := url.PathUnescape(tok)
		if err != nil {
			return nil, fmt.Errorf("cannot follow $ref %q: %w", ref, err)
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, fmt.Errorf("cannot follow $ref %q: no %q", ref, tok)
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, fmt.Errorf("cannot follow $ref %q: no item %q", ref, tok)
			}
			cur = c[i]
		default:
			return nil, fmt.Errorf("cannot follow $ref %q: %q is inside a value", ref, tok)
		}
	}
	return cur, nil
}

// merge combines two schema objects that must both hold: properties and
// required are joined, bounds take the tighter, types intersect; for any
// other keyword the first given wins.
func merge(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, bv := range b {
		av, ok := out[k]
		if !ok {
			out[k] = bv
			continue
		}
		switch k {
		case "properties":
			out[k] = mergeProps(av, bv)
		case "required":
			out[k] = union(av, bv)
		case "type":
			out[k] = intersect(av, bv)
		case "minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties":
			out[k] = tighter(av, bv, math.Max)
		case "maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties":
			out[k] = tighter(av, bv, math.Min)
		}
	}
	return out
}

func mergeProps(a, b any) any {
	am, _ := a.(map[string]any)
	bm, _ := b.(map[string]any)
	out := map[string]any{}
	for k, v := range am {
		out[k] = v
	}
	for k, v := range bm {
		if prev, ok := out[k]; ok {
			out[k] = map[string]any{"allOf": []any{prev, v}}
			continue
		}
		out[k] = v
	}
	return out
}

func union(a, b any) any {
	as, _ := a.([]any)
	bs, _ := b.([]any)
	seen := map[any]bool{}
	var out []any
	for _, x := range append(append([]any(nil), as...), bs...) {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func intersect(a, b any) any {
	at, bt := types(map[string]any{"type": a}), types(map[string]any{"type": b})
	var out []any
	for t := range at {
		if bt[t] || (t == "integer" && bt["number"]) {
			out = append(out, t)
		} else if t == "number" && bt["integer"] {
			out = append(out, "integer")
		}
	}
	if len(out) == 0 {
		return b
	}
	sort.Slice(out, func(i, j int) bool { return out[i].(string) < out[j].(string) })
	return out
}

// tighter keeps the tighter of two numeric bounds (a boolean, draft 4's
// exclusive flags, keeps the first).
func tighter(a, b any, f func(x, y float64) float64) any {
	x, okx := num(a)
	y, oky := num(b)
	if !okx || !oky {
		return a
	}
	return json.Number(strconv.FormatFloat(f(x, y), 'g', -1, 64))
}

func num(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	}
	return 0, false
}
