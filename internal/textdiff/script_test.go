package textdiff

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestScriptProperties checks, for random pairs of texts, that the script
// is well formed and turns a into b, that the unified diff applied to a
// as a patch gives b, and, where a table can tell, that the script is a
// shortest one. The pairs are both unrelated texts over a few lines and
// edits of one text, and they run under the normal bounds and under
// bounds so tight that splits fall back to the furthest point and the
// script runs out of steps.
func TestScriptProperties(t *testing.T) {
	tight := []limits{{split: 4, script: 0, perLine: 1}, {split: 0, script: 40, perLine: 0}, {split: 1, script: 1 << 30, perLine: 0}}
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 3000 {
		var a, b []string
		if i%2 == 0 {
			a, b = randomLines(r, r.IntN(40)), randomLines(r, r.IntN(40))
		} else {
			a = randomLines(r, r.IntN(60))
			b = randomEdit(r, a)
		}
		name := fmt.Sprintf("case %d %q → %q", i, a, b)
		ops := Script(a, b)
		checkScript(t, name, ops, a, b)
		if got, want := edits(ops), shortest(a, b); got != want {
			t.Fatalf("%s: %d edits, the shortest script has %d", name, got, want)
		}
		d := Unified("a", "b", a, b, r.IntN(4))
		got, err := patch(a, d)
		if err != nil {
			t.Fatalf("%s: %v in\n%s", name, err, d)
		}
		if strings.Join(got, "\n") != strings.Join(b, "\n") || len(got) != len(b) {
			t.Fatalf("%s: the diff applied gives %q\n%s", name, got, d)
		}
		lim := tight[i%len(tight)]
		rough := newDiffer(a, b, lim)
		rough.compare(0, len(rough.a), 0, len(rough.b))
		checkScript(t, name+fmt.Sprintf(" with %+v", lim), rough.script(), a, b)
	}
}

// TestScriptTypicalEditIsShortest checks that a large, typical edit stays
// within the bounds: the script is the one an unbounded search finds.
func TestScriptTypicalEditIsShortest(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	a := sourceLike(10_000, r)
	b := spreadEdit(a, r)
	unbounded := newDiffer(a, b, limits{split: 1 << 40, script: 1 << 40})
	unbounded.compare(0, len(unbounded.a), 0, len(unbounded.b))
	ops := Script(a, b)
	checkScript(t, "10k", ops, a, b)
	if got, want := edits(ops), edits(unbounded.script()); got != want {
		t.Errorf("%d edits, an unbounded search finds %d", got, want)
	}
}

// TestScriptIsLinear diffs a 10,000-line file with one line in seven
// changed and a pair of unrelated texts, and bounds the memory each
// takes. The search before this one kept every round's frontier: 628 MB
// for the first.
func TestScriptIsLinear(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	a := sourceLike(10_000, r)
	cases := []struct {
		name string
		a, b []string
	}{
		{"one line in seven", a, spreadEdit(a, r)},
		{"unrelated", fewLines(10_000, 40, r), fewLines(10_000, 40, r)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			ops := Script(c.a, c.b)
			runtime.ReadMemStats(&after)
			if got := after.TotalAlloc - before.TotalAlloc; got > 8<<20 {
				t.Errorf("allocated %d MB", got>>20)
			}
			checkScript(t, c.name, ops, c.a, c.b)
		})
	}
}

// TestScriptStepsAreBounded checks that two unrelated texts take no more
// steps than the bound for their lengths allows (the last run of matches
// may go past it).
func TestScriptStepsAreBounded(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	a, b := fewLines(10_000, 40, r), fewLines(10_000, 40, r)
	d := newDiffer(a, b, defaultLimits)
	start := d.left
	d.compare(0, len(d.a), 0, len(d.b))
	if used := start - d.left; used > start+len(a)+len(b) {
		t.Errorf("%d steps, the bound is %d", used, start)
	}
	checkScript(t, "unrelated", d.script(), a, b)
}

