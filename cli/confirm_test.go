package cli

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// askingCommands are the commands that ask before they act (s.confirm)
// or refuse to act without being told yes.
var askingCommands = [][]string{
	{"run"}, {"sessions", "create"}, {"sessions", "cancel"}, {"sessions", "delete"}, {"sessions", "restore"},
	{"instances", "create"}, {"instances", "apply"}, {"instances", "discard"}, {"trust"},
}

// TestYesIsUniform: every command that asks takes --yes, spelled -y too,
// and no command's help tells the user to pass --yes when it has no such
// flag (discard's did, and refused it).
func TestYesIsUniform(t *testing.T) {
	s := &streams{in: strings.NewReader(""), out: &bytes.Buffer{}, err: &bytes.Buffer{}, env: env{getenv: os.Getenv}}
	root := newRoot(s)
	check := func(c *cobra.Command, why string) {
		t.Helper()
		f := c.Flags().Lookup("yes")
		if f == nil || f.Shorthand != "y" || f.Value.Type() != "bool" {
			t.Errorf("%s %s, but has no --yes/-y flag (%v)", c.CommandPath(), why, f)
		}
	}
	for _, p := range askingCommands {
		c, rest, err := root.Find(p)
		if err != nil || len(rest) != 0 {
			t.Fatalf("no command %v: %v", p, err)
		}
		check(c, "asks")
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		help := c.Long + c.Flags().FlagUsages()
		if !c.HasSubCommands() {
			help += c.Example // a group's examples are its subcommands'
		}
		if strings.Contains(help, "--yes") {
			check(c, "names --yes in its help")
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
