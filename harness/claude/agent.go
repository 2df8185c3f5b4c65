package claude

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/procpool"
)

// Agent is the claude harness: one Claude Code process per session, kept
// between turns, driven over its stream-json stdio protocol.
type Agent struct {
	set Settings

	// sess holds each session's state, which outlives its processes
	// (claude's session id for --resume); the process itself starts with
	// the session's first turn, under the session's turnMu.
	sess *procpool.Pool[*session]
}

var (
	_ harness.Agent   = (*Agent)(nil)
	_ harness.Steerer = (*Agent)(nil)
	_ harness.Closer  = (*Agent)(nil)
)

// New checks the settings and returns the adapter. It starts nothing: a
// session's CLI starts with its first turn.
func New(set Settings) (*Agent, error) {
	s, err := set.withDefaults()
	if err != nil {
		return nil, err
	}
	a := &Agent{set: s}
	a.sess = procpool.New[*session](nil, func(s *session) { s.close(0) })
	return a, nil
}

// Name implements harness.Harness.
func (a *Agent) Name() string { return "claude" }

// Caps implements harness.Harness: claude yields at the end of its turns,
// takes steers through its own input, continues a session after a restart
// with --resume, and writes files without asking per write, so the engine
// holds the write lease for its whole turn.
func (a *Agent) Caps() harness.Caps {
	return harness.Caps{Boundary: harness.TurnBoundary, SteerMidTurn: true, Resume: true, TurnLease: true}
}

// session is what the adapter keeps per engine session between turns.
type session struct {
	turnMu sync.Mutex // one turn at a time

	mu       sync.Mutex // guards the fields below; never held across I/O waits
	proc     *proc
	closed   bool    // CloseSession ran: a process started now is ended at once
	claudeID string  // claude's own session id, for --resume
	model    string  // the model the process was started with or set to
	costBase float64 // the process's total_cost_usd at its last result
	inTurn   bool
	// pending counts user messages written (the turn's input and its
	// steers) that the CLI has not yet echoed back as taken.
	pending int
}

// session returns the state of the session id, made on first use.
func (a *Agent) session(id string) (*session, error) {
	s, err := a.sess.Get(context.Background(), id, func(context.Context) (*session, error) { return &session{}, nil })
	if err != nil {
		return nil, fmt.Errorf("claude session %s: %w", id, err)
	}
	return s, nil
}

// Steer implements harness.Steerer: the text goes to the CLI as another
// user message while the turn runs. Claude Code takes it at its next
// step: during a tool call it is added to the same turn (the model sees
// it with the tool's result); while the model is answering without tools
// it becomes a follow-up turn right after this one. Either way the Turn
// in flight returns only once the CLI has answered it.
func (a *Agent) Steer(ctx context.Context, sessionID, text string) error {
	if text == "" {
		return fmt.Errorf("steer claude: %w", ErrEmptyInput)
	}
	s, ok := a.sess.Peek(sessionID)
	if !ok {
		return fmt.Errorf("steer claude session %s: %w", sessionID, ErrNoTurn)
	}
	s.mu.Lock()
	if !s.inTurn || s.proc == nil {
		s.mu.Unlock()
		return fmt.Errorf("steer claude session %s: %w", sessionID, ErrNoTurn)
	}
	pr := s.proc
	s.pending++
	s.mu.Unlock()
	if err := pr.write(newUserLine(text)); err != nil {
		s.mu.Lock()
		s.pending--
		s.mu.Unlock()
		return fmt.Errorf("steer claude session %s: %w", sessionID, err)
	}
	return nil
}

// CloseSession implements harness.Closer: the CLI gets end of input,
// which ends its session, and is killed if it lingers.
func (a *Agent) CloseSession(sessionID string) error {
	if s, ok := a.sess.Take(sessionID); ok {
		s.close(a.set.CloseTimeout)
	}
	return nil
}

// Close ends every session's CLI at once, as CloseSession does each, for
// an engine shutting down; later turns fail.
func (a *Agent) Close() error {
	a.sess.Close(func(s *session) { s.close(a.set.CloseTimeout) })
	return nil
}

// close ends the session's process (gently within grace, killed at once
// when grace is zero), and any process a turn starts after it.
func (s *session) close(grace time.Duration) {
	s.mu.Lock()
	pr := s.proc
	s.proc, s.closed = nil, true
	s.mu.Unlock()
	if pr == nil {
		return
	}
	if grace > 0 {
		pr.close(grace)
	} else {
		pr.kill()
	}
}

// drop forgets a session's process after killing it; its next turn starts
// a new one with --resume.
func (s *session) drop(pr *proc) {
	pr.kill()
	s.mu.Lock()
	if s.proc == pr {
		s.proc = nil
	}
	s.mu.Unlock()
}

// start launches the CLI for a session and sends its initialize request,
// whose answer the first turn's loop waits for (bounded by StartTimeout)
// while it already writes the user message, as the SDKs do. resume is
// claude's session id to continue, or "".
func (a *Agent) start(host harness.Host, model, instructions, resume string) (*proc, error) {
	env, configured, err := a.set.env(host.Workspace())
	if err != nil {
		return nil, fmt.Errorf("start claude: %w", err)
	}
	pctx, cancel := context.WithCancel(context.Background())
	p, err := host.Spawn(pctx, a.set.argv(env, configured, model, instructions, resume), env)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("start claude: %w", err)
	}
	pr := newProc(p, cancel)
	pr.resumed = resume != ""
	if pr.initID, err = pr.request("initialize", map[string]any{"hooks": nil}); err != nil {
		pr.kill()
		return nil, pr.failure(fmt.Errorf("%w: %w", ErrHandshake, err))
	}
	return pr, nil
}

// errResumeRefused is a start-up that ended in an error result before the
// session began: the CLI could not load the session it was to resume.
type errResumeRefused struct{ err error }

func (e errResumeRefused) Error() string { return e.err.Error() }
func (e errResumeRefused) Unwrap() error { return e.err }
