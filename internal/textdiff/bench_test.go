package textdiff

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// sourceLike returns n lines that look like a source file: mostly
// distinct statements, with the blank lines and closing braces that
// real files repeat.
func sourceLike(n int, r *rand.Rand) []string {
	lines := make([]string, n)
	for i := range lines {
		switch r.IntN(10) {
		case 0:
			lines[i] = ""
		case 1:
			lines[i] = "}"
		default:
			lines[i] = fmt.Sprintf("\tx%d := compute(%d, %q)", i, r.IntN(1000), "v")
		}
	}
	return lines
}

// spreadEdit changes about one line in seven of a, spread over the whole
// text: a line replaced by a new one or by a blank line, one removed, one
// added or a blank line added. The blank lines are ones a has many of,
// so the search has to place them.
func spreadEdit(a []string, r *rand.Rand) []string {
	b := make([]string, 0, len(a)+len(a)/20)
	for i, l := range a {
		if r.IntN(7) != 0 {
			b = append(b, l)
			continue
		}
		switch r.IntN(5) {
		case 0:
			b = append(b, fmt.Sprintf("\tchanged%d()", i))
		case 1:
			b = append(b, "")
		case 2: // removed
		case 3:
			b = append(b, l, fmt.Sprintf("\tadded%d()", i))
		case 4:
			b = append(b, l, "")
		}
	}
	return b
}

// BenchmarkDiff10kLines15pct diffs a 10,000-line file with about 15% of
// its lines changed, spread over it. The mark is 50 ms and 20 MB an op.
func BenchmarkDiff10kLines15pct(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	x := sourceLike(10_000, r)
	y := spreadEdit(x, r)
	b.ReportAllocs()
	for b.Loop() {
		if Unified("a", "b", x, y, 3) == "" {
			b.Fatal("no diff")
		}
	}
}

// BenchmarkDiff30kLines15pct is the same edit on a file three times as
// long.
func BenchmarkDiff30kLines15pct(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	x := sourceLike(30_000, r)
	y := spreadEdit(x, r)
	b.ReportAllocs()
	for b.Loop() {
		if Unified("a", "b", x, y, 3) == "" {
			b.Fatal("no diff")
		}
	}
}

// BenchmarkDiffUnrelated10k diffs two unrelated 10,000-line texts made of
// the same few dozen lines: the search runs out of budget and what is
// left is reported replaced, so this is about the worst a diff costs.
func BenchmarkDiffUnrelated10k(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	x, y := fewLines(10_000, 40, r), fewLines(10_000, 40, r)
	b.ReportAllocs()
	for b.Loop() {
		if Unified("a", "b", x, y, 3) == "" {
			b.Fatal("no diff")
		}
	}
}

// fewLines returns n lines drawn from k different ones.
func fewLines(n, k int, r *rand.Rand) []string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d", r.IntN(k))
	}
	return lines
}
