package core

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/atelier-studio/atelier/files"
	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/instances"
	"github.com/atelier-studio/atelier/internal/redact"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/sessions/history"
	"github.com/atelier-studio/atelier/terminal"
)

// Resolver turns an agent name into a harness and the agent's settings.
type Resolver interface {
	Resolve(agent string) (harness.Harness, AgentSettings, error)
}

// AgentSettings are what the engine needs to know of a configured agent.
type AgentSettings struct {
	Instructions string   // the agent's system prompt
	Tools        []string // built-in tools offered to a Model; nil means all
	Approval     string   // default approval policy: ask, auto, read-only
	Model        string
	MaxSteps     int // steps per turn before WAITING stop_limit; 0 means 50
	// Rules are the agent's approval rules: for a tool call (the tool and
	// its command or path) the first matching rule's action (allow, ask,
	// deny); ok is false when no rule matches and the policy decides.
	Rules func(tool, subject string) (action string, ok bool)
	// Env is the agent's configured environment (KEY=VALUE): its commands
	// get it on top of the base environment, and nothing else of ours.
	Env []string
	// Execution and Image are where the agent's sessions run by default
	// ("local", or "docker" in Image): a create that names neither gets
	// them, whichever client sent it.
	Execution string
	Image     string
	// Isolation is where the agent's sessions work by default (in-place,
	// worktree, copy): a create that names neither an isolation nor an
	// instance gets it, whichever client sent it ("" is in place).
	Isolation string
}

// Options configure an Engine. Zero values take the defaults.
type Options struct {
	// Workers is how many turns run at once (default: CPUs, at least 2).
	Workers int
	// Agents resolves agent names; nil knows only "demo".
	Agents Resolver
	// WorkspaceRule, when set, is asked before the approval policy (after
	// the agent's own rules) whether the operator always allows a call of
	// tool on subject (its command line, or its workspace path) in this
	// workspace; why names the rule, said as the reason it ran unasked.
	WorkspaceRule func(tool, subject string) (why string, ok bool)
	// DefaultAgent is the agent of a create that names none (the
	// configured default_agent); empty means "demo".
	DefaultAgent string
	// Files is the workspace's file access (confinement, attribution);
	// nil opens one.
	Files *files.Workspace
	// Leases are the workspace's readers-writer leases; nil makes them.
	Leases *files.Leases
	// Envs makes sessions' execution environments; nil makes local ones,
	// and containers through Containers.
	Envs EnvFactory
	// Containers runs the sessions whose execution is "docker" (the
	// composition root hands in terminal/docker's backend); nil refuses
	// them, and skips the start-up cleanup of containers left behind.
	Containers terminal.Containers
	// History records a commit per turn; nil opens the workspace's
	// history, unless NoHistory.
	History        *history.History
	NoHistory      bool
	HistoryOptions history.Options
	// StuckAfter is how long a running session may make no progress (no
	// tokens, no tool output) before the watchdog reports it stuck; zero
	// turns the time check off.
	StuckAfter time.Duration
	// CleanupContainers removes, at open, the containers this workspace's
	// dead sessions left behind (the studio and `run` set it).
	CleanupContainers bool
	// SubscriberBuffer bounds each subscriber's undelivered events.
	SubscriberBuffer int
	// Now is the clock; nil uses time.Now.
	Now func() time.Time
	// Client labels the controls this engine's own methods send ("studio",
	// "cli"); API clients are labelled per request (Engine.As).
	Client string
	// Passive opens the workspace without running anything: the engine
	// reads the store as it was at open, starts no turns and resumes
	// nothing. It writes only while no engine runs the workspace (it then
	// holds the lease for the write), and refuses with a *BusyError while
	// one does: the writes go through that engine's host.
	Passive bool
	// Redactor replaces secret values (the configured keys, variables
	// whose names say secret) in what the engine records and publishes:
	// the session logs, streamed deltas, command results, the run log.
	// Nil redacts nothing.
	Redactor *redact.Redactor
	// Instances configure the workspace's instances (instances.go).
	Instances InstanceOptions
}

