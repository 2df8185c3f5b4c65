package cli

import (
	"bufio"
	"context"
	"fmt"

	"github.com/atelier-studio/atelier/sessions"
)

// runner follows one headless session and answers its interactions as the
// --approve mode says.
type runner struct {
	ctx  context.Context // the command's: an interrupt ends a prompt on the terminal
	id   string
	mode string // ask, auto, deny
	out  *printer
	s    *streams
	last sessions.Session
	in   *bufio.Reader
	// line is the read of the terminal in flight: one at a time, so a read
	// an interrupt abandoned is the next prompt's answer.
	line pendingLine
}

// readLine reads the operator's answer from the terminal; false when the
// command was interrupted first (the read goes on, for the next prompt).
func (r *runner) readLine() (string, bool) {
	var done <-chan struct{}
	if r.ctx != nil {
		done = r.ctx.Done()
	}
	l, ok := r.line.next(r.in, done)
	if !ok {
		fmt.Fprintln(r.s.err) // end the prompt's line
		return "", false
	}
	// An error (end of input) is an empty answer, as before.
	return l.text, true
}
