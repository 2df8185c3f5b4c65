package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/atelier-studio/atelier/internal/golden"
)

// commandPaths lists every command of the tree as its argument path
// (nil for the root), leaving out cobra's own help command.
func commandPaths() [][]string {
	var out [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		out = append(out, path)
		for _, sub := range c.Commands() {
			if sub.Name() == "help" || sub.Hidden {
				continue
			}
			walk(sub, append(append([]string(nil), path...), sub.Name()))
		}
	}
	s := &streams{in: strings.NewReader(""), out: &bytes.Buffer{}, err: &bytes.Buffer{}, env: env{getenv: os.Getenv}}
	walk(newRoot(s), nil)
	return out
}

// TestHelp keeps every command's --help as its golden file shows it, and
// checks that every command has examples.
func TestHelp(t *testing.T) {
	isolate(t)
	paths := commandPaths()
	if len(paths) < 30 {
		t.Fatalf("only %d commands found", len(paths))
	}
	seen := map[string]bool{}
	for _, p := range paths {
		name := strings.Join(append([]string{"atelier"}, p...), "_")
		seen[name+".golden"] = true
		t.Run(name, func(t *testing.T) {
			r := cli(t, append(append([]string(nil), p...), "--help")...).want(t, ExitOK)
			if !strings.Contains(r.out, "Examples:\n") {
				t.Errorf("%s --help has no examples", name)
			}
			golden.File(t, filepath.Join("testdata", "help", name+".golden"), r.out)
		})
	}
	// No golden file for a command that no longer exists.
	files, _ := filepath.Glob(filepath.Join("testdata", "help", "*.golden"))
	for _, f := range files {
		if !seen[filepath.Base(f)] {
			if golden.Updating() {
				if err := os.Remove(f); err != nil {
					t.Error(err)
				}
				continue
			}
			t.Errorf("%s names no command", f)
		}
	}
}
