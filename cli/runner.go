package cli

import (
	"bufio"
	"context"
	"fmt"
	"os"

	"github.com/charmbracelet/x/term"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/sessions"
)

// runner follows one headless session and answers its interactions as the
// --approve mode says.
type runner struct {
	ctx  context.Context // the command's: an interrupt ends a prompt on the terminal
	eng  *core.Engine
	id   string
	mode string // ask, auto, deny
	out  *printer
	s    *streams
	last sessions.Session
	in   *bufio.Reader
	// line is the read of the terminal in flight: one at a time, so a read
	// an interrupt abandoned is the next prompt's answer.
	line chan string
}

// handle prints an event and reports whether the run is over, with its
// exit code.
func (r *runner) handle(ev core.Event) (int, bool) {
	if ev.SessionID != r.id {
		return 0, false
	}
	r.out.event(ev)
	switch ev.Kind {
	case core.EvSession:
		r.last = *ev.Session
		code, stop := stopCode(r.last)
		if stop && r.last.Status == sessions.Waiting {
			// A WAITING session with queued input starts its next turn at
			// once: only a WAITING that lasts is a stop.
			if cur, err := r.eng.Session(r.id); err == nil && cur.Status != sessions.Waiting {
				return 0, false
			}
		}
		return code, stop
	case core.EvInteraction:
		if ev.Interaction.Resolved {
			return 0, false
		}
		if !r.answer(*ev.Interaction) {
			r.last.Status, r.last.SubState = sessions.Running, sessions.Parked
			return ExitNeedsYou, true
		}
	}
	return 0, false
}

// answer replies to an interaction; false means headless mode cannot.
func (r *runner) answer(it sessions.Interaction) bool {
	return answerHeadless(r.mode, "cli", it, r.ask, func(a core.Answer) error { return r.eng.Answer(r.id, it.ID, a) },
		func(text string) { r.out.notice(r.id, text) })
}

// ask prompts on the terminal; with no terminal the session is left waiting.
func (r *runner) ask(it sessions.Interaction) bool {
	f, ok := r.s.in.(*os.File)
	if !ok || !term.IsTerminal(f.Fd()) {
		return false
	}
	if r.in == nil {
		r.in = bufio.NewReader(f)
	}
	a, ok := promptAnswer(r.s, r.id, it, r.readLine)
	if !ok {
		return false
	}
	a.By = "cli"
	return r.eng.Answer(r.id, it.ID, a) == nil
}

// readLine reads the operator's answer from the terminal; false when the
// command was interrupted first (the read goes on, for the next prompt).
func (r *runner) readLine() (string, bool) {
	if r.line == nil {
		ch := make(chan string, 1)
		r.line = ch
		go func() {
			// An error (end of input) is an empty answer, as before.
			line, _ := r.in.ReadString('\n')
			ch <- line
		}()
	}
	var done <-chan struct{}
	if r.ctx != nil {
		done = r.ctx.Done()
	}
	select {
	case line := <-r.line:
		r.line = nil
		return line, true
	case <-done:
		fmt.Fprintln(r.s.err) // end the prompt's line
		return "", false
	}
}
