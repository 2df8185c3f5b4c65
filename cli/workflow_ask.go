package cli

import (
	"bufio"
	"context"
	"os"

	"github.com/charmbracelet/x/term"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/workflow/runs"
)

// terminalAnswers asks, on the terminal, the approvals and questions that
// suspended a run under --approve ask, and answers them through the host
// as `atelier run --approve ask` does. It reports whether it answered one
// (the caller then resumes the run); with no terminal it answers nothing
// and the run stays suspended (exit 4).
type terminalAnswers struct {
	s  *streams
	in *bufio.Reader
}

// ready says whether the operator is at a terminal, and readies its reader.
func (t *terminalAnswers) ready() bool {
	f, ok := t.s.in.(*os.File)
	if !ok || !term.IsTerminal(f.Fd()) {
		return false
	}
	if t.in == nil {
		t.in = bufio.NewReader(f)
	}
	return true
}

func (t *terminalAnswers) readLine() (string, bool) {
	line, err := t.in.ReadString('\n')
	if err != nil && line == "" {
		return "", false
	}
	return line, true
}

// answer asks the open approvals and questions of the run's session.
func (t *terminalAnswers) answer(ctx context.Context, c *client.Client, run runs.Run) bool {
	if run.Status != runs.Suspended || run.Approve != "ask" || run.Session == "" || !t.ready() {
		return false
	}
	open, err := c.Interactions(ctx, run.Session)
	if err != nil {
		return false
	}
	answered := false
	for _, it := range open {
		if it.Resolved || (it.Kind != sessions.Approval && it.Kind != sessions.Question) {
			continue
		}
		a, ok := promptAnswer(t.s, run.Session, it.Interaction, t.readLine)
		if !ok {
			return answered
		}
		if c.Respond(ctx, run.Session, it.ID, client.Response{Decision: a.Decision, Message: a.Message, Text: a.Text}) == nil {
			answered = true
		}
	}
	return answered
}