// Engine runs the sessions of one workspace.
type Engine struct {
	store  *sessions.Store
	opts   Options
	slots  chan struct{}
	ctx    context.Context
	cancel context.CancelCauseFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	live   map[string]*live
	bus    bus
	closed bool
	// owner names this engine in the lease and in the controls it records.
	owner string
	// lease is the workspace's lease (lease.go), held while a running
	// engine is open; a passive engine holds it only for a write.
	lease engineLease

	// commits makes the history commits in order (commit.go).
	commits commitLoop

	divergence []string
	ownFiles   bool      // Close closes opts.Files
	ownEnvs    bool      // the environments are envFor's: a create checks a Docker session can run
	terms      terminals // the terminals the host owns (terminals.go)
	// places are the workspace folder and its instances (places.go).
	places *places
	// hist is the workspace's history and its instances' chains
	// (insthistory.go).
	hist *histories
	// watchWake wakes the watch loop at once when a session becomes live
	// here or starts a turn.
	watchWake chan struct{}
	// marks are the workspace's change marks (marks.go), kept by a
	// watcher of a running engine; marksErr is its failure to close.
	marks    changeMarks
	marksErr error
}

// Open opens the engine on a workspace: it reads every session, repairs what
// a crash left (torn lines, dangling tool calls), and, unless passive,
// resumes the sessions that were running and arms start times.
func Open(workspace string, opts Options) (*Engine, error) {
	store, err := sessions.Open(workspace)
	if err != nil {
		return nil, err
	}
	store.SetRedactor(opts.Redactor)
	if opts.Workers <= 0 {
		opts.Workers = max(runtime.NumCPU(), 2)
	}
	if opts.Agents == nil {
		opts.Agents = DemoResolver{}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if store.ReadOnly() {
		// A foreign, newer or unwritable state: shown, nothing in it run.
		opts.Passive = true
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	e := &Engine{
		store: store, opts: opts, ctx: ctx, cancel: cancel, owner: sessions.NewID(),
		slots: make(chan struct{}, opts.Workers),
		live:  map[string]*live{},
	}
	e.commits = commitLoop{wg: &e.wg, run: e.runCommit}
	e.bus.subs = map[*Subscription]struct{}{}
	e.bus.red = opts.Redactor
	e.watchWake = make(chan struct{}, 1)
	// Sequence numbers start at the clock, not at 1, so that they do not
	// repeat across hosts: a client that resumes its stream from a number
	// an earlier host gave finds it unknown here and takes a new snapshot,
	// instead of being handed this host's events under old numbers.
	e.bus.seq = uint64(time.Now().UnixMicro())
	e.lease = engineLease{ws: store.Workspace(), dir: filepath.Dir(store.Dir("")), owner: e.owner, now: opts.Now,
		warn: func(err error) { e.bus.publish(Event{Kind: EvNotice, Text: err.Error()}) }}
	if store.ReadOnly() {
		e.lease.readOnly = e.readOnlyErr()
	}
	if !opts.Passive {
		// One engine runs a workspace: a second waits for the first to let
		// go (a hand-over), then refuses.
		if err := e.lease.take(leaseWait); err != nil {
			cancel(err)
			return nil, err
		}
	}
	if err := e.openDeps(); err != nil {
		e.lease.drop()
		cancel(err)
		return nil, err
	}
	// Before anything reads or writes the workspace: an apply a crash
	// interrupted is finished (or rolled back) now.
	e.places = newPlaces(&place{root: store.Workspace(), files: e.opts.Files, leases: e.opts.Leases},
		store.Trust().ID, opts.Instances, instances.Hooks{
			// An apply takes the workspace's write lease, so no turn writes
			// the workspace while an apply does.
			Lease:  func([]string) (func(), error) { return e.opts.Leases.Write(e.ctx, "apply") },
			Commit: e.hist.recordApply,
		}, noInstances(opts.Passive, store.Trust().ID))
	e.places.openIfMade()
	entries, err := store.List()
	if err != nil {
		e.lease.drop()
		cancel(err)
		return nil, err
	}
	for _, en := range entries {
		l := e.load(en)
		e.live[l.rec.ID] = l
	}
	e.mu.Lock()
	if !opts.Passive {
		for _, l := range e.sortedLocked() {
			l.adoptLocked()
		}
	}
	e.mu.Unlock()
	if !opts.Passive {
		_, logSub := e.Subscribe()
		e.startMarks()
		e.wg.Add(3)
		go e.watch()
		go e.startupChecks()
		go e.runLog(logSub)
	}
	return e, nil
}

// Resolve turns a session id, or a unique prefix of one, into the full id.
func (e *Engine) Resolve(idOrPrefix string) (string, error) { return e.store.Resolve(idOrPrefix) }

// Workspace returns the workspace path.
func (e *Engine) Workspace() string { return e.store.Workspace() }

// Redact replaces the secret values the engine knows (Options.Redactor)
// in s: for text its host sends elsewhere, a notification's.
func (e *Engine) Redact(s string) string { return e.opts.Redactor.Redact(s) }

// Close stops every turn at a safe point, leaving running sessions
// resumable by the next engine on the workspace, and waits for the workers.
func (e *Engine) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	for _, l := range e.live {
		if l.startTimer != nil {
			l.startTimer.Stop()
		}
		// Ranked: a turn already being cancelled or stopped keeps that.
		l.interruptLocked(intentShutdown)
	}
	for s := range e.bus.subs {
		s.close()
	}
	e.bus.subs = map[*Subscription]struct{}{}
	e.mu.Unlock()
	e.cancel(errShutdown)
	e.wg.Wait()
	errs := []error{e.terms.close(), e.marksErr}
	e.mu.Lock()
	// Agent CLIs end their sessions' processes at once, each in its own
	// time: quitting with many sessions waits for the slowest, not the sum.
	var closers sync.WaitGroup
	var cmu sync.Mutex
	var cerrs []error
	for _, l := range e.live {
		if l.recovering {
			// A clean close is no crash: the next engine resumes the turn
			// without counting this one.
			errs = append(errs, e.store.SetRecoveries(l.rec.ID, l.recoveries-1))
		}
		errs = append(errs, l.log.Close())
		if l.rec.Status == sessions.Ended && l.agentH == nil {
			// No process of its agent ran here.
		} else if h, ok := l.agentOfLocked(); ok && l.owned {
			if c, ok := h.(harness.Closer); ok {
				closers.Add(1)
				go func(id string) {
					defer closers.Done()
					err := c.CloseSession(id)
					cmu.Lock()
					cerrs = append(cerrs, err)
					cmu.Unlock()
				}(l.rec.ID)
			}
		}
		if l.env != nil {
			errs = append(errs, l.env.Close())
			l.env = nil
		}
		l.owned = false
	}
	e.mu.Unlock()
	closers.Wait()
	// Let go only once every record is written: the next engine must find
	// what this one left, whole. Destroy lets go itself, later.
	if !e.lease.keep {
		e.lease.drop()
	}
	errs = append(errs, cerrs...)
	errs = append(errs, e.places.close())
	if e.ownFiles {
		errs = append(errs, e.opts.Files.Close())
	}
	return errors.Join(errs...)
}

// Subscribe returns, atomically, a snapshot of the workspace (with the
// transcripts of the sessions named) and a subscription that receives every
// mutation after it: nothing in between is lost, nothing before replayed.
func (e *Engine) Subscribe(transcripts ...string) (Snapshot, *Subscription) {
	e.mu.Lock()
	defer e.mu.Unlock()
	sub := newSubscription(e.opts.SubscriberBuffer)
	snap := e.snapshotLocked()
	for _, id := range transcripts {
		if l, err := e.getLocked(id); err == nil && l.ensureMessages() == nil {
			if snap.Transcripts == nil {
				snap.Transcripts = map[string][]sessions.Message{}
			}
			snap.Transcripts[l.rec.ID] = cloneMessages(l.msgs)
		}
	}
	if e.closed {
		sub.close()
		return snap, sub
	}
	e.bus.subs[sub] = struct{}{}
	sub.drop = func() {
		e.mu.Lock()
		delete(e.bus.subs, sub)
		e.mu.Unlock()
		sub.close()
	}
	return snap, sub
}

// Snapshot returns the current state without subscribing.
func (e *Engine) Snapshot() Snapshot {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.snapshotLocked()
}

func (e *Engine) snapshotLocked() Snapshot {
	snap := Snapshot{Seq: e.bus.seq, Marks: e.marks.list()}
	for _, l := range e.sortedLocked() {
		snap.Sessions = append(snap.Sessions, l.rec)
		for _, it := range l.openOrder() {
			snap.Interactions = append(snap.Interactions, OpenInteraction{SessionID: l.rec.ID, Interaction: it})
		}
	}
	return snap
}

// Session returns a copy of one session's record.
func (e *Engine) Session(id string) (sessions.Session, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	l, err := e.getLocked(id)
	if err != nil {
		return sessions.Session{}, err
	}
	return l.rec, nil
}

// Sessions returns every session's record, oldest first.
func (e *Engine) Sessions() []sessions.Session {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []sessions.Session
	for _, l := range e.sortedLocked() {
		out = append(out, l.rec)
	}
	return out
}

// Transcript returns a session's messages and the sequence number they are
// current at: apply only events with a higher Seq on top of them.
func (e *Engine) Transcript(id string) ([]sessions.Message, uint64, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	l, err := e.getLocked(id)
	if err != nil {
		return nil, 0, err
	}
	if err := l.ensureMessages(); err != nil {
		return nil, 0, err
	}
	out := make([]sessions.Message, len(l.msgs))
	for i, m := range l.msgs {
		out[i] = m.Clone()
	}
	return out, e.bus.seq, nil
}

// Repairs returns what opening a session repaired.
func (e *Engine) Repairs(id string) []sessions.Repair {
	e.mu.Lock()
	defer e.mu.Unlock()
	if l, ok := e.live[id]; ok {
		return append([]sessions.Repair(nil), l.repairs...)
	}
	return nil
}

func (e *Engine) getLocked(id string) (*live, error) {
	if l, ok := e.live[id]; ok {
		return l, nil
	}
	full, err := e.store.Resolve(id)
	if err == nil {
		if l, ok := e.live[full]; ok {
			return l, nil
		}
	}
	if errors.Is(err, sessions.ErrAmbiguous) {
		return nil, err
	}
	return nil, fmt.Errorf("session %q: %w", id, ErrUnknownSession)
}

// saveLocked persists a session's record and publishes it: durable before
// visible. A failed write fails the session (storeFailedLocked); callers
// that must stop on it look at l.storeErr.
func (l *live) saveLocked() {
	e := l.e
	if l.broken {
		return
	}
	if l.deferSave {
		l.saveDirty = true
		return
	}
	l.saveDirty = false
	l.rec.UpdatedAt = e.opts.Now()
	if err := e.store.Save(&l.rec); err != nil {
		l.storeFailedLocked(err)
		return
	}
	l.recoveredLocked()
	rec := l.rec
	e.bus.publish(Event{Kind: EvSession, SessionID: rec.ID, Session: &rec})
}

// recoveredLocked forgets the crashed resumes of a session whose resumed
// turn reached a boundary (it ended, yielded, or parked): resuming it no
// longer crashes the engine.
func (l *live) recoveredLocked() {
	e := l.e
	if !l.recovering || (l.rec.Status == sessions.Running && l.rec.SubState != sessions.Parked) {
		return
	}
	if err := e.store.SetRecoveries(l.rec.ID, 0); err == nil {
		l.recovering, l.recoveries = false, 0
	}
}

// TranscriptTail returns a session's last n messages, the sequence number
// they are current at, and whether older ones exist. Unlike Transcript it
// does not load the whole transcript of a session the engine is not
// running, so a huge transcript opens at once.
func (e *Engine) TranscriptTail(id string, n int) ([]sessions.Message, uint64, bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	l, err := e.getLocked(id)
	if err != nil {
		return nil, 0, false, err
	}
	if l.loaded {
		from := max(len(l.msgs)-n, 0)
		return cloneMessages(l.msgs[from:]), e.bus.seq, from > 0, nil
	}
	msgs, more, err := l.log.MessagesTail(n)
	return msgs, e.bus.seq, more, err
}

// StateNotice says why the workspace's state is read-only, and what the
// operator can do ("" when it is not): a foreign state can be adopted with
// `atelier trust --state` or moved aside.
func (e *Engine) StateNotice() string {
	if !e.store.ReadOnly() {
		return ""
	}
	why := e.store.ReadOnlyReason()
	if e.store.Foreign() {
		return why + "; nothing in it runs: see what it holds and adopt it with `atelier trust --state`, or move .state/ aside"
	}
	return why + "; nothing in it runs"
}