// checkScript fails the test unless ops walks a and b in order, keeps
// only equal lines, and puts the removals of a run of changes before its
// additions.
func checkScript(t *testing.T, name string, ops []Op, a, b []string) {
	t.Helper()
	i, j := 0, 0
	var last byte
	for n, o := range ops {
		if o.A != i || o.B != j {
			t.Fatalf("%s: op %d is %c at %d,%d, expected at %d,%d", name, n, o.Kind, o.A, o.B, i, j)
		}
		switch o.Kind {
		case '=':
			if i >= len(a) || j >= len(b) || a[i] != b[j] {
				t.Fatalf("%s: op %d keeps unequal lines", name, n)
			}
			i, j = i+1, j+1
		case '-':
			if last == '+' {
				t.Fatalf("%s: op %d removes after an addition", name, n)
			}
			i++
		case '+':
			j++
		default:
			t.Fatalf("%s: op %d is %q", name, n, o.Kind)
		}
		last = o.Kind
	}
	if i != len(a) || j != len(b) {
		t.Fatalf("%s: the script ends at %d,%d of %d,%d", name, i, j, len(a), len(b))
	}
}

func edits(ops []Op) int {
	n := 0
	for _, o := range ops {
		if o.Kind != '=' {
			n++
		}
	}
	return n
}

// shortest returns the length of a shortest edit script from a to b,
// from the table of longest common subsequences.
func shortest(a, b []string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev, cur = cur, prev
	}
	return len(a) + len(b) - 2*prev[len(b)]
}

// patch applies a unified diff to a, checking each hunk's header and the
// lines it keeps or removes.
func patch(a []string, diff string) ([]string, error) {
	if diff == "" {
		return a, nil
	}
	lines := strings.Split(strings.TrimSuffix(diff, "\n"), "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "--- ") || !strings.HasPrefix(lines[1], "+++ ") {
		return nil, fmt.Errorf("no file header")
	}
	var out []string
	pos := 0
	for i := 2; i < len(lines); {
		var as, al, bs, bl int
		if _, err := fmt.Sscanf(lines[i], "@@ -%d,%d +%d,%d @@", &as, &al, &bs, &bl); err != nil {
			return nil, fmt.Errorf("line %d: %q: %w", i, lines[i], err)
		}
		start := as
		if al > 0 {
			start--
		}
		if start < pos || start > len(a) {
			return nil, fmt.Errorf("hunk %q starts at line %d, after %d", lines[i], start, pos)
		}
		out = append(out, a[pos:start]...)
		pos = start
		if want := len(out) + min(bl, 1); bs != want {
			return nil, fmt.Errorf("hunk %q: new start %d, expected %d", lines[i], bs, want)
		}
		i++
		ka, kb := 0, 0
		for ; i < len(lines) && !strings.HasPrefix(lines[i], "@@"); i++ {
			l := lines[i]
			if l == "" {
				return nil, fmt.Errorf("line %d is empty", i)
			}
			text := l[1:]
			switch l[0] {
			case ' ', '-':
				if pos >= len(a) || a[pos] != text {
					return nil, fmt.Errorf("line %d: %q is not line %d of a", i, l, pos)
				}
				pos++
				ka++
				if l[0] == ' ' {
					out = append(out, text)
					kb++
				}
			case '+':
				out = append(out, text)
				kb++
			default:
				return nil, fmt.Errorf("line %d: %q", i, l)
			}
		}
		if ka != al || kb != bl {
			return nil, fmt.Errorf("hunk says %d,%d lines, has %d,%d", al, bl, ka, kb)
		}
	}
	return append(out, a[pos:]...), nil
}

// randomLines returns n lines drawn from a few, so that pairs share many.
func randomLines(r *rand.Rand, n int) []string {
	pool := []string{"", "}", "a", "b", "c", "return nil"}
	out := make([]string, n)
	for i := range out {
		out[i] = pool[r.IntN(len(pool))]
	}
	return out
}

// randomEdit returns a with a few lines removed, added, replaced or moved.
func randomEdit(r *rand.Rand, a []string) []string {
	b := append([]string(nil), a...)
	for range r.IntN(8) {
		at := r.IntN(len(b) + 1)
		switch r.IntN(4) {
		case 0:
			if at < len(b) {
				b = append(b[:at], b[at+1:]...)
			}
		case 1:
			b = append(b[:at], append([]string{"new " + strconv.Itoa(r.IntN(5))}, b[at:]...)...)
		case 2:
			if at < len(b) {
				b[at] = "changed"
			}
		case 3:
			if at < len(b) {
				l := b[at]
				b = append(b[:at], b[at+1:]...)
				to := r.IntN(len(b) + 1)
				b = append(b[:to], append([]string{l}, b[to:]...)...)
			}
		}
	}
	return b
}
