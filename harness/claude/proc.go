package claude

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/terminal"
)

// maxLine caps one stdout line. A tool result holding a large file can make
// a line of megabytes; anything beyond this is not a line the CLI meant.
const maxLine = 32 << 20

// stderrKeep is how much of the CLI's stderr is kept for error messages.
const stderrKeep = 4 << 10

// proc is one running CLI: its stdout split into lines on a channel, the
// tail of its stderr, and serialised writes to its stdin.
type proc struct {
	p      terminal.Process
	cancel context.CancelFunc // ends the Spawn context, which kills it

	lines   chan []byte // closed when stdout ends; then readErr is set
	readErr error
	stderr  *harness.Tail
	errDone chan struct{} // stderr fully read

	exited chan struct{} // closed when Wait returned
	code   int

	// initID is our initialize request while its answer is awaited; the
	// loop that reads it is the only one to touch it.
	initID string
	// resumed says the process was started with --resume.
	resumed bool

	writeMu sync.Mutex
	reqMu   sync.Mutex
	nextReq int
}

func newProc(p terminal.Process, cancel context.CancelFunc) *proc {
	pr := &proc{p: p, cancel: cancel, lines: make(chan []byte, 64), stderr: &harness.Tail{Max: stderrKeep},
		errDone: make(chan struct{}), exited: make(chan struct{})}
	go pr.readStdout()
	go func() {
		_, _ = io.Copy(pr.stderr, p.Stderr())
		close(pr.errDone)
	}()
	go func() {
		pr.code, _ = p.Wait()
		close(pr.exited)
	}()
	return pr
}

func (pr *proc) readStdout() {
	defer close(pr.lines)
	r := bufio.NewReaderSize(pr.p.Stdout(), 64<<10)
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		buf = append(buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(buf) > maxLine {
				pr.readErr = fmt.Errorf("a stdout line is over %d MiB", maxLine>>20)
				return
			}
			continue
		}
		if t := bytes.TrimSpace(buf); len(t) > 0 {
			pr.lines <- bytes.Clone(t)
		}
		buf = buf[:0]
		if err != nil {
			if !errors.Is(err, io.EOF) {
				pr.readErr = err
			}
			return
		}
	}
}

// writeTimeout bounds one write to the CLI's stdin: a CLI that stops
// reading its input is stuck, and is killed rather than hang the turn.
const writeTimeout = 30 * time.Second

// write sends one JSON object as a line on stdin.
func (pr *proc) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	pr.writeMu.Lock()
	defer pr.writeMu.Unlock()
	done := make(chan error, 1)
	go func() {
		_, err := pr.p.Stdin().Write(b)
		done <- err
	}()
	timer := time.NewTimer(writeTimeout)
	defer timer.Stop()
	select {
	case err = <-done:
	case <-timer.C:
		_ = pr.p.Kill()
		err = fmt.Errorf("claude has not read its input for %s", writeTimeout)
	}
	if err != nil {
		return fmt.Errorf("write to claude: %w", err)
	}
	return nil
}

// request sends a control_request of ours and returns its id.
func (pr *proc) request(subtype string, fields map[string]any) (string, error) {
	pr.reqMu.Lock()
	pr.nextReq++
	id := fmt.Sprintf("atelier_%d", pr.nextReq)
	pr.reqMu.Unlock()
	req := map[string]any{"subtype": subtype}
	for k, v := range fields {
		req[k] = v
	}
	return id, pr.write(outControlRequest{Type: "control_request", RequestID: id, Request: req})
}

// respond answers a control_request of the CLI.
func (pr *proc) respond(id string, body any, errText string) error {
	env := outResponseEnv{Subtype: "success", RequestID: id, Response: body}
	if errText != "" {
		env = outResponseEnv{Subtype: "error", RequestID: id, Error: errText}
	}
	return pr.write(outControlResponse{Type: "control_response", Response: env})
}

// dead reports whether the process has ended.
func (pr *proc) dead() bool {
	select {
	case <-pr.exited:
		return true
	default:
		return false
	}
}

// kill ends the process at once and waits, bounded, for it to be gone.
func (pr *proc) kill() {
	_ = pr.p.Kill()
	pr.cancel()
	select {
	case <-pr.exited:
	case <-time.After(5 * time.Second):
	}
}

// close ends the session the polite way: end of input, then a kill if the
// CLI has not exited within grace.
func (pr *proc) close(grace time.Duration) {
	pr.writeMu.Lock()
	_ = pr.p.Stdin().Close()
	pr.writeMu.Unlock()
	select {
	case <-pr.exited:
	case <-time.After(grace):
	}
	pr.kill()
}

// ended describes how the process ended, with its stderr tail, once it has
// (bounded: a process whose stdout closed ends promptly).
func (pr *proc) ended(what string) error {
	select {
	case <-pr.exited:
	case <-time.After(5 * time.Second):
		pr.kill()
	}
	select {
	case <-pr.errDone:
	case <-time.After(time.Second):
	}
	base := ErrExited
	if pr.code == 127 {
		base = ErrNotFound
	}
	msg := fmt.Sprintf("%s: %v (exit code %d)", what, base, pr.code)
	if pr.readErr != nil {
		msg += ": " + pr.readErr.Error()
	}
	return &ProcessError{Msg: msg, Stderr: pr.stderr.String(), err: base}
}

// failure wraps err with the stderr tail so far.
func (pr *proc) failure(err error) error {
	return &ProcessError{Msg: err.Error(), Stderr: pr.stderr.String(), err: err}
}
