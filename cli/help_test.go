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

// TestUnknownSubcommandRefused: a subcommand that does not exist is an
// error naming it (exit 2, nothing on standard output), with or without
// --help, while a command's help given the arguments it takes is still
// help.
func TestUnknownSubcommandRefused(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string // "" is help, exit 0
	}{
		{[]string{"nosuch", "--help"}, `unknown command "nosuch" for "atelier", and no directory of that name`},
		{[]string{"sessions", "nosuch", "--help"}, `unknown command "nosuch" for "atelier sessions"`},
		{[]string{"sessions", "nosuch"}, `unknown command "nosuch" for "atelier sessions"`},
		{[]string{"workflow", "nosuch"}, `unknown command "nosuch" for "atelier workflow"`},
		{[]string{"workflow", "nosuch", "--help"}, `unknown command "nosuch" for "atelier workflow"`},
		{[]string{"events", "nosuch", "-h"}, `unknown command "nosuch" for "atelier events"`},
		{[]string{"instances", "nosuch", "--help"}, `unknown command "nosuch" for "atelier instances"`},
		{[]string{"help", "nosuch"}, `unknown help topic "nosuch"`},
		{[]string{"help", "sessions", "nosuch"}, `unknown help topic "sessions nosuch"`},
		{[]string{"help", "sessions", "show"}, ""},
		{[]string{"help"}, ""},
		{[]string{"--help"}, ""},
		{[]string{dir, "--help"}, ""},
		{[]string{"sessions", "--help"}, ""},
		{[]string{"workflow"}, ""},
		{[]string{"sessions", "queue", "240601", "--help"}, ""},
		{[]string{"sessions", "show", "--help"}, ""},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := cli(t, tc.args...)
			if tc.want == "" {
				r.want(t, ExitOK)
				if !strings.Contains(r.out, "Usage:") {
					t.Errorf("no help on standard output:\n%s", r.out)
				}
				return
			}
			r.want(t, ExitUsage)
			if !strings.Contains(r.err, tc.want) || r.out != "" {
				t.Errorf("stdout %q, stderr %q: want only an error saying %q", r.out, r.err, tc.want)
			}
		})
	}
}
