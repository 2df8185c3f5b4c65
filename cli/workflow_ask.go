package cli

import (
	"bufio"
	"context"
	"fmt"
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
//
// A prompt withdraws when its item is answered elsewhere (the studio, the
// API): the operator is told by whom, and the run goes on.
type terminalAnswers struct {
	s  *streams
	in *bufio.Reader
	// line is the read of the terminal in flight: one at a time, so a
	// read a withdrawn prompt abandoned is the next prompt's answer.
	line pendingLine
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

// readLine reads a line of the terminal, or gives up when gone closes
// first (the read goes on, for the next prompt). false: end of input or
// withdrawn.
func (t *terminalAnswers) readLine(gone <-chan struct{}) (string, bool) {
	l, ok := t.line.next(t.in, gone)
	if !ok || (l.err != nil && l.text == "") {
		return "", false
	}
	return l.text, true
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
		wctx, stop := context.WithCancel(ctx)
		gone, by := answeredElsewhere(wctx, c, run.Session, it.ID)
		a, ok := promptAnswer(t.s, run.Session, it.Interaction, func() (string, bool) { return t.readLine(gone) })
		stop()
		select {
		case <-gone:
			fmt.Fprintf(t.s.err, "\natelier: %s %s was answered elsewhere%s\n", it.Kind, it.ID, *by)
			answered = true
			continue
		default:
		}
		if !ok {
			return answered
		}
		if c.Respond(ctx, run.Session, it.ID, client.Response{Decision: a.Decision, Message: a.Message, Text: a.Text, Prefix: a.Prefix}) == nil {
			answered = true
		}
	}
	return answered
}

// answeredElsewhere follows the session's events until interaction iid is
// resolved, then closes gone, by saying who answered (" (by studio)"). It
// stops with ctx. A stream that cannot be opened leaves gone open: the
// prompt then waits for the operator, as before.
func answeredElsewhere(ctx context.Context, c *client.Client, session, iid string) (<-chan struct{}, *string) {
	gone := make(chan struct{})
	by := new(string)
	st, err := c.Events(ctx, session, 0)
	if err != nil {
		return gone, by
	}
	go func() {
		for ev := range st.C {
			switch {
			case ev.Kind == client.KindSnapshot && ev.Snapshot != nil:
				// The first snapshot says whether it is still open; a
				// resync's does again.
				if !openIn(ev.Snapshot.Interactions, iid) {
					close(gone)
					return
				}
			case ev.Kind == client.KindInteraction && ev.Interaction != nil && ev.Interaction.ID == iid && ev.Interaction.Resolved:
				if ev.Interaction.By != "" {
					*by = " (by " + ev.Interaction.By + ")"
				}
				close(gone)
				return
			}
		}
	}()
	return gone, by
}

func openIn(its []client.Interaction, iid string) bool {
	for _, it := range its {
		if it.ID == iid && !it.Resolved {
			return true
		}
	}
	return false
}
