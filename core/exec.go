package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/terminal"
)

// execFor runs a command in a session's execution environment (whose
// folder is the session's place: the workspace, or its instance) under the
// place's write lease, with every change it makes attributed to the
// session, and notes that the turn ran a command. The command sees the
// environment's base (the base variables agents get, on the host; the
// image's, in a container) plus the agent's configured env, never the rest
// of ours; secret values in its output are redacted (Options.Redactor).
func (l *live) execFor(ctx context.Context, req terminal.ExecRequest) (terminal.ExecResult, error) {
	e := l.e
	e.mu.Lock()
	agentEnv, err := l.agentEnvLocked()
	if err != nil {
		e.mu.Unlock()
		return terminal.ExecResult{}, err
	}
	req.Env = append(agentEnv, req.Env...)
	env, err := l.envLocked()
	l.ranExecLocked()
	e.mu.Unlock()
	if err != nil {
		return terminal.ExecResult{}, err
	}
	p, err := e.placeOf(l)
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
	res, err := env.Exec(ctx, req)
	res.Stdout, res.Stderr = e.opts.Redactor.Redact(res.Stdout), e.opts.Redactor.Redact(res.Stderr)
	return res, err
}

// agentEnvLocked is the configured env of a session's agent. Only an env
// that cannot be made (ErrAgentEnv) stops a command: an agent that is no
// longer configured, or whose harness cannot start here (its key is not
// exported in this shell), still lets the operator run commands.
func (l *live) agentEnvLocked() ([]string, error) {
	_, set, err := l.agentLocked()
	if errors.Is(err, ErrAgentEnv) {
		return nil, err
	}
	return append([]string(nil), set.Env...), nil
}

// FormatExec renders a command's result for the transcript and the model:
// stdout, then stderr marked as such, then how it ended.
func FormatExec(r terminal.ExecResult) string {
	var b strings.Builder
	b.WriteString(r.Stdout)
	if r.Stderr != "" {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
		b.WriteString("[stderr]\n" + r.Stderr)
	}
	if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
		b.WriteByte('\n')
	}
	switch {
	case r.TimedOut:
		b.WriteString("[timed out]")
	case r.Cancelled:
		b.WriteString("[cancelled]")
	default:
		fmt.Fprintf(&b, "[exit code %d]", r.ExitCode)
	}
	return b.String()
}

func execState(r terminal.ExecResult) sessions.ToolState {
	if r.TimedOut || r.Cancelled {
		return sessions.ToolError
	}
	return sessions.ToolDone
}

// ExecResult is the outcome of Engine.Exec: the command's result, or, for
// a repeated idempotency key, the result recorded the first time.
type ExecResult struct {
	terminal.ExecResult
	// Replayed is true when the key had completed before and nothing ran.
	Replayed bool `json:"replayed,omitempty"`
}

// ExecCommand is what Engine.Exec runs: Argv as it is (no shell), or Shell
// through /bin/sh -c. Exactly one is set.
type ExecCommand struct {
	Argv    []string      `json:"argv,omitempty"`
	Shell   string        `json:"shell,omitempty"`
	Key     string        `json:"key,omitempty"`
	Timeout time.Duration `json:"timeout,omitempty"`
	// output, when set, receives the output as it arrives (ExecStream
	// sets it); it is not part of the command, so neither the key's
	// digest nor the audit log sees it.
	output func(terminal.Chunk)
}

// request turns the command into the execution environment's request.
func (c ExecCommand) request() (terminal.ExecRequest, error) {
	switch {
	case len(c.Argv) > 0 && c.Shell != "":
		return terminal.ExecRequest{}, fmt.Errorf("exec: give argv or a shell command, not both")
	case len(c.Argv) > 0:
		return terminal.ExecRequest{Command: append([]string(nil), c.Argv...), Timeout: c.Timeout, OnChunk: c.output}, nil
	case strings.TrimSpace(c.Shell) != "":
		return terminal.ExecRequest{ShellCommand: c.Shell, Timeout: c.Timeout, OnChunk: c.output}, nil
	}
	return terminal.ExecRequest{}, fmt.Errorf("exec: no command")
}

// Exec runs a command in a session's execution environment without a model
// turn; the result is recorded in the audit log, not the conversation. A
// key makes it idempotent: a key that completed returns its recorded result
// without running again, and one interrupted before its result was recorded
// is reported uncertain and not run again by itself.
func (e *Engine) Exec(ctx context.Context, id string, cmd ExecCommand) (ExecResult, error) {
	req, err := cmd.request()
	if err != nil {
		return ExecResult{}, err
	}
	key := cmd.Key
	e.mu.Lock()
	l, err := e.getLocked(id)
	if err != nil {
		e.mu.Unlock()
		return ExecResult{}, err
	}
	if l.rec.Status == sessions.Ended {
		e.mu.Unlock()
		return ExecResult{}, &TransitionError{Session: l.rec.ID, Status: l.rec.Status, Action: "exec"}
	}
	if key != "" {
		digest := keyDigest("exec", fmt.Sprintf("%q", cmd.Argv)+"\x00"+cmd.Shell)
		if k, ok := l.keys[key]; ok {
			e.mu.Unlock()
			if k.Op != "exec" || (k.Digest != "" && k.Digest != digest) {
				return ExecResult{}, fmt.Errorf("exec key %q of session %s: %w", key, l.rec.ID, ErrKeyConflict)
			}
			switch k.State {
			case "done":
				var r terminal.ExecResult
				if err := json.Unmarshal(k.Result, &r); err != nil {
					return ExecResult{}, fmt.Errorf("exec key %q: recorded result unreadable: %w", key, err)
				}
				return ExecResult{ExecResult: r, Replayed: true}, nil
			default:
				return ExecResult{}, fmt.Errorf("exec key %q is %s: its command may have run; not running it again", key, k.State)
			}
		}
		rec := sessions.KeyRecord{Key: key, Op: "exec", State: sessions.KeyStarted, Time: e.opts.Now(), Digest: digest}
		if err := l.log.AppendKey(rec); err != nil {
			e.mu.Unlock()
			return ExecResult{}, err
		}
		l.keys[key] = rec
	}
	e.mu.Unlock()
	res, err := l.execFor(ctx, req)
	e.mu.Lock()
	defer e.mu.Unlock()
	data, merr := json.Marshal(struct {
		Command ExecCommand         `json:"command"`
		Result  terminal.ExecResult `json:"result"`
		Error   string              `json:"error,omitempty"`
	}{cmd, res, errString(err)})
	if merr != nil {
		return ExecResult{ExecResult: res}, merr
	}
	if werr := l.log.AppendTurn(sessions.TurnEvent{Time: e.opts.Now(), Turn: l.rec.Turns, Kind: "exec", Data: data}); werr != nil {
		l.storeFailedLocked(werr)
		return ExecResult{ExecResult: res}, errors.Join(err, fmt.Errorf("record the command's result: %w", werr))
	}
	if key != "" && err == nil {
		b, merr := json.Marshal(res)
		if merr != nil {
			return ExecResult{ExecResult: res}, merr
		}
		rec := sessions.KeyRecord{Key: key, Op: "exec", State: sessions.KeyDone, Result: b, Time: e.opts.Now(),
			Digest: l.keys[key].Digest}
		if werr := l.log.AppendKey(rec); werr != nil {
			l.storeFailedLocked(werr)
			return ExecResult{ExecResult: res}, fmt.Errorf("record the result of key %q: %w", key, werr)
		}
		l.keys[key] = rec
	}
	return ExecResult{ExecResult: res}, err
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
