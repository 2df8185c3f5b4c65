package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/atelier-studio/atelier/engine"
	"github.com/atelier-studio/atelier/sessions"
)

// CreateOptions describe a new session.
type CreateOptions struct {
	Agent        string
	Title        string
	Instructions string // the task: the first turn's input
	Mode         sessions.Mode
	Access       sessions.Access
	Execution    string
	Image        string
	Approval     string
	AutoStart    bool
	StartAt      *time.Time
	Key          string // idempotency key: a repeated key returns the session it created
	// OutputSchema is the JSON Schema the answer to the task must match
	// (structured output); nil for a free answer.
	OutputSchema json.RawMessage
	// Env holds the variables the creating client's environment has for
	// the agent (see EnvResolver); kept in memory only.
	Env map[string]string
	// Isolation is where the session works: "" or IsolationInPlace (the
	// workspace folder), IsolationWorktree or IsolationCopy (a new
	// instance made for the session, see instances.go).
	Isolation string
	// Instance joins an existing instance instead (several sessions can
	// share one); it excludes Isolation other than "".
	Instance string
}

// placeWith fills where the session runs from its agent's settings when
// the create names no execution (and, for Docker, no image), and checks
// the pair: Docker needs an image, local takes none.
func (o *CreateOptions) placeWith(set AgentSettings) error {
	if o.Execution == "" {
		o.Execution = set.Execution
	}
	if o.Execution == "docker" && o.Image == "" {
		o.Image = set.Image
	}
	switch o.Execution {
	case "", "local":
		if o.Image != "" {
			return fmt.Errorf("create session: an image needs execution docker")
		}
	case "docker":
		if o.Image == "" {
			return fmt.Errorf("create session: execution docker needs an image (or one in the agent's configuration)")
		}
	default:
		return fmt.Errorf("create session: execution must be local or docker, not %q", o.Execution)
	}
	return nil
}

// readyTimeout bounds how long a create waits for the container backend to
// say whether a Docker session can run.
const readyTimeout = 5 * time.Second

// checkExecution refuses a Docker session that could not run: no backend,
// no engine answering, no image (which Atelier never pulls).
func (e *Engine) checkExecution(o CreateOptions) error {
	if o.Execution != "docker" {
		return nil
	}
	// Not under the engine's lock: a ping may take readyTimeout.
	if e.opts.Containers == nil {
		return fmt.Errorf("create session: execution docker, but this engine has no container backend: %w", ErrExecutionUnavailable)
	}
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	if err := e.opts.Containers.Ready(ctx, o.Image); err != nil {
		return fmt.Errorf("create session: execution docker cannot run now (%w): start the Docker engine or make the image, or create the session with execution local: %w", err, ErrExecutionUnavailable)
	}
	return nil
}

