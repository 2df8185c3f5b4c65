package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/terminal"
)

// setupTimeout bounds an instance's setup command ("npm ci" on a large
// project takes minutes, not hours).
const setupTimeout = 30 * time.Minute

// setupTail is how much of a setup's output its notice and its failure
// quote: the end, where the error is.
const setupTail = 2000

// setupDir holds, under the state folder, one record per instance of what
// its setup did.
const setupDir = "instances"

// setupRecord is what an instance's setup did: it ran once and succeeded
// (it never runs again on the instance), or it failed (the next turn to
// start on the instance runs it again, saying so first).
type setupRecord struct {
	Command  string    `json:"command"`
	Time     time.Time `json:"time"`
	OK       bool      `json:"ok"`
	ExitCode int       `json:"exit_code"`
	Error    string    `json:"error,omitempty"`
}

// SetupError is an instance's setup command that failed: the session's
// turn fails with it, and the next turn on the instance runs it again.
type SetupError struct {
	Instance string
	Command  string
	ExitCode int    // -1 when the command could not run or timed out
	Tail     string // the end of its stderr (else its stdout), or why it could not run
}

func (e *SetupError) Error() string {
	return fmt.Sprintf("the setup of instance %s (%s) failed with exit code %d: %s", e.Instance, e.Command, e.ExitCode, e.Tail)
}

// setupInstance runs the configured setup command (InstanceOptions.Setup)
// in a session's instance before the session's turn, once per instance:
// the first turn of the first session on it runs it, the sessions that
// start with it wait for it, and the later ones find it done. It runs
// through sh -c in the session's execution environment (its container
// for a Docker session), in the instance's folder, with the agent's
// environment, under the instance's write lease, its changes attributed
// to the session. Its output is a notice in the session's transcript. A
// failure fails the turn with a *SetupError and is recorded: the next
// turn to start on the instance runs the setup again, after a notice
// that it failed before, never silently. A setup the turn's end cut
// short (cancel, quit) is not a failure: it runs again.
func (l *live) setupInstance(ctx context.Context) error {
	e := l.e
	cmd := strings.TrimSpace(e.opts.Instances.Setup)
	if l.rec.Instance == "" || cmd == "" {
		return nil
	}
	p, err := e.placeOf(l)
	if err != nil {
		return err
	}
	p.setupMu.Lock()
	defer p.setupMu.Unlock()
	prev, err := setupsOf(e.Workspace()).read(l.rec.Instance)
	if err != nil {
		return err
	}
	if prev != nil && prev.OK {
		return nil
	}
	if prev != nil {
		e.noticeSession(l.rec.ID, fmt.Sprintf("running the setup of instance %s again: it failed before with exit code %d", l.rec.Instance, prev.ExitCode))
	}
	res, err := l.runSetup(ctx, p, cmd)
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	rec := setupRecord{Command: cmd, Time: e.opts.Now(), OK: err == nil && res.ExitCode == 0, ExitCode: res.ExitCode}
	var serr *SetupError
	switch {
	case err != nil:
		rec.ExitCode, rec.Error = -1, err.Error()
		serr = &SetupError{Instance: l.rec.Instance, Command: cmd, ExitCode: -1, Tail: err.Error()}
	case res.TimedOut:
		rec.OK, rec.ExitCode, rec.Error = false, -1, "timed out"
		serr = &SetupError{Instance: l.rec.Instance, Command: cmd, ExitCode: -1, Tail: "timed out after " + setupTimeout.String()}
	case res.ExitCode != 0:
		out := res.Stderr
		if strings.TrimSpace(out) == "" {
			out = res.Stdout
		}
		serr = &SetupError{Instance: l.rec.Instance, Command: cmd, ExitCode: res.ExitCode, Tail: tailOf(strings.TrimSpace(out), setupTail)}
	}
	e.mu.Lock()
	l.messageLocked(sessions.Notice, []sessions.Part{{Type: sessions.TextPart,
		Text: fmt.Sprintf("setup of instance %s: %s\n%s", l.rec.Instance, cmd, tailOf(FormatExec(res), setupTail))}})
	e.mu.Unlock()
	if werr := setupsOf(e.Workspace()).write(l.rec.Instance, rec); werr != nil {
		// Unrecorded, a success would run again on the next turn: say so.
		werr = fmt.Errorf("record the setup of instance %s: %w", l.rec.Instance, werr)
		if serr != nil {
			return errors.Join(serr, werr)
		}
		return werr
	}
	if serr != nil {
		return serr
	}
	return nil
}

// runSetup runs the setup command in the session's environment.
func (l *live) runSetup(ctx context.Context, p *place, cmd string) (terminal.ExecResult, error) {
	e := l.e
	e.mu.Lock()
	agentEnv, err := l.agentEnvLocked()
	var env terminal.Env
	if err == nil {
		env, err = l.envLocked()
	}
	e.mu.Unlock()
	if err != nil {
		return terminal.ExecResult{}, err
	}
	release, err := p.leases.Write(ctx, l.rec.ID)
	if err != nil {
		return terminal.ExecResult{}, err
	}
	defer release()
	scope := p.files.Attribution().Begin(l.rec.ID)
	defer scope.Release()
	res, err := env.Exec(ctx, terminal.ExecRequest{ShellCommand: cmd, Env: agentEnv, Timeout: setupTimeout})
	res.Stdout, res.Stderr = e.opts.Redactor.Redact(res.Stdout), e.opts.Redactor.Redact(res.Stderr)
	return res, err
}

// tailOf is the end of s, at most n bytes, marked as cut.
func tailOf(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// setupRecords is the folder, under the state folder, of the records of
// what each instance's setup did.
type setupRecords string

// setupsOf are a workspace's setup records.
func setupsOf(workspace string) setupRecords {
	return setupRecords(filepath.Join(workspace, sessions.StateDir, setupDir))
}

// path is where the record of instance id's setup is kept.
func (r setupRecords) path(id string) string { return filepath.Join(string(r), id+".json") }

// read returns the record of instance id's setup, nil when none ran.
func (r setupRecords) read(id string) (*setupRecord, error) {
	f, err := sessions.OpenStateFile(string(r), id+".json", os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the setup record of instance %s: %w", id, err)
	}
	defer func() { _ = f.Close() }() // read only
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("read the setup record of instance %s: %w", id, err)
	}
	var rec setupRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("read the setup record of instance %s: %w", id, err)
	}
	return &rec, nil
}

// write records what instance id's setup did.
func (r setupRecords) write(id string, rec setupRecord) error {
	if err := os.Mkdir(string(r), 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return sessions.WriteFileAtomic(r.path(id), b, 0o600)
}

// drop forgets a discarded instance's setup record.
func (r setupRecords) drop(id string) error {
	err := os.Remove(r.path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
