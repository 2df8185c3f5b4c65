package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/sessions"
)

// sessionDetail is `atelier sessions show --json`.
type sessionDetail struct {
	Session      sessions.Session       `json:"session"`
	Messages     []sessions.Message     `json:"messages"`
	Interactions []sessions.Interaction `json:"open_interactions"`
	Queue        []sessions.Control     `json:"queue"`
	Owner        *core.Lease            `json:"owner,omitempty"`
	// Repairs are what reading the session's files put right or left out
	// (a torn last line cut, a corrupt line skipped), each with its file
	// and line.
	Repairs []sessions.Repair `json:"repairs"`
}

func newShowCmd(s *streams, ws *string) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show SESSION",
		Short: "Print a session's transcript, open interactions, queue and repairs",
		Example: `  atelier sessions show 240601
  atelier sessions show 240601 --json | jq '.messages[-1]'`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeSessions(s, ws),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			d, err := s.showDetail(cmd.Context(), *ws, args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(s, d)
			}
			printDetail(s.out, d)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON: the record, messages, open interactions, queue and repairs")
	return cmd
}

// showDetail reads what `sessions show` prints: from the engine at
// --engine, or from this workspace's store.
func (s *streams) showDetail(ctx context.Context, workspace, idArg string) (d sessionDetail, err error) {
	t, done, err := s.readTarget(ctx, workspace, idArg)
	if err != nil {
		return sessionDetail{}, err
	}
	defer done(&err)
	if d, err = detail(t.api, t.id); err != nil {
		return sessionDetail{}, sessionErr(err)
	}
	// The process that runs it: only this machine's lease says (an
	// engine elsewhere is the one process there).
	if t.eng != nil && d.Session.Status != sessions.Ended {
		if l, ok := core.ReadLease(t.eng.Workspace()); ok {
			d.Owner = &l
		}
	}
	return d, nil
}

// detail reads one session's record, transcript, queue, repairs and open
// interactions.
func detail(api sessionAPI, id string) (d sessionDetail, err error) {
	if d.Session, err = api.Session(id); err != nil {
		return sessionDetail{}, err
	}
	if d.Messages, err = api.Messages(id); err != nil {
		return sessionDetail{}, err
	}
	if d.Queue, err = api.Queue(id); err != nil {
		return sessionDetail{}, err
	}
	if d.Repairs, err = api.Repairs(id); err != nil {
		return sessionDetail{}, err
	}
	open, err := api.OpenInteractions()
	if err != nil {
		return sessionDetail{}, err
	}
	d.Interactions = []sessions.Interaction{}
	for _, it := range open {
		if it.SessionID == id {
			d.Interactions = append(d.Interactions, it.Interaction)
		}
	}
	d.fill()
	return d, nil
}

// fill makes the lists that are empty print as [] in JSON.
func (d *sessionDetail) fill() {
	if d.Repairs == nil {
		d.Repairs = []sessions.Repair{}
	}
	if d.Messages == nil {
		d.Messages = []sessions.Message{}
	}
	if d.Queue == nil {
		d.Queue = []sessions.Control{}
	}
}

// printDetail writes a session as text: a header, the transcript turn by
// turn, then what waits on the operator.
func printDetail(w io.Writer, d sessionDetail) {
	r := d.Session
	fmt.Fprintf(w, "%s  %s\n", r.ID, r.Title)
	fmt.Fprintf(w, "agent %s · %s · %s · %s · %d turn(s)", r.Agent, r.Mode, r.Access, statusText(r), r.Turns)
	if r.Usage.InputTokens+r.Usage.OutputTokens > 0 {
		fmt.Fprintf(w, " · %d in / %d out tokens", r.Usage.InputTokens, r.Usage.OutputTokens)
	}
	fmt.Fprintln(w)
	if d.Owner != nil {
		fmt.Fprintf(w, "run by pid %d on %s\n", d.Owner.PID, d.Owner.Host)
	}
	if r.Error != "" {
		fmt.Fprintf(w, "error: %s\n", r.Error)
	}
	printRepairs(w, d.Repairs)
	turn := -1
	for _, m := range d.Messages {
		if m.Turn != turn {
			turn = m.Turn
			fmt.Fprintf(w, "\n── turn %d ──\n", turn)
		}
		printMessage(w, m)
	}
	printOutput(w, r.Output)
	for _, it := range d.Interactions {
		fmt.Fprintf(w, "\nopen %s %s: %s\n", it.Kind, it.ID, describeInteraction(it))
	}
	for i, c := range d.Queue {
		fmt.Fprintf(w, "queued %d %s %s: %s\n", i, c.ID, c.Kind, oneLineOf(c.Text, 72))
	}
}

