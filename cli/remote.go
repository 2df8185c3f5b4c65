package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/host"
	"github.com/atelier-studio/atelier/sessions"
)

// The short commands (controls, send and steer without --wait, answers,
// the queue, keys) act on a session through sessionAPI: the API of the
// process that hosts the workspace's engine when one runs (host.Probe says
// so), or else a passive engine of their own, as before. Which one is
// decided here, once (openShort); the commands only see the interface. A
// command that stays with a session (send, start, resume with --wait) goes
// through the host too when one runs, and follows the session on the
// host's event stream (remote_wait.go); without a host it opens an engine
// that runs the session (see control and send).

// sessionAPI is what a short command does to the workspace's sessions.
// Errors are the engine's: a host's problems come back as errors that
// match the engine's sentinels (see remoteErr), so sessionErr gives them
// the exit codes the in-process engine's errors get.
type sessionAPI interface {
	// Resolve names the session an id or unique prefix names.
	Resolve(idOrPrefix string) (string, error)
	Session(id string) (sessions.Session, error)
	Start(id string) error
	Pause(id string) (core.Receipt, error)
	Resume(id string) (core.Receipt, error)
	Stop(id string) (core.Receipt, error)
	Cancel(id string) (core.Receipt, error)
	CloseSession(id string) (core.Receipt, error)
	Nudge(id string) (core.Receipt, error)
	Archive(id string, archive bool) error
	Send(id, text string, key ...string) (core.Receipt, error)
	Steer(id, text string, key ...string) (core.Receipt, error)
	Queue(id string) ([]sessions.Control, error)
	RemoveQueued(id, item string) error
	MoveQueued(id, item string, to int) error
	Keys(id string) ([]sessions.KeyRecord, error)
	KeyResult(id, key string) (sessions.KeyRecord, bool, error)
	ForgetKey(id, key string) error
	OpenInteractions() ([]core.OpenInteraction, error)
	Answer(sessionID, interactionID string, a core.Answer) error
	// Remote says whether a host applies what is sent (the API), not
	// this process's engine.
	Remote() bool
}

// localAPI is a session API over an engine this process opened.
type localAPI struct{ *core.Engine }

func (l localAPI) Resolve(idOrPrefix string) (string, error) { return l.Store().Resolve(idOrPrefix) }

func (l localAPI) OpenInteractions() ([]core.OpenInteraction, error) {
	return l.Snapshot().Interactions, nil
}

func (localAPI) Remote() bool { return false }

// hostProbeTimeout bounds the health check that confirms a host answers
// before a short command sends it anything.
const hostProbeTimeout = 3 * time.Second

// openShort opens what a short command acts through: the API of the host
// of the workspace when one runs and answers, or else a passive engine.
// eng is the engine opened (nil with a host); done releases either, as
// closeEngine does: defer done(&err).
func (s *streams) openShort(ctx context.Context, workspace string) (api sessionAPI, eng *core.Engine, done func(*error), err error) {
	if ctx == nil {
		ctx = context.Background() // a command run without a context (tests)
	}
	if c := s.hostClient(ctx, workspace); c != nil {
		return &remoteAPI{ctx: ctx, c: c}, nil, func(*error) { c.CloseIdle() }, nil
	}
	e, _, err := s.engine(workspace, true)
	if err != nil {
		return nil, nil, nil, err
	}
	return localAPI{e}, e, func(err *error) { closeEngine(e, err) }, nil
}

// hostClient returns a client of the workspace's host when one runs and
// answers its health check; nil otherwise (no host, a workspace without
// state yet, or a host on its way out: the command then opens its own
// passive engine, as it did before hosts existed). The configuration is
// still read, so its notices and errors are what they were.
func (s *streams) hostClient(ctx context.Context, workspace string) *client.Client {
	ws, err := workspaceDir(workspace)
	if err != nil {
		return nil
	}
	st, err := host.Probe(ws)
	if err != nil || !st.Running || st.Socket == "" {
		return nil
	}
	label := s.client
	if label == "" {
		label = "cli"
	}
	c, err := client.New(st.Socket, client.Options{Label: label})
	if err != nil {
		return nil
	}
	hctx, cancel := context.WithTimeout(ctx, hostProbeTimeout)
	defer cancel()
	h, err := c.Health(hctx)
	if err != nil {
		c.CloseIdle()
		return nil
	}
	if _, err := s.loadConfig(ws, s.err); err != nil {
		c.CloseIdle()
		return nil // the passive engine reports it
	}
	hostBuild.say(s.err, host.BuildNotice(h.Version, version()))
	return c
}

