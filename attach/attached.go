package attach

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/notify"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/sessions/history"
	"github.com/atelier-studio/atelier/terminal"
)

// RemoteOptions configure Remote.
type RemoteOptions struct {
	// Workspace is the workspace's absolute path on this machine.
	Workspace string
	// Client reaches the host's API. It may be made before the host
	// answers (a unix socket's path is known before its host listens).
	Client *client.Client
	// Ensure makes sure a host answers, starting one when none runs; it
	// returns what to tell the operator ("" for nothing). Remote calls it
	// before its first stream and whenever the stream finds no host; nil
	// means the host is someone else's to keep (attach URL).
	Ensure func(ctx context.Context) (string, error)
	// History opens the workspace's history for reading, on this machine;
	// nil reads it through the host's history routes (a host on another
	// machine).
	History func() (*history.History, error)
	// Env returns the variables this client hands the host for a session
	// of agent, with each create and send (client.CreateRequest.Env); nil
	// hands nothing, and the host uses its own environment.
	Env func(agent string) map[string]string
	// CallTimeout bounds the requests that read (repairs, transcripts) and
	// create; 0 means DefaultCallTimeout. Controls end with Close (the
	// studio makes them in commands, so a slow host never blocks a frame).
	CallTimeout time.Duration
}

// DefaultCallTimeout bounds a request to the host: long enough for a
// create that waits on the store, short enough that a gone host is said.
const DefaultCallTimeout = 30 * time.Second

// Remote is an engine another process hosts, driven over its API.
type Remote struct {
	Controls
	opts   RemoteOptions
	ctx    context.Context
	cancel context.CancelFunc

	pageSize int // messages per page of Transcript (maxPage; tests make it small)

	mu      sync.Mutex
	snap    core.Snapshot
	hist    *history.History
	histErr error
	files   map[string]*RemoteFiles // by instance ("main": the workspace)
}

// NewRemote attaches to a host. Nothing is sent before Subscribe.
func NewRemote(opts RemoteOptions) *Remote {
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Remote{Controls: Controls{Ctx: ctx, C: opts.Client, Env: opts.Env}, opts: opts, ctx: ctx, cancel: cancel, pageSize: maxPage}
}

// Close ends the feed and the requests in flight; the host runs on.
func (r *Remote) Close() {
	r.cancel()
	r.opts.Client.CloseIdle()
}

func (r *Remote) Workspace() string { return r.opts.Workspace }

// Subscribe answers at once with the snapshot it has (empty before the
// first one arrived) and follows the host's stream in the background.
func (r *Remote) Subscribe() (core.Snapshot, Feed) {
	ctx, stop := context.WithCancel(r.ctx)
	f := newFeed(stop)
	go r.follow(ctx, f)
	return r.Snapshot(), f
}

func (r *Remote) Snapshot() core.Snapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.snap
}

// follow keeps f fed from the host's stream until ctx ends: it makes sure
// a host answers, follows its events, and starts over (a new snapshot)
// when the stream ends, overflows f, or finds the host gone.
//
// A lost host is said once ("reconnecting"), and the snapshot of the host
// found next once ("reattached"): a restart that hands the workspace to a
// new host shows as those two lines, the view resynced in between.
func (r *Remote) follow(ctx context.Context, f *feed) {
	defer f.end()
	pause := 100 * time.Millisecond
	lost := false
	for ctx.Err() == nil {
		if r.opts.Ensure != nil {
			note, err := r.opts.Ensure(ctx)
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				f.notice("no engine host: " + err.Error())
				wait(ctx, pause)
				pause = min(pause*2, 5*time.Second)
				continue
			}
			if note != "" {
				f.notice(note)
			}
		}
		if r.stream(ctx, f, &lost) {
			pause = 100 * time.Millisecond
		} else {
			wait(ctx, pause)
			pause = min(pause*2, 5*time.Second)
		}
	}
}

// Notices of a host lost and found again.
const (
	NoticeReconnecting = "lost the engine host: reconnecting…"
	NoticeReattached   = "reattached to the engine host: the view is resynced"
)

// stream follows one event stream from a snapshot on; it reports whether
// it got that far. lost says the host was lost since the last snapshot.
func (r *Remote) stream(ctx context.Context, f *feed, lost *bool) bool {
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s, err := r.opts.Client.Events(sctx, "", 0)
	if err != nil {
		if ctx.Err() == nil {
			f.notice("the engine host's stream: " + err.Error())
		}
		return false
	}
	got := false
	for {
		select {
		case <-ctx.Done():
			return got
		case <-s.Lost():
			if !*lost {
				*lost = true
				f.notice(NoticeReconnecting)
			}
			if r.opts.Ensure != nil {
				return got // start over: Ensure starts a host
			}
		case ev, ok := <-s.C:
			if !ok {
				if err := s.Err(); err != nil && ctx.Err() == nil {
					f.notice("the engine host ended the stream: " + err.Error())
				}
				return got
			}
			if ev.Kind == client.KindSnapshot && ev.Snapshot != nil {
				got = true
				r.mu.Lock()
				r.snap = *ev.Snapshot
				r.mu.Unlock()
				f.snapshot()
				if *lost {
					*lost = false
					f.notice(NoticeReattached)
				}
				continue
			}
			if e, ok := Event(ev); ok && !f.push(e) {
				return got // overflowed: start over from a snapshot
			}
		}
	}
}

