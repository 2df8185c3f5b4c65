package exemplar

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Strings, numbers and integers: a value of the type within the bounds,
// the pattern and the format where the schema gives them.

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
