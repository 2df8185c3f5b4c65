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
	"math"
	"net/url"
	"regexp"
	"regexp/syntax"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
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

// stringValue builds a string: a sample of its format, a match of its
// pattern, or a word, within its length bounds.
func stringValue(m map[string]any, variant int) string {
	minL, maxL := 0, -1
	if v, ok := num(m["minLength"]); ok {
		minL = int(math.Ceil(v))
	}
	if v, ok := num(m["maxLength"]); ok {
		maxL = int(v)
	}
	if f, ok := m["format"].(string); ok {
		if s, ok := formats[f]; ok {
			if variant > 0 && f == "uri" {
				s += strconv.Itoa(variant)
			}
			return s
		}
	}
	if p, ok := m["pattern"].(string); ok {
		if s, ok := fromPattern(p, minL, maxL); ok {
			return s
		}
	}
	s := "example"
	if variant > 0 {
		s += "-" + strconv.Itoa(variant+1)
	}
	for utf8.RuneCountInString(s) < minL {
		s += "x"
	}
	if maxL >= 0 && utf8.RuneCountInString(s) > maxL {
		s = string([]rune(s)[:maxL])
	}
	return s
}

// fromPattern builds a string that the pattern matches (JSON Schema's
// patterns are not anchored) with a rune count in [minL, maxL] (maxL -1:
// none): it walks the parsed expression, taking each alternation's first
// branch and repeating each star or plus reps times, for growing reps,
// until a result fits. ok is false when none does.
func fromPattern(p string, minL, maxL int) (string, bool) {
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return "", false
	}
	re = re.Simplify()
	check, err := regexp.Compile(p)
	if err != nil {
		return "", false
	}
	for reps := 0; reps <= 64; reps++ {
		var b strings.Builder
		if !emit(re, reps, &b) {
			return "", false
		}
		s := b.String()
		n := utf8.RuneCountInString(s)
		if maxL >= 0 && n > maxL {
			return "", false
		}
		if n >= minL && check.MatchString(s) {
			return s, true
		}
	}
	return "", false
}

// emit writes a string the expression matches; false when it cannot.
func emit(re *syntax.Regexp, reps int, b *strings.Builder) bool {
	switch re.Op {
	case syntax.OpNoMatch:
		return false
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		r, ok := classRune(re.Rune)
		if !ok {
			return false
		}
		b.WriteRune(r)
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('a')
	case syntax.OpCapture:
		return emit(re.Sub[0], reps, b)
	case syntax.OpStar, syntax.OpQuest:
		n := reps
		if re.Op == syntax.OpQuest {
			n = min(reps, 1)
		}
		for range n {
			if !emit(re.Sub[0], reps, b) {
				return false
			}
		}
	case syntax.OpPlus:
		for range max(reps, 1) {
			if !emit(re.Sub[0], reps, b) {
				return false
			}
		}
	case syntax.OpRepeat:
		n := max(re.Min, min(reps, re.Max))
		if re.Max < 0 {
			n = max(re.Min, reps)
		}
		for range n {
			if !emit(re.Sub[0], reps, b) {
				return false
			}
		}
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !emit(s, reps, b) {
				return false
			}
		}
	case syntax.OpAlternate:
		return emit(re.Sub[0], reps, b)
	}
	// Anchors, word boundaries and empty matches add nothing.
	return true
}

// classRune picks a readable rune of a character class (pairs of ranges):
// a letter or digit if the class has one, else its first printable rune.
func classRune(ranges []rune) (rune, bool) {
	if len(ranges) < 2 {
		return 0, false
	}
	for _, want := range [][2]rune{{'a', 'z'}, {'0', '9'}, {'A', 'Z'}, {'!', '~'}} {
		for i := 0; i+1 < len(ranges); i += 2 {
			lo, hi := max(ranges[i], want[0]), min(ranges[i+1], want[1])
			if lo <= hi {
				return lo, true
			}
		}
	}
	return ranges[0], true
}