func wait(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// call gives one request its own deadline.
func (r *Remote) call() (Controls, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(r.ctx, r.opts.CallTimeout)
	return Controls{Ctx: ctx, C: r.opts.Client, Env: r.opts.Env}, cancel
}

// Repairs asks the host; a host that cannot say reports nothing (the
// studio shows repairs as a courtesy, `sessions show` says them too).
func (r *Remote) Repairs(id string) []sessions.Repair {
	c, cancel := r.call()
	defer cancel()
	rs, err := c.C.Repairs(c.Ctx, id)
	if err != nil {
		return nil
	}
	return rs
}

// StateNotice is "": a host with a foreign or unwritable state says so in
// its own notices.
func (r *Remote) StateNotice() string { return "" }

// RunLogPath is the host's run log, in the workspace's state.
func (r *Remote) RunLogPath() string {
	return filepath.Join(r.opts.Workspace, sessions.StateDir, core.RunLogFile)
}

// Create asks the host for a new session.
func (r *Remote) Create(o core.CreateOptions) (sessions.Session, error) {
	c, cancel := r.call()
	defer cancel()
	env := o.Env
	if env == nil && r.opts.Env != nil {
		env = r.opts.Env(o.Agent)
	}
	req := client.CreateRequest{
		Agent: o.Agent, Title: o.Title, Instructions: o.Instructions, Mode: string(o.Mode), Access: string(o.Access),
		Execution: o.Execution, Image: o.Image, Approval: o.Approval, AutoStart: o.AutoStart, StartAt: o.StartAt, Key: o.Key,
		Env: env, Isolation: o.Isolation, Instance: o.Instance}
	// The studio's first action is often a create, made while the host it
	// started in the background still opens: it waits for the host to
	// listen rather than fail (a request nothing received is safe to make
	// again).
	var rec sessions.Session
	err := whenListening(c.Ctx, func() (err error) {
		rec, err = c.C.Create(c.Ctx, req)
		return err
	})
	return rec, Err(err)
}

// Transcript reads a whole transcript, page by page from the newest; its
// seq is the first page's, so events after it (applied again where they
// repeat a page's content) bring it up to date.
func (r *Remote) Transcript(id string) ([]sessions.Message, uint64, error) {
	c, cancel := r.call()
	defer cancel()
	var pages [][]sessions.Message
	var seq uint64
	before, n := "", 0
	for {
		p, err := c.C.Messages(c.Ctx, id, r.pageSize, before)
		if err != nil {
			return nil, 0, Err(err)
		}
		if before == "" {
			seq = p.Seq
		}
		pages = append(pages, p.Messages)
		n += len(p.Messages)
		if !p.More || len(p.Messages) == 0 {
			break
		}
		before = p.Messages[0].ID
	}
	out := make([]sessions.Message, 0, n)
	for i := len(pages) - 1; i >= 0; i-- {
		out = append(out, pages[i]...)
	}
	return out, seq, nil
}

// maxPage is the largest page of messages the API serves.
const maxPage = 1000

func (r *Remote) TranscriptTail(id string, n int) ([]sessions.Message, uint64, bool, error) {
	c, cancel := r.call()
	defer cancel()
	p, err := c.C.Messages(c.Ctx, id, min(max(n, 1), maxPage), "")
	if err != nil {
		return nil, 0, false, Err(err)
	}
	return p.Messages, p.Seq, p.More, nil
}

// History opens the workspace's history on this machine, once: reading
// it needs no host, and its commits are serialised across processes by
// the history's own lock. Without RemoteOptions.History (a host on
// another machine) it is read through the host's history routes.
func (r *Remote) History() (History, error) {
	if r.opts.History == nil {
		return remoteHistory{r.opts.Client.History("main")}, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.hist == nil && r.histErr == nil {
		r.hist, r.histErr = r.opts.History()
		if r.histErr != nil {
			r.histErr = fmt.Errorf("open the history: %w", r.histErr)
		}
	}
	if r.histErr != nil {
		return nil, r.histErr
	}
	return r.hist, nil
}

// SaveFile writes through the host's file route, which takes the
// workspace's write lease there; over a file read through Files, only
// while the host's file is still what was read (RemoteFiles.Save).
func (r *Remote) SaveFile(ctx context.Context, path string, data []byte) error {
	return r.Files().Save(ctx, path, data)
}

// Restore asks the host, which takes the write lease there.
func (r *Remote) Restore(ctx context.Context, commit string, paths []string, session string) (string, error) {
	c, err := r.opts.Client.History("main").Restore(ctx, client.RestoreRequest{Commit: commit, Paths: paths, Session: session})
	return c.Hash, Err(err)
}

// SessionShell opens a terminal the host owns, in the session's
// environment, and attaches to it: closing it ends the program.
func (r *Remote) SessionShell(ctx context.Context, id string, size terminal.Size, command []string) (terminal.PTY, error) {
	return r.Shell(ctx, id, "", size, command)
}

// Notifications asks the host for its notification channels.
func (r *Remote) Notifications(ctx context.Context) (notify.Status, error) {
	st, err := r.opts.Client.Notify(ctx)
	return st, Err(err)
}

// TestNotifications asks the host to send a test through its channels.
func (r *Remote) TestNotifications(ctx context.Context) ([]notify.Result, error) {
	rs, err := r.opts.Client.NotifyTest(ctx)
	return rs, Err(err)
}
