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
	"github.com/atelier-studio/atelier/attach"
	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/host"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/terminal"
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
	attach.SessionControls
	Queue(id string) ([]sessions.Control, error)
	Keys(id string) ([]sessions.KeyRecord, error)
	KeyResult(id, key string) (sessions.KeyRecord, bool, error)
	ForgetKey(id, key string) error
	OpenInteractions() ([]core.OpenInteraction, error)
	Delete(id string) error
	Revoke(id, grant string) error
	SetModel(id, model string) (core.Receipt, error)
	SetApproval(id, policy string) (core.Receipt, error)
	Fork(id, upTo, title string) (sessions.Session, error)
	Context(id string) (core.AgentContext, error)
	// Sessions lists the workspace's sessions, the archived ones too
	// with all.
	Sessions(all bool) ([]sessions.Session, error)
	// Actions is the workspace's Action required set.
	Actions() ([]core.ActionItem, error)
	// Messages is a session's whole transcript, oldest first.
	Messages(id string) ([]sessions.Message, error)
	Repairs(id string) ([]sessions.Repair, error)
	Grants(id string) ([]string, error)
	// Exec runs a command in the session's execution environment (a
	// Docker session's own container), handing out its output as it
	// arrives; a key's replay hands out nothing (the result holds it).
	Exec(id string, cmd core.ExecCommand, out core.ExecOutput) (core.ExecResult, error)
	// Remote says whether a host applies what is sent (the API), not
	// this process's engine.
	Remote() bool
}

// localAPI is a session API over an engine this process opened: its
// reads, and its controls as its own client (Caller).
type localAPI struct {
	*core.Engine
	core.Caller
	ctx context.Context // what Exec runs under
}

// newLocalAPI is the session API of e, acting as e's own client.
func newLocalAPI(ctx context.Context, e *core.Engine) localAPI {
	if ctx == nil {
		ctx = context.Background() // a command run without a context (tests)
	}
	return localAPI{Engine: e, Caller: e.As(""), ctx: ctx}
}

func (l localAPI) Resolve(idOrPrefix string) (string, error) { return l.Engine.Resolve(idOrPrefix) }

func (l localAPI) OpenInteractions() ([]core.OpenInteraction, error) {
	return l.Snapshot().Interactions, nil
}

func (l localAPI) Sessions(all bool) ([]sessions.Session, error) {
	var recs []sessions.Session
	for _, r := range l.Engine.Sessions() {
		if !r.Archived || all {
			recs = append(recs, r)
		}
	}
	return recs, nil
}

func (l localAPI) Actions() ([]core.ActionItem, error) { return l.Engine.Actions(), nil }

func (l localAPI) Messages(id string) ([]sessions.Message, error) {
	msgs, _, err := l.Transcript(id)
	return msgs, err
}

func (l localAPI) Repairs(id string) ([]sessions.Repair, error) { return l.Engine.Repairs(id), nil }

func (l localAPI) Exec(id string, cmd core.ExecCommand, out core.ExecOutput) (core.ExecResult, error) {
	if out == nil {
		return l.Engine.Exec(l.ctx, id, cmd)
	}
	return l.ExecStream(l.ctx, id, cmd, out)
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
	return s.open(ctx, workspace, true)
}

// openRead opens what a command that only reads sessions reads through:
// the engine at --engine, or else this workspace's store through a
// passive engine. It starts no host (reading needs none) and creates no
// state: a workspace without a state folder gives a nil api, and nothing
// to read.
func (s *streams) openRead(ctx context.Context, workspace string) (api sessionAPI, eng *core.Engine, done func(*error), err error) {
	if s.engineURL() == "" {
		if empty, err := s.stateless(workspace); err != nil || empty {
			return nil, nil, func(*error) {}, err
		}
	}
	return s.open(ctx, workspace, false)
}