// buildNotice says, once, that the host runs another build than this
// client (host.BuildNotice): a command that reaches the host several
// times (a --wait that reconnects) prints it one time, on standard error,
// so standard output stays what scripts parse.
type buildNotice struct{ once sync.Once }

// say prints notice unless it is empty or a notice was printed before.
func (n *buildNotice) say(w io.Writer, notice string) {
	if notice == "" {
		return
	}
	n.once.Do(func() { fmt.Fprintln(w, "atelier: notice:", notice) })
}

// hostBuild is this process's one build notice.
var hostBuild = &buildNotice{}

// shortTarget opens a short command's session API and resolves a session
// id or unique prefix. The caller releases it: defer done(&err).
func (s *streams) shortTarget(ctx context.Context, workspace, idOrPrefix string) (t *target, done func(*error), err error) {
	api, eng, done, err := s.openShort(ctx, workspace)
	if err != nil {
		return nil, nil, err
	}
	id, err := api.Resolve(idOrPrefix)
	if err != nil {
		err = sessionErr(err)
		done(&err)
		return nil, nil, err
	}
	return &target{eng: eng, api: api, id: id}, done, nil
}

// act applies one short control to a session and prints its line: through
// the host when one runs, else through a passive engine.
func (s *streams) act(ctx context.Context, workspace, idArg string, do func(t *target) (string, error)) (err error) {
	t, done, err := s.shortTarget(ctx, workspace, idArg)
	if err != nil {
		return err
	}
	defer done(&err)
	line, err := do(t)
	if err != nil {
		return sessionErr(err)
	}
	fmt.Fprintln(s.out, line)
	return nil
}

// controlOrWait is a control that, given --wait, stays with the session
// (control: on the host's stream, or in an engine of its own), and
// otherwise is a short one (act).
func (s *streams) controlOrWait(ctx context.Context, workspace, idArg string, w *waitFlags,
	do func(t *target) (string, error)) error {
	if w != nil && w.wait {
		return s.control(ctx, workspace, idArg, w, do)
	}
	return s.act(ctx, workspace, idArg, do)
}

// remoteAPI is a session API over the host's HTTP API.
type remoteAPI struct {
	ctx context.Context
	c   *client.Client
}

func (*remoteAPI) Remote() bool { return true }

