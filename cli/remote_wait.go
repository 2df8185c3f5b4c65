package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/attach"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/sessions"
)

// The --wait commands (send, start, resume) go through the workspace's
// engine host when one runs, as the short commands do (remote.go): the
// command opens the session's event stream on the host (a snapshot first,
// so no event of what it does is lost), applies its control over the API,
// then follows the stream to the session's next stop. It prints what the
// in-process follow prints (the same printer, fed the host's events) and
// exits with the same codes. With no host to reach, the command hosts the
// workspace's engine itself for its life (stayingHost).

// hostWait is a --wait command's link to the workspace's host: the
// session it acts on (t, through the host's API) and the session's event
// stream, opened before the command acts.
type hostWait struct {
	c      *client.Client
	t      *target
	stream *client.Stream
	snap   client.Snapshot // what the stream started from
	stop   context.CancelFunc
	// release lets the host go (stayingHost); nil when the client is
	// another's to release.
	release func() error
}

// snapshotWait bounds how long a --wait command waits for the first event
// of the host's stream (its snapshot).
const snapshotWait = 10 * time.Second

// openHostWait opens the workspace's engine host's event stream on the
// session an id or prefix names: the host that runs, one it starts, or
// one this process hosts for the command's life (stayingHost). The caller
// closes what it returns.
func (s *streams) openHostWait(ctx context.Context, workspace, idArg string) (*hostWait, error) {
	if ctx == nil {
		ctx = context.Background() // a command run without a context (tests)
	}
	c, release, err := s.stayingHost(ctx, workspace)
	if err != nil {
		return nil, err
	}
	h, err := s.openHostWaitOn(ctx, c, workspace, idArg)
	if err != nil {
		return nil, joinStop(err, release())
	}
	h.release = release
	return h, nil
}

// openHostWaitOn is openHostWait through a client the caller holds (and
// releases).
func (s *streams) openHostWaitOn(ctx context.Context, c *client.Client, workspace, idArg string) (*hostWait, error) {
	api := s.newRemoteAPI(ctx, c, workspace)
	id, err := api.Resolve(idArg)
	if err != nil {
		return nil, sessionErr(err)
	}
	sctx, cancel := context.WithCancel(ctx)
	stream, snap, err := openStream(ctx, sctx, c, id)
	if err != nil {
		cancel()
		return nil, err
	}
	return &hostWait{c: c, t: &target{api: api, id: id}, stream: stream, snap: snap, stop: cancel}, nil
}

// openStream opens the host's event stream (of one session, or of all
// with id "") in sctx and waits for its snapshot; ctx is the command's,
// whose interrupt ends the wait.
func openStream(ctx, sctx context.Context, c *client.Client, id string) (*client.Stream, client.Snapshot, error) {
	what := "the workspace"
	if id != "" {
		what = "session " + id
	}
	stream, err := c.Events(sctx, id, 0)
	if err != nil {
		return nil, client.Snapshot{}, sessionErr(remoteErr(err))
	}
	t := time.NewTimer(snapshotWait)
	defer t.Stop()
	select {
	case ev, ok := <-stream.C:
		if !ok || ev.Kind != client.KindSnapshot || ev.Snapshot == nil {
			return nil, client.Snapshot{}, fmt.Errorf("the engine host's event stream for %s did not begin with a snapshot", what)
		}
		return stream, *ev.Snapshot, nil
	case <-t.C:
		return nil, client.Snapshot{}, fmt.Errorf("the engine host sent no snapshot of %s within %s", what, snapshotWait)
	case <-ctx.Done():
		return nil, client.Snapshot{}, withCode(ExitNeedsYou, fmt.Errorf("interrupted before following %s", what))
	}
}

// close ends the stream and lets the host go (see stayingHost): its
// error is that of closing a host this process ran.
func (h *hostWait) close() error {
	h.stop()
	h.c.CloseIdle()
	if h.release == nil {
		return nil
	}
	return h.release()
}

