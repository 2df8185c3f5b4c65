package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/atelier-studio/atelier/sessions"
)

// Shell completion: cobra's own `completion` command writes the scripts;
// these functions complete what only Atelier knows (session and
// interaction ids, flag values). They read the state folder directly and
// never create it, so pressing TAB changes nothing on disk.

// registerEnumCompletions completes flags whose values are a fixed set.
func registerEnumCompletions(cmd *cobra.Command, enums map[string][]string) {
	for flag, values := range enums {
		vals := values
		err := cmd.RegisterFlagCompletionFunc(flag, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return vals, cobra.ShellCompDirectiveNoFileComp
		})
		if err != nil {
			// A flag that does not exist or is completed twice: a mistake in
			// the command's definition, seen by every test that builds it.
			panic(fmt.Sprintf("complete --%s of %s: %v", flag, cmd.Name(), err))
		}
	}
}

// completeSessions completes a session id as the first argument, with the
// session's title and status as the description.
func completeSessions(s *streams, ws *string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []string
		for _, rec := range readSessions(*ws) {
			if strings.HasPrefix(rec.ID, prefix) {
				out = append(out, rec.ID+"\t"+rec.Title+" ("+statusText(rec)+")")
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeInteractions completes the id of an open interaction of one kind.
func completeInteractions(s *streams, ws *string, kind sessions.InteractionKind) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []string
		for _, rec := range readSessions(*ws) {
			if rec.Status == sessions.Ended {
				continue
			}
			open := map[string]sessions.Interaction{}
			readLines(filepath.Join(stateSessions(*ws), rec.ID, sessions.InteractionsFile), func(b []byte) {
				var it sessions.Interaction
				if json.Unmarshal(b, &it) != nil {
					return
				}
				if it.Resolved {
					delete(open, it.ID)
				} else if it.Kind == kind {
					open[it.ID] = it
				}
			})
			for id, it := range open {
				if strings.HasPrefix(id, prefix) {
					out = append(out, id+"\t"+rec.Title+": "+oneLineOf(describeInteraction(it), 60))
				}
			}
		}
		sort.Strings(out)
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

func stateSessions(ws string) string { return filepath.Join(ws, sessions.StateDir, "sessions") }

// readSessions reads the session records of a workspace without opening a
// store; unreadable ones are left out.
func readSessions(ws string) []sessions.Session {
	ents, err := os.ReadDir(stateSessions(ws))
	if err != nil {
		return nil
	}
	var out []sessions.Session
	for _, e := range ents {
		if !e.IsDir() {
			continue // a symlinked session folder is not followed
		}
		b, err := readStateFile(filepath.Join(stateSessions(ws), e.Name()), "session.json")
		if err != nil {
			continue
		}
		var rec sessions.Session
		if json.Unmarshal(b, &rec) == nil && rec.ID == e.Name() {
			out = append(out, rec)
		}
	}
	return out
}

func readLines(path string, fn func([]byte)) {
	b, err := readStateFile(filepath.Dir(path), filepath.Base(path))
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(b), "\n") {
		if line != "" {
			fn([]byte(line))
		}
	}
}

// newCompletionCmd writes the shell completion scripts (cobra generates
// them; this command gives them Atelier's help and examples).
func newCompletionCmd(s *streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "completion SHELL",
		Short: "Print the shell completion script for bash, zsh, fish or powershell",
		Long: `Completion prints a script that makes your shell complete Atelier's commands,
flags, flag values, and the ids of the workspace's sessions and open
interactions (with their titles). Load it in your shell's start-up file.`,
		Example: `  source <(atelier completion bash)                 # bash, this shell
  atelier completion bash > ~/.local/share/bash-completion/completions/atelier
  atelier completion zsh > "${fpath[1]}/_atelier"   # zsh (compinit on)
  atelier completion fish > ~/.config/fish/completions/atelier.fish
  atelier completion powershell | Out-String | Invoke-Expression`,
		Args: cobra.ArbitraryArgs,
		// Reached only without a shell this command knows (cobra runs the
		// shell's own subcommand otherwise).
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErr("completion needs a shell: bash, zsh, fish or powershell")
			}
			return usageErr("no completion for shell %q: bash, zsh, fish or powershell", args[0])
		},
	}
	gen := map[string]func(root *cobra.Command) error{
		"bash":       func(root *cobra.Command) error { return root.GenBashCompletionV2(s.rawStdout(), true) },
		"zsh":        func(root *cobra.Command) error { return root.GenZshCompletion(s.rawStdout()) },
		"fish":       func(root *cobra.Command) error { return root.GenFishCompletion(s.rawStdout(), true) },
		"powershell": func(root *cobra.Command) error { return root.GenPowerShellCompletionWithDesc(s.rawStdout()) },
	}
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		g := gen[shell]
		cmd.AddCommand(&cobra.Command{
			Use:               shell,
			Short:             "Print the completion script for " + shell,
			Example:           "  atelier completion " + shell,
			Args:              cobra.NoArgs,
			ValidArgsFunction: cobra.NoFileCompletions,
			RunE:              func(c *cobra.Command, args []string) error { return g(c.Root()) },
		})
	}
	return cmd
}

// readStateFile reads a file under .state/ for completion, never through a
// symbolic link (sessions.OpenStateFile), and at most 64 MiB of it.
func readStateFile(dir, name string) ([]byte, error) {
	f, err := sessions.OpenStateFile(dir, name, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read-only
	return io.ReadAll(io.LimitReader(f, 64<<20))
}