// bounds reads a number schema's bounds: lo and hi (±Inf when absent) and
// whether each is exclusive, in draft 4's form (booleans beside minimum
// and maximum) or the later one (numbers of their own).
func bounds(m map[string]any) (lo, hi float64, loEx, hiEx bool) {
	lo, hi = math.Inf(-1), math.Inf(1)
	if v, ok := num(m["minimum"]); ok {
		lo = v
		loEx = m["exclusiveMinimum"] == true
	}
	if v, ok := num(m["maximum"]); ok {
		hi = v
		hiEx = m["exclusiveMaximum"] == true
	}
	if v, ok := num(m["exclusiveMinimum"]); ok && v >= lo {
		lo, loEx = v, true
	}
	if v, ok := num(m["exclusiveMaximum"]); ok && v <= hi {
		hi, hiEx = v, true
	}
	return lo, hi, loEx, hiEx
}

func integer(m map[string]any, variant int) (any, error) {
	lo, hi, loEx, hiEx := bounds(m)
	low := math.Ceil(lo)
	if loEx && low == lo {
		low++
	}
	high := math.Floor(hi)
	if hiEx && high == hi {
		high--
	}
	step := 1.0
	if mo, ok := num(m["multipleOf"]); ok && mo > 0 {
		step = mo
		if mo != math.Trunc(mo) {
			step = 1 // an integer that is a multiple of a fraction: the multiples of 1 may not be, so search
			for k := 1.0; k < 1e6; k++ {
				if v := k * mo; v == math.Trunc(v) {
					step = v
					break
				}
			}
		}
	}
	v := pickIn(low, high, step, variant)
	if v < low || v > high || math.IsInf(v, 0) {
		return nil, fmt.Errorf("no integer from %v to %v", lo, hi)
	}
	return json.Number(strconv.FormatFloat(v, 'f', 0, 64)), nil
}

func number(m map[string]any, variant int) (any, error) {
	lo, hi, loEx, hiEx := bounds(m)
	if mo, ok := num(m["multipleOf"]); ok && mo > 0 {
		low, high := lo, hi
		v := pickIn(low, high, mo, variant)
		if (loEx && v == lo) || (v < lo) {
			v += mo
		}
		if (hiEx && v == hi) || v > hi {
			return nil, fmt.Errorf("no multiple of %v in the bounds", mo)
		}
		// Rounded to the step's decimals: 3 × 0.1 is 0.3, not 0.30000000000000004.
		return json.Number(strconv.FormatFloat(v, 'f', decimals(m["multipleOf"]), 64)), nil
	}
	v := float64(variant)
	switch {
	case !math.IsInf(lo, 0) && !math.IsInf(hi, 0):
		v = lo + (hi-lo)/2 // inside even with both exclusive
		if !loEx && variant == 0 {
			v = lo
		}
	case !math.IsInf(lo, 0):
		v = lo + float64(variant)
		if loEx {
			v++
		}
	case !math.IsInf(hi, 0):
		v = min(0, hi) - float64(variant)
		if hiEx && v == hi {
			v--
		}
	}
	if v < lo || v > hi || (loEx && v == lo) || (hiEx && v == hi) {
		return nil, fmt.Errorf("no number in the bounds (%v, %v)", lo, hi)
	}
	return json.Number(strconv.FormatFloat(v, 'g', -1, 64)), nil
}

// decimals counts the digits after the point of a number as written.
func decimals(v any) int {
	n, ok := v.(json.Number)
	if !ok {
		return -1
	}
	s := strings.ToLower(n.String())
	if strings.Contains(s, "e") {
		return -1
	}
	if _, frac, ok := strings.Cut(s, "."); ok {
		return len(frac)
	}
	return 0
}

// pickIn picks a multiple of step in [low, high]: the variant-th from the
// bottom when there is a lower bound, else near zero.
func pickIn(low, high, step float64, variant int) float64 {
	var v float64
	switch {
	case !math.IsInf(low, 0):
		v = math.Ceil(low/step)*step + float64(variant)*step
	case !math.IsInf(high, 0):
		v = math.Floor(min(0, high)/step)*step - float64(variant)*step
	default:
		v = float64(variant) * step
	}
	return v
}