// remoteControl is control with --wait through the host: do acts through
// the host's API, then the command follows the session on its stream.
func (s *streams) remoteControl(ctx context.Context, h *hostWait, w *waitFlags, do func(t *target) (string, error)) error {
	out := newPrinter(s, w.json)
	line, err := do(h.t)
	if err != nil {
		return sessionErr(err)
	}
	if line != "" {
		out.notice(h.t.id, line)
	}
	return s.remoteStay(ctx, h, w, out, followOptions{})
}

// remoteSend is send with --wait through the host.
func (s *streams) remoteSend(ctx context.Context, h *hostWait, in sendInput, w *waitFlags) error {
	t := h.t
	rc, err := in.submit(t)
	if errors.Is(err, core.ErrKeyConflict) {
		return keyConflict(err, t.id)
	}
	if err != nil {
		return sessionErr(err)
	}
	if rc.Key != nil {
		return s.repeated(t, in, *rc.Key, w, func(out *printer, atStop func(error) error) error {
			return s.remoteStay(ctx, h, w, out, followOptions{atStop: atStop})
		})
	}
	if err := startIfCreated(t); err != nil {
		return sessionErr(err)
	}
	out := newPrinter(s, w.json)
	out.notice(t.id, receipt(in.verb(), t.id, rc))
	var fo followOptions
	if in.output != nil {
		out.outputOnly = true
		fo.output = &outputWatch{prompt: rc.ID}
	}
	return s.remoteStay(ctx, h, w, out, fo)
}

// remoteStay is stay on the host's stream; fo brings what the command
// adds to the --wait flags (atStop, output).
func (s *streams) remoteStay(ctx context.Context, h *hostWait, w *waitFlags, out *printer, fo followOptions) error {
	rec, err := h.t.api.Session(h.t.id)
	if err != nil {
		return sessionErr(err)
	}
	if rec.Status == sessions.Ended {
		return endedBefore(rec, out, fo.atStop)
	}
	if rec.Status == sessions.Created && rec.StartAt == nil {
		return usageErr("session %s is CREATED and nothing starts it: `atelier sessions start %s --wait`", h.t.id, h.t.id)
	}
	open := openOf(h.snap, h.t.id)
	fo.approve, fo.timeout = w.approve, w.timeout
	return remoteFollow(ctx, h, open, fo, out, s)
}

// remoteRunner is runner over the host's API: it answers the session's
// interactions through the host. The embedded runner only reads the
// terminal (readLine); its engine is nil.
type remoteRunner struct {
	runner
	api      sessionAPI
	answered map[string]bool // interactions already handled
	watch    *outputWatch    // the structured answer awaited (--output), or nil
}