// Create makes a new session; it starts at once with AutoStart, at StartAt
// when given, or when the operator starts it.
func (e *Engine) Create(o CreateOptions) (sessions.Session, error) {
	if e.store.ReadOnly() {
		return sessions.Session{}, e.readOnlyErr()
	}
	if err := engine.TextTooLarge("create session: the task", len(o.Instructions)); err != nil {
		return sessions.Session{}, err
	}
	if o.Agent == "" {
		o.Agent = e.opts.DefaultAgent
	}
	if o.Agent == "" {
		o.Agent = "demo"
	}
	_, set, err := e.resolveWith(o.Agent, o.Env)
	if err != nil {
		return sessions.Session{}, err
	}
	if err := o.placeWith(set); err != nil {
		return sessions.Session{}, err
	}
	if e.ownEnvs {
		// A handed-in EnvFactory makes every environment itself.
		if err := e.checkExecution(o); err != nil {
			return sessions.Session{}, err
		}
	}
	if o.Isolation == "" && o.Instance == "" {
		o.Isolation = set.Isolation
	}
	if o.Mode == "" {
		o.Mode = sessions.OneShot
	}
	if o.Mode != sessions.OneShot && o.Mode != sessions.Continuous {
		return sessions.Session{}, fmt.Errorf("create session: mode must be %s or %s, not %q", sessions.OneShot, sessions.Continuous, o.Mode)
	}
	if o.Access == "" {
		o.Access = sessions.ReadWrite
	}
	if o.Access != sessions.ReadWrite && o.Access != sessions.ReadOnly {
		return sessions.Session{}, fmt.Errorf("create session: access must be %s or %s, not %q", sessions.ReadWrite, sessions.ReadOnly, o.Access)
	}
	if o.Approval == "" {
		o.Approval = set.Approval
		if o.Approval == "" {
			o.Approval = PolicyAsk
		}
	}
	switch o.Approval {
	case PolicyAsk, PolicyAuto, PolicyReadOnly:
	default:
		return sessions.Session{}, fmt.Errorf("create session: approval must be ask, auto or read-only, not %q", o.Approval)
	}
	output, err := compileOutput(o.OutputSchema)
	if err != nil {
		return sessions.Session{}, fmt.Errorf("create session: %w", err)
	}
	if o.Title == "" {
		o.Title = titleFrom(o.Instructions)
	}
	if o.Key != "" {
		e.mu.Lock()
		for _, l := range e.live {
			if l.rec.Key == o.Key {
				rec := l.rec
				e.mu.Unlock()
				return rec, nil
			}
		}
		e.mu.Unlock()
	}
	id := sessions.NewID()
	inst, madeInst, err := e.placeInstance(o, id)
	if err != nil {
		return sessions.Session{}, err
	}
	now := e.opts.Now()
	rec := sessions.Session{Key: o.Key, Instance: inst,
		ID: id, Title: o.Title, Agent: o.Agent, Instructions: o.Instructions,
		Mode: o.Mode, Access: o.Access, Execution: o.Execution, Image: o.Image, Approval: o.Approval,
		AutoStart: o.AutoStart, StartAt: o.StartAt, Status: sessions.Created, CreatedAt: now, UpdatedAt: now,
		OutputSchema: output,
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return sessions.Session{}, ErrClosed
	}
	if e.opts.Passive {
		// No engine runs the workspace (else the command goes through its
		// host): the session is left to the next engine that opens it,
		// under the lease so that one cannot open halfway through.
		err = e.lease.while(func() error { return e.store.Create(&rec) })
	} else {
		err = e.store.Create(&rec)
	}
	if err != nil {
		if madeInst {
			if derr := e.places.discard(inst); derr != nil {
				err = fmt.Errorf("%w (and removing its instance: %w)", err, derr)
			}
			e.bus.publish(Event{Kind: EvInstance, Text: inst})
		}
		return sessions.Session{}, err
	}
	l := &live{e: e, rec: rec, log: e.store.Log(rec.ID), open: map[string]*waiter{}, grants: grantSet{},
		keys: map[string]sessions.KeyRecord{}, loaded: true, msgIdx: map[string]int{},
		answered: map[string]sessions.Interaction{}, vars: maps.Clone(o.Env), owned: !e.opts.Passive}
	e.live[rec.ID] = l
	e.wakeWatch()
	e.bus.publish(Event{Kind: EvSession, SessionID: rec.ID, Session: &rec})
	if !e.opts.Passive {
		l.armLocked()
	}
	return l.rec, nil
}

// armLocked starts a CREATED session now (auto_start) or at its start time.
func (l *live) armLocked() {
	e := l.e
	if l.rec.Status != sessions.Created {
		return
	}
	if l.rec.StartAt != nil {
		id := l.rec.ID
		l.startTimer = time.AfterFunc(time.Until(*l.rec.StartAt), func() {
			if err := e.As("").Start(id); err != nil && !errors.Is(err, ErrClosed) {
				e.noticeSession(id, "the scheduled start failed: "+err.Error())
			}
		})
		return
	}
	if l.rec.AutoStart {
		if err := l.startLocked(); err != nil {
			e.bus.publish(Event{Kind: EvNotice, SessionID: l.rec.ID, Text: "auto start failed: " + err.Error()})
		}
	}
}

func (l *live) startLocked() error {
	if l.startTimer != nil {
		l.startTimer.Stop()
		l.startTimer = nil
	}
	if err := l.ensureMessages(); err != nil {
		return err
	}
	n := len(l.msgs)
	if n > 0 || strings.TrimSpace(l.rec.Instructions) == "" {
		// A fork goes on from its history; a session created without a
		// task (a workflow's) starts with its first queued prompt.
		for i, c := range l.queue {
			if c.Kind == sessions.CtlPrompt || c.Kind == sessions.CtlSteer {
				l.queue = append(l.queue[:i], l.queue[i+1:]...)
				return l.takeInputLocked(c)
			}
		}
	}
	if n > 0 {
		if l.msgs[n-1].Role == sessions.User {
			return l.startTurnLocked(nil)
		}
		return l.startTurnLocked(&turnInput{text: "Continue."})
	}
	task := l.rec.Instructions
	if strings.TrimSpace(task) == "" {
		task = l.rec.Title
	}
	return l.startTurnLocked(&turnInput{text: task, output: l.rec.OutputSchema})
}

// checkLocked refuses an action the session's status does not allow.
func (l *live) checkLocked(a Action) error {
	if l.readOnly {
		return &TransitionError{Session: l.rec.ID, Status: l.rec.Status, Action: string(a), Why: "its record is unreadable; the session is read-only"}
	}
	if !Allowed(l.rec.Status, a) {
		return &TransitionError{Session: l.rec.ID, Status: l.rec.Status, Action: string(a)}
	}
	return nil
}

func titleFrom(task string) string {
	t := strings.TrimSpace(task)
	if i := strings.IndexByte(t, '\n'); i >= 0 {
		t = t[:i]
	}
	if r := []rune(t); len(r) > 48 {
		t = string(r[:48]) + "…"
	}
	if t == "" {
		t = "untitled"
	}
	return t
}