// open is the one place a command's way to the sessions is decided: the
// engine at --engine (an error when it does not answer, never a fallback
// to this machine's folder); else, for a command that acts, the
// workspace's host when one runs or can be started (hostClient); else a
// passive engine of this process.
func (s *streams) open(ctx context.Context, workspace string, acting bool) (api sessionAPI, eng *core.Engine, done func(*error), err error) {
	if ctx == nil {
		ctx = context.Background() // a command run without a context (tests)
	}
	var c *client.Client
	switch {
	case s.engineURL() != "" && !acting:
		if c, err = s.remoteEngine(ctx); err != nil {
			return nil, nil, nil, err
		}
	case acting:
		c = s.hostClient(ctx, workspace)
	}
	if c != nil {
		return s.newRemoteAPI(ctx, c, workspace), nil, func(*error) { c.CloseIdle() }, nil
	}
	e, _, err := s.engine(workspace)
	if err != nil {
		return nil, nil, nil, err
	}
	return newLocalAPI(ctx, e), e, func(err *error) { closeEngine(e, err) }, nil
}

// hostClient returns a client of the workspace's host, starting a
// detached one when none runs (so a schedule or a control takes effect
// now, not when a studio next opens); nil when there is none and none
// could be started (no binary to start, a host that failed to start or is
// on its way out): the command then opens its own engine, as it did
// before hosts existed. The configuration is still read, so its notices
// and errors are what they were.
func (s *streams) hostClient(ctx context.Context, workspace string) *client.Client {
	if s.engineURL() != "" {
		c, err := s.remoteEngine(ctx)
		if err != nil {
			s.remoteErr = err // what the command says instead of opening the store
			return nil
		}
		return c
	}
	ws, err := workspaceDir(workspace)
	if err != nil {
		return nil
	}
	st, err := host.Probe(ws)
	if err != nil {
		return nil
	}
	if !st.Running || st.Socket == "" {
		if st, err = s.startHost(ctx, ws); err != nil {
			return nil
		}
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

// startHost starts a detached host for ws with the configured idle grace
// and returns its status once it answers (or that of the host another
// process started meanwhile). A host that fails to start is said on
// standard error; the command then acts in its own process.
func (s *streams) startHost(ctx context.Context, ws string) (host.Status, error) {
	if s.hostBinary == "" {
		return host.Status{}, errNoHostBinary
	}
	cfg, err := s.loadConfig(ws, io.Discard) // its notices are printed once, after
	if err != nil {
		return host.Status{}, err // the command's own engine reports it
	}
	st, _, err := s.detachHost(ctx, ws, cfg)
	if err != nil {
		fmt.Fprintln(s.err, "atelier: notice: the workspace's engine host did not start, so this command acts in its own process:", err)
	}
	return st, err
}

// detachHost starts a detached host for ws with the configured idle grace
// and returns its status once it answers; started is false when another
// process started one meanwhile (its status is returned then).
func (s *streams) detachHost(ctx context.Context, ws string, cfg *config.Config) (st host.Status, started bool, err error) {
	st, err = startDetached(ctx, s.hostBinary, ws, &serveOptions{idleExit: cfg.Engine.IdleExit})
	var running *host.ErrRunning
	if errors.As(err, &running) {
		st, err = host.Probe(ws)
		return st, false, err
	}
	return st, err == nil, err
}

// errNoHostBinary says this process cannot start a host: it does not know
// the atelier binary (commands run in-process by tests).
var errNoHostBinary = errors.New("no atelier binary to start a host with")

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
	return resolveTarget(api, eng, done, idOrPrefix)
}

// resolveTarget resolves a session id or unique prefix through an opened
// API; when it fails, the API is released and the error given its exit
// code.
func resolveTarget(api sessionAPI, eng *core.Engine, done func(*error), idOrPrefix string) (*target, func(*error), error) {
	id, err := api.Resolve(idOrPrefix)
	if err != nil {
		err = sessionErr(err)
		done(&err)
		return nil, nil, err
	}
	return &target{eng: eng, api: api, id: id}, done, nil
}

// readTarget opens what a reading command reads through (openRead) and
// resolves a session id or unique prefix. The caller releases it: defer
// done(&err).
func (s *streams) readTarget(ctx context.Context, workspace, idOrPrefix string) (t *target, done func(*error), err error) {
	api, eng, done, err := s.openRead(ctx, workspace)
	if err != nil {
		return nil, nil, err
	}
	if api == nil { // nothing recorded in this workspace yet
		return nil, nil, sessionErr(fmt.Errorf("session %q: %w", idOrPrefix, sessions.ErrNotFound))
	}
	return resolveTarget(api, eng, done, idOrPrefix)
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
type remoteAPI struct{ attach.Controls }

// newRemoteAPI drives workspace's host through c, handing it this
// command's variables with each send (handedEnv).
func (s *streams) newRemoteAPI(ctx context.Context, c *client.Client, workspace string) *remoteAPI {
	return &remoteAPI{attach.Controls{Ctx: ctx, C: c, Env: s.handedEnv(workspace)}}
}

func (*remoteAPI) Remote() bool { return true }

func (r *remoteAPI) Sessions(all bool) ([]sessions.Session, error) {
	recs, err := r.C.Sessions(r.Ctx, false)
	if err != nil || !all {
		return recs, remoteErr(err)
	}
	archived, err := r.C.Sessions(r.Ctx, true)
	return append(recs, archived...), remoteErr(err)
}

func (r *remoteAPI) Actions() ([]core.ActionItem, error) {
	items, err := r.C.Actions(r.Ctx)
	return items, remoteErr(err)
}

func (r *remoteAPI) Messages(id string) ([]sessions.Message, error) {
	return hostTranscript(r.Ctx, r.C, id)
}

func (r *remoteAPI) Repairs(id string) ([]sessions.Repair, error) {
	reps, err := r.C.Repairs(r.Ctx, id)
	return reps, remoteErr(err)
}

// Exec runs the command on the host, streamed when out is set (a replay
// streams nothing, as in-process).
func (r *remoteAPI) Exec(id string, cmd core.ExecCommand, out core.ExecOutput) (core.ExecResult, error) {
	req := client.ExecRequest{Session: id, Argv: cmd.Argv, Shell: cmd.Shell, Key: cmd.Key}
	if cmd.Timeout > 0 {
		req.Timeout = cmd.Timeout.String()
	}
	var res client.ExecResult
	var err error
	if out == nil {
		res, err = r.C.Exec(r.Ctx, req)
	} else {
		res, err = r.C.ExecStream(r.Ctx, req, func(ch client.ExecChunk) { out(terminal.Stream(ch.Stream), ch.Text) })
	}
	if err != nil {
		return core.ExecResult{}, remoteErr(err)
	}
	var x core.ExecResult
	x.ExitCode, x.Stdout, x.Stderr = res.ExitCode, res.Stdout, res.Stderr
	x.StdoutTruncated, x.StderrTruncated = res.StdoutTruncated, res.StderrTruncated
	x.TimedOut, x.Cancelled, x.Replayed = res.TimedOut, res.Cancelled, res.Replayed
	x.Duration = time.Duration(res.DurationNS)
	return x, nil
}

// Resolve matches an id or prefix against the host's sessions, archived
// ones too, as the store does against its folders.
func (r *remoteAPI) Resolve(prefix string) (string, error) {
	if prefix == "" || strings.ContainsAny(prefix, `/\`) || prefix == "." || prefix == ".." {
		return "", fmt.Errorf("session %q: %w", prefix, sessions.ErrNotFound)
	}
	var found []string
	for _, archived := range []bool{false, true} {
		list, err := r.C.Sessions(r.Ctx, archived)
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

func (r *remoteAPI) Keys(id string) ([]sessions.KeyRecord, error) {
	ks, err := r.C.Keys(r.Ctx, id)
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
	return remoteErr(r.C.ForgetKey(r.Ctx, id, key))
}

// remoteErr turns what a client call returned into the engine's error; a
// transport failure (the host went away) stays as it is, and exits 1.
func remoteErr(err error) error { return attach.Err(err) }