// remoteFollow is follow on the host's stream: it prints the session's
// events and answers its interactions until the session stops. The host
// runs the session; an interrupt only stops following (as for every
// --wait command) unless o.cancelOnInterrupt (run: then it cancels the
// session through the host and waits for its end, so h's stream must not
// end with ctx), and --timeout cancels the session through the host.
func remoteFollow(ctx context.Context, h *hostWait, open []sessions.Interaction, o followOptions, out *printer, s *streams) error {
	defer armInterrupts(ctx)()
	id := h.t.id
	r := &remoteRunner{runner: runner{ctx: ctx, id: id, mode: o.approve, out: out, s: s}, api: h.t.api,
		answered: map[string]bool{}, watch: o.output}
	defer out.finish()
	stopped := func(err error) error {
		if o.atStop != nil {
			return o.atStop(err)
		}
		if o.output != nil {
			return o.output.finish(out, id, err)
		}
		return err
	}
	last, err := h.t.api.Session(id)
	if err != nil {
		return sessionErr(err)
	}
	r.last = last
	for _, it := range open {
		r.answered[it.ID] = true
		if !r.answer(it) {
			return stopped(exitFor(ExitNeedsYou, r.last))
		}
	}
	var timeout <-chan time.Time
	if o.timeout > 0 {
		t := time.NewTimer(o.timeout)
		defer t.Stop()
		timeout = t.C
	}
	stopFollowing := func() error {
		return withCode(ExitNeedsYou, fmt.Errorf("stopped following session %s (%s); it goes on in the workspace's engine host", id, needs(r.last)))
	}
	c := &canceller{id: id, out: out}
	done := ctx.Done()
	for {
		select {
		case cev, ok := <-h.stream.C:
			if !ok {
				if ctx.Err() != nil {
					return stopFollowing()
				}
				return withCode(ExitFailed, streamEnded(id, h.stream.Err()))
			}
			for _, ev := range r.coreEvents(cev) {
				if ev.Kind == core.EvRemoved && ev.SessionID == id {
					return withCode(ExitFailed, fmt.Errorf("session %s was deleted", id))
				}
				code, stop := r.handle(ev)
				if stop && code == ExitNeedsYou && o.cancelOnInterrupt && ctx.Err() != nil {
					// An interrupt ended a prompt on the terminal: the
					// interrupt cancels, as it does anywhere else.
					stop = false
				}
				if !stop {
					continue
				}
				var commitErr error
				if ev.Kind == core.EvSession && ev.Session.CommitPending {
					cctx := ctx
					if o.cancelOnInterrupt {
						cctx = context.WithoutCancel(ctx) // interrupted: commitWait still bounds it
					}
					commitErr = awaitRemoteCommit(cctx, h, id, out)
				}
				return commitFailed(stopped(exitFor(code, r.last)), commitErr, r.last)
			}
		case <-done:
			if !o.cancelOnInterrupt {
				return stopFollowing()
			}
			done = nil
			cancelRemote(c, h.t.api, "interrupted: cancelling")
		case <-timeout:
			cancelRemote(c, h.t.api, fmt.Sprintf("timeout after %s: cancelling", o.timeout))
		case <-c.grace:
			if c.err != nil {
				return stopped(withCode(ExitFailed, fmt.Errorf("cancel session %s: %w", id, c.err)))
			}
			return stopped(withCode(ExitCancelled, fmt.Errorf("session %s: cancel recorded, but its turn had not ended %s later; the engine host ends it cancelled when the turn lets go", id, cancelGrace)))
		}
	}
}

// streamEnded is the error of a stream the host closed for good.
func streamEnded(id string, err error) error {
	if err != nil {
		return fmt.Errorf("the engine host ended the event stream of session %s: %w", id, sessionErr(remoteErr(err)))
	}
	return fmt.Errorf("the engine host ended the event stream of session %s", id)
}

// cancelRemote is canceller.cancel through the host's API.
func cancelRemote(c *canceller, api sessionAPI, why string) {
	if c.asked {
		return
	}
	c.asked = true
	c.out.notice(c.id, why)
	if _, err := api.Cancel(c.id); err != nil {
		c.err = err
		c.out.notice(c.id, "cancel failed: "+err.Error())
	}
	c.grace = time.After(cancelGrace)
}

// coreEvents turns an event of the host's stream into the engine's events
// the printer and the runner take: the same fields, so --json prints the
// same lines as in-process. A resync is dropped (a snapshot follows); a
// snapshot (after a resync) becomes the session's current record and its
// interactions still open that were not handled yet.
func (r *remoteRunner) coreEvents(ev client.Event) []core.Event {
	switch ev.Kind {
	case client.KindResync:
		return nil
	case client.KindSnapshot:
		if ev.Snapshot == nil {
			return nil
		}
		var evs []core.Event
		for i := range ev.Snapshot.Sessions {
			if rec := ev.Snapshot.Sessions[i]; rec.ID == r.id {
				evs = append(evs, core.Event{Seq: ev.Seq, Kind: core.EvSession, SessionID: r.id, Session: &rec})
			}
		}
		for _, it := range ev.Snapshot.Interactions {
			if it.SessionID == r.id && !r.answered[it.ID] {
				evs = append(evs, core.Event{Seq: ev.Seq, Kind: core.EvInteraction, SessionID: r.id, Interaction: &it.Interaction})
			}
		}
		return evs
	}
	out, ok := attach.Event(ev)
	if !ok {
		return nil // malformed: nothing to print or act on
	}
	return []core.Event{out}
}

