package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/atelier-studio/atelier/core"
)

func newContextCmd(s *streams, ws *string) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "context SESSION",
		Short: "Print what the session's agent is given: instructions, tools, model, history size",
		Long: `Context prints what the session's agent is given at its next step: its
system instructions, the tools offered with their input schemas, the model,
and how many messages (and bytes of text) of history it is shown, after any
compaction. An agent program (Claude Code, Codex, an ACP agent) keeps its own
tools and history: for it, the instructions and the new input are what
Atelier gives.`,
		Example: `  atelier sessions context 240601
  atelier sessions context 240601 --json | jq '.tools[].name'`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeSessions(s, ws),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			t, done, err := s.shortTarget(cmd.Context(), *ws, args[0])
			if err != nil {
				return err
			}
			defer done(&err)
			c, err := t.api.Context(t.id)
			if err != nil {
				return sessionErr(err)
			}
			if asJSON {
				return writeJSON(s, c)
			}
			printContext(s.out, c)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON, the tools' schemas whole")
	return cmd
}

// firstLine is s up to its first line break, marked when more follows.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// printContext writes an agent's context for a person: what it is, then
// the instructions and the tools (a schema on one line each).
func printContext(w io.Writer, c core.AgentContext) {
	model := c.Model
	if model == "" {
		model = "the agent's default"
	}
	kind := "a model in Atelier's tool loop"
	if c.Kind == core.ContextAgent {
		kind = "an agent program with its own tools and history"
	}
	fmt.Fprintf(w, "session %s · agent %s (%s) · model %s\n", c.Session, c.Agent, kind, model)
	history := fmt.Sprintf("history shown: %d messages, %d bytes of text", c.Messages, c.Bytes)
	if c.Compacted {
		history += " (a summary stands in for the older ones)"
	}
	fmt.Fprintln(w, history)
	if c.Next != "" {
		fmt.Fprintln(w, "next input: "+firstLine(c.Next))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "instructions:")
	if strings.TrimSpace(c.Instructions) == "" {
		fmt.Fprintln(w, "  (none)")
	}
	for _, l := range strings.Split(strings.TrimRight(c.Instructions, "\n"), "\n") {
		if strings.TrimSpace(c.Instructions) != "" {
			fmt.Fprintln(w, "  "+l)
		}
	}
	if c.Kind == core.ContextAgent {
		return
	}
	fmt.Fprintf(w, "\ntools (%d):\n", len(c.Tools))
	for _, t := range c.Tools {
		fmt.Fprintf(w, "  %s — %s\n    %s\n", t.Name, t.Description, strings.TrimSpace(string(t.Schema)))
	}
}