// printOutput says the structured answer of the latest turn given an
// output schema: the JSON that matched, or why nothing did.
func printOutput(w io.Writer, o *sessions.Output) {
	if o == nil {
		return
	}
	if o.Valid {
		var one bytes.Buffer
		if err := json.Compact(&one, o.Value); err != nil {
			one.Reset()
			one.Write(o.Value) // as the record has it
		}
		fmt.Fprintf(w, "\noutput of turn %d (matches its schema): %s\n", o.Turn, one.String())
		return
	}
	fmt.Fprintf(w, "\noutput of turn %d: no answer matched its schema:\n", o.Turn)
	for _, e := range o.Errors {
		fmt.Fprintf(w, "  %s\n", e)
	}
}

// printRepairs says what reading the session's files repaired: a torn
// line cut, a corrupt one skipped. Those lines are not in the transcript.
func printRepairs(w io.Writer, reps []sessions.Repair) {
	if len(reps) == 0 {
		return
	}
	fmt.Fprintf(w, "repaired when read (%d):\n", len(reps))
	for _, r := range reps {
		fmt.Fprintf(w, "  %s\n", r)
	}
}

func printMessage(w io.Writer, m sessions.Message) {
	who := map[sessions.Role]string{sessions.User: "you", sessions.Assistant: "agent", sessions.Notice: "notice",
		sessions.Summary: "summary", sessions.Cleared: "cleared"}[m.Role]
	for _, p := range m.Parts {
		switch p.Type {
		case sessions.TextPart:
			fmt.Fprintf(w, "%s: %s\n", who, strings.TrimRight(p.Text, "\n"))
		case sessions.ReasoningPart:
			fmt.Fprintf(w, "  (thinking) %s\n", oneLineOf(p.Text, 100))
		case sessions.ErrorPart:
			fmt.Fprintf(w, "error: %s\n", p.Text)
		case sessions.ToolPart:
			if t := p.Tool; t != nil {
				fmt.Fprintf(w, "  ▸ %s %s → %s\n", t.Name, oneLineOf(t.Input, 100), t.State)
				for _, line := range firstLines(t.Output, 8) {
					fmt.Fprintf(w, "    %s\n", line)
				}
			}
		}
	}
}

// describeInteraction says in one line what an interaction asks.
func describeInteraction(it sessions.Interaction) string {
	switch it.Kind {
	case sessions.Approval:
		what := it.Command
		if what == "" {
			what = it.Path
		}
		return strings.TrimSpace(it.Tool + " " + what)
	case sessions.Question:
		q := it.Text
		if len(it.Choices) > 0 {
			q += " (" + strings.Join(it.Choices, ", ") + ")"
		}
		if it.Default != "" {
			q += " [default " + it.Default + "]"
		}
		return q
	case sessions.Park:
		if it.Deadline != nil {
			return "parked until " + it.Deadline.Local().Format("15:04:05")
		}
		return "parked until event " + it.Event
	}
	return it.Text + it.Reason
}

func oneLineOf(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return s
}

func firstLines(s string, n int) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		more := len(lines) - n
		lines = append(lines[:n], fmt.Sprintf("… %d more line(s)", more))
	}
	return lines
}