// handle is runner.handle on the host: it prints an event and reports
// whether the follow is over, with its exit code.
func (r *remoteRunner) handle(ev core.Event) (int, bool) {
	if ev.SessionID != r.id {
		return 0, false
	}
	r.out.event(ev)
	switch ev.Kind {
	case core.EvSession:
		r.last = *ev.Session
		if r.watch != nil {
			r.watch.see(r.last)
		}
		code, stop := stopCode(r.last)
		if stop && r.last.Status == sessions.Waiting {
			// A WAITING session with queued input starts its next turn at
			// once: only a WAITING that lasts is a stop.
			if cur, err := r.api.Session(r.id); err == nil && cur.Status != sessions.Waiting {
				return 0, false
			}
		}
		return code, stop
	case core.EvInteraction:
		if ev.Interaction.Resolved || r.answered[ev.Interaction.ID] {
			return 0, false
		}
		r.answered[ev.Interaction.ID] = true
		if !r.answer(*ev.Interaction) {
			r.last.Status, r.last.SubState = sessions.Running, sessions.Parked
			return ExitNeedsYou, true
		}
	}
	return 0, false
}

// answer is runner.answer through the host's API; false means headless
// mode cannot answer. The host records the client ("cli") as who answered.
func (r *remoteRunner) answer(it sessions.Interaction) bool {
	return answerHeadless(r.mode, "", it, r.ask, func(a core.Answer) error { return r.api.Answer(r.id, it.ID, a) },
		func(text string) { r.out.notice(r.id, text) })
}

// ask prompts on the terminal as runner.ask does, and answers through the
// host; with no terminal the session is left waiting.
func (r *remoteRunner) ask(it sessions.Interaction) bool {
	if !r.terminal() {
		return false
	}
	a, ok := promptAnswer(r.s, r.id, it, r.readLine)
	if !ok {
		return false
	}
	return r.api.Answer(r.id, it.ID, a) == nil
}

// terminal says whether the operator can answer on the terminal, and
// readies its reader.
func (r *remoteRunner) terminal() bool {
	f, ok := r.s.in.(*os.File)
	if !ok || !term.IsTerminal(f.Fd()) {
		return false
	}
	if r.in == nil {
		r.in = bufio.NewReader(f)
	}
	return true
}

// awaitRemoteCommit is awaitCommit on the host's stream: the host writes
// the history commit of the turn that just stopped; the command waits for
// it (bounded by commitWait) so it exits once the turn is in the history,
// and returns the commit's failure.
func awaitRemoteCommit(ctx context.Context, h *hostWait, id string, out *printer) error {
	t := time.NewTimer(commitWait)
	defer t.Stop()
	for {
		select {
		case ev, ok := <-h.stream.C:
			if !ok {
				return nil
			}
			if ev.Kind == client.KindSnapshot && ev.Snapshot != nil {
				for _, rec := range ev.Snapshot.Sessions {
					if rec.ID == id && !rec.CommitPending {
						return nil // made while the stream resynced
					}
				}
			}
			if ev.SessionID != id || (ev.Kind != core.EvCommit && ev.Kind != core.EvNotice) {
				continue
			}
			out.event(core.Event{Seq: ev.Seq, Kind: ev.Kind, SessionID: id, Text: ev.Text, Turn: ev.Turn})
			if ev.Kind == core.EvCommit {
				return nil
			}
			if strings.HasPrefix(ev.Text, commitFailedNotice) {
				return errors.New(ev.Text)
			}
		case <-ctx.Done():
			out.notice(id, "interrupted: not waiting for the turn's history commit")
			return nil
		case <-t.C:
			out.notice(id, "the turn's history commit is late; the engine host makes it when it can")
			return nil
		}
	}
}