// Resolve matches an id or prefix against the host's sessions, archived
// ones too, as the store does against its folders.
func (r *remoteAPI) Resolve(prefix string) (string, error) {
	if prefix == "" || strings.ContainsAny(prefix, `/\`) || prefix == "." || prefix == ".." {
		return "", fmt.Errorf("session %q: %w", prefix, sessions.ErrNotFound)
	}
	var found []string
	for _, archived := range []bool{false, true} {
		list, err := r.c.Sessions(r.ctx, archived)
		if err != nil {
			return "", remoteErr(err)
		}
		for _, rec := range list {
			if rec.ID == prefix {
				return rec.ID, nil
			}
			if strings.HasPrefix(rec.ID, prefix) {
				found = append(found, rec.ID)
			}
		}
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("session %q: %w", prefix, sessions.ErrNotFound)
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("session %q matches %d sessions: %w", prefix, len(found), sessions.ErrAmbiguous)
}

func (r *remoteAPI) Session(id string) (sessions.Session, error) {
	rec, err := r.c.Session(r.ctx, id)
	return rec, remoteErr(err)
}

func (r *remoteAPI) Start(id string) error {
	_, err := r.c.Start(r.ctx, id)
	return remoteErr(err)
}

func (r *remoteAPI) control(id, action string) (core.Receipt, error) {
	rc, err := r.c.Control(r.ctx, id, action)
	return coreReceipt(rc), remoteErr(err)
}

func (r *remoteAPI) Pause(id string) (core.Receipt, error)        { return r.control(id, "pause") }
func (r *remoteAPI) Resume(id string) (core.Receipt, error)       { return r.control(id, "resume") }
func (r *remoteAPI) Stop(id string) (core.Receipt, error)         { return r.control(id, "stop") }
func (r *remoteAPI) Cancel(id string) (core.Receipt, error)       { return r.control(id, "cancel") }
func (r *remoteAPI) CloseSession(id string) (core.Receipt, error) { return r.control(id, "close") }
func (r *remoteAPI) Nudge(id string) (core.Receipt, error)        { return r.control(id, "nudge") }

func (r *remoteAPI) Archive(id string, archive bool) error {
	action := "archive"
	if !archive {
		action = "unarchive"
	}
	_, err := r.control(id, action)
	return err
}

func (r *remoteAPI) Send(id, text string, key ...string) (core.Receipt, error) {
	rc, err := r.c.Send(r.ctx, id, text, firstKey(key))
	return coreReceipt(rc), remoteErr(err)
}

func (r *remoteAPI) Steer(id, text string, key ...string) (core.Receipt, error) {
	rc, err := r.c.Steer(r.ctx, id, text, firstKey(key))
	return coreReceipt(rc), remoteErr(err)
}

func (r *remoteAPI) Queue(id string) ([]sessions.Control, error) {
	q, err := r.c.Queue(r.ctx, id)
	return q, remoteErr(err)
}

func (r *remoteAPI) RemoveQueued(id, item string) error {
	return remoteErr(r.c.RemoveQueued(r.ctx, id, item))
}

func (r *remoteAPI) MoveQueued(id, item string, to int) error {
	return remoteErr(r.c.MoveQueued(r.ctx, id, item, to))
}

func (r *remoteAPI) Keys(id string) ([]sessions.KeyRecord, error) {
	ks, err := r.c.Keys(r.ctx, id)
	return ks, remoteErr(err)
}

func (r *remoteAPI) KeyResult(id, key string) (sessions.KeyRecord, bool, error) {
	ks, err := r.Keys(id)
	if err != nil {
		return sessions.KeyRecord{}, false, err
	}
	for _, k := range ks {
		if k.Key == key {
			return k, true, nil
		}
	}
	return sessions.KeyRecord{}, false, nil
}

func (r *remoteAPI) ForgetKey(id, key string) error {
	return remoteErr(r.c.ForgetKey(r.ctx, id, key))
}

func (r *remoteAPI) OpenInteractions() ([]core.OpenInteraction, error) {
	list, err := r.c.Interactions(r.ctx, "")
	if err != nil {
		return nil, remoteErr(err)
	}
	out := make([]core.OpenInteraction, 0, len(list))
	for _, it := range list {
		out = append(out, core.OpenInteraction{SessionID: it.SessionID, Interaction: it.Interaction})
	}
	return out, nil
}

// Answer answers an interaction; the host records the client's label as
// who answered.
func (r *remoteAPI) Answer(sessionID, interactionID string, a core.Answer) error {
	return remoteErr(r.c.Respond(r.ctx, sessionID, interactionID,
		client.Response{Decision: a.Decision, Message: a.Message, Text: a.Text}))
}

func firstKey(keys []string) string {
	if len(keys) == 0 {
		return ""
	}
	return keys[0]
}

func coreReceipt(rc client.Receipt) core.Receipt {
	return core.Receipt{ID: rc.ID, When: rc.When, Key: rc.Key}
}

// Errors a host reports that the engine has no sentinel for; sessionErr
// gives them the caller's exit code (2), as it does a *core.TransitionError
// (which a host reports as transition_refused) and a malformed request.
var (
	errTransitionRefused = errors.New("transition refused")
	errBadRequest        = errors.New("bad request")
	errKeyNotUncertain   = errors.New("key not uncertain")
)

// problemSentinels are the engine's errors the host's problem codes stand
// for.
var problemSentinels = map[string]error{
	client.CodeUnknownSession:     core.ErrUnknownSession,
	client.CodeAmbiguousSession:   sessions.ErrAmbiguous,
	client.CodeUnknownAgent:       core.ErrUnknownAgent,
	client.CodeUnknownInteraction: core.ErrUnknownInteraction,
	client.CodeAlreadyResolved:    core.ErrResolved,
	client.CodeNotQueued:          core.ErrNotQueued,
	client.CodeUnknownKey:         core.ErrUnknownKey,
	client.CodeKeyConflict:        core.ErrKeyConflict,
	client.CodeKeyNotUncertain:    errKeyNotUncertain,
	client.CodeTransitionRefused:  errTransitionRefused,
	client.CodeReadOnlyState:      core.ErrReadOnlyState,
	client.CodeReadOnlySession:    core.ErrReadOnlySession,
	client.CodeEngineClosed:       core.ErrClosed,
	client.CodeBadRequest:         errBadRequest,
}

// remoteError is a problem the host reported, as the engine's error: its
// text is the engine's message (the problem's detail) and it matches the
// engine's sentinel for its code.
type remoteError struct {
	msg  string
	kind error // nil: an error the engine does not type
}

func (e *remoteError) Error() string { return e.msg }
func (e *remoteError) Unwrap() error { return e.kind }

// remoteErr turns what a client call returned into the engine's error; a
// transport failure (the host went away) stays as it is, and exits 1.
func remoteErr(err error) error {
	var p *client.Problem
	if err == nil || !errors.As(err, &p) {
		return err
	}
	msg := p.Detail
	if msg == "" {
		msg = p.Error()
	}
	return &remoteError{msg: msg, kind: problemSentinels[p.Code]}
}
