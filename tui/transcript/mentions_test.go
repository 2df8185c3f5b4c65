package transcript

import (
	"fmt"
	"slices"
	"testing"
)

// TestMatchPaths: the paths the word begins come first, then those with a
// segment it begins, shortest first, case aside; at most n.
func TestMatchPaths(t *testing.T) {
	paths := []string{"README.md", "core/", "core/engine.go", "docs/core.md", "docs/", "record.go"}
	got := matchPaths(paths, "co", 5)
	want := []string{"core/", "core/engine.go", "docs/core.md"}
	if !slices.Equal(got, want) {
		t.Fatalf("co: %q, want %q", got, want)
	}
	if got := matchPaths(paths, "rE", 1); !slices.Equal(got, []string{"README.md"}) {
		t.Fatalf("rE, one: %q", got)
	}
	if got := matchPaths(paths, "zz", 5); len(got) != 0 {
		t.Fatalf("zz matches nothing: %q", got)
	}
}

// BenchmarkMatchPaths20k is one key's filtering of a 20,000-path
// workspace's list: what the UI goroutine does per key of a mention.
func BenchmarkMatchPaths20k(b *testing.B) {
	paths := make([]string, 0, 20_000)
	for i := range 20_000 {
		paths = append(paths, fmt.Sprintf("pkg%03d/sub%02d/file%05d.go", i%200, i%37, i))
	}
	b.ResetTimer()
	for range b.N {
		matchPaths(paths, "pkg1", mentionRows)
	}
}
