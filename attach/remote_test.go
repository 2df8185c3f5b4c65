package attach

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/terminal"
)

// view is what a studio keeps of the live view: records and the newest
// revision of each message, built from a snapshot and the events after it.
type view struct {
	seq  uint64
	recs map[string]sessions.Session
	revs map[string]int // message id → newest revision seen
	sync int            // how many snapshots were taken
	// notices are the texts of the notices seen, in order.
	notices []string
}

func (v *view) reset(snap core.Snapshot) {
	v.seq, v.recs, v.revs = snap.Seq, map[string]sessions.Session{}, map[string]int{}
	for _, rec := range snap.Sessions {
		v.recs[rec.ID] = rec
	}
	v.sync++
}

func (v *view) apply(e Engine, evs []core.Event) {
	if len(evs) == 1 && evs[0].Kind == core.EvResync {
		v.reset(e.Snapshot())
		return
	}
	for _, ev := range evs {
		if ev.Kind == core.EvNotice { // a remark of the feed's: no seq
			v.notices = append(v.notices, ev.Text)
			continue
		}
		if ev.Seq <= v.seq {
			continue
		}
		v.seq = ev.Seq
		switch ev.Kind {
		case core.EvSession:
			v.recs[ev.SessionID] = *ev.Session
		case core.EvMessage:
			v.revs[ev.Message.ID] = max(v.revs[ev.Message.ID], ev.Message.Rev)
		}
	}
}

// until drains f into v until cond holds.
func (v *view) until(t *testing.T, e Engine, f Feed, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for !cond() {
		select {
		case _, ok := <-f.Ready():
			if !ok {
				t.Fatalf("the feed ended before %s", what)
			}
			v.apply(e, f.Drain())
		case <-deadline:
			t.Fatalf("timed out waiting for %s; view: %+v", what, v.recs)
		}
	}
}

// TestRemoteFollowsLikeLocal drives one demo session through a host's API
// and checks the attached view ends where the engine is: the same record,
// the same transcript with the same revisions, fetched whole across pages.
// The first snapshot is empty and answers at once: the host's comes as a
// resync, so a studio's first frame never waits.
func TestRemoteFollowsLikeLocal(t *testing.T) {
	ws, sock := t.TempDir(), socketPath(t)
	var ensured atomic.Int32
	var host *served
	t.Cleanup(func() { host.stop(t) })
	r := NewRemote(RemoteOptions{Workspace: ws, Client: newClient(t, sock), Ensure: func(context.Context) (string, error) {
		if ensured.Add(1) == 1 {
			host = serve(t, ws, sock) // started on demand, as the CLI starts a detached host
			return "started", nil
		}
		return "", nil
	}})
	r.pageSize = 3 // the transcript takes several pages
	defer r.Close()

	snap, f := r.Subscribe()
	defer f.Close()
	if snap.Seq != 0 || len(snap.Sessions) != 0 {
		t.Fatalf("the first snapshot should be empty (nothing asked yet): %+v", snap)
	}
	v := &view{}
	v.reset(snap)
	v.until(t, r, f, "the host's snapshot", func() bool { return v.sync >= 2 })

	rec, err := r.Create(core.CreateOptions{Agent: "demo", Title: "attached", Instructions: "say hi", Approval: core.PolicyAuto, AutoStart: true})
	if err != nil {
		t.Fatal(err)
	}
	v.until(t, r, f, "the question", func() bool { return v.recs[rec.ID].SubState == sessions.Parked })
	var question string
	for _, it := range r.Snapshot().Interactions {
		if it.Kind == sessions.Question {
			question = it.ID
		}
	}
	for _, it := range host.eng.Snapshot().Interactions {
		if it.Kind == sessions.Question && question == "" {
			question = it.ID // asked after the last snapshot: the feed had it
		}
	}
	if question == "" {
		t.Fatal("the demo should be parked on its question")
	}
	if err := r.Answer(rec.ID, question, core.Answer{Text: "hello"}); err != nil {
		t.Fatal(err)
	}
	v.until(t, r, f, "the end", func() bool { return v.recs[rec.ID].Status == sessions.Ended })

	want, err := host.eng.Session(rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.recs[rec.ID]; got.Status != want.Status || got.EndReason != want.EndReason || got.Turns != want.Turns {
		t.Errorf("attached record %+v, engine %+v", got, want)
	}
	wantMsgs, _, err := host.eng.Transcript(rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	gotMsgs, _, err := r.Transcript(rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(wantMsgs) <= r.pageSize {
		t.Fatalf("only %d messages: the test needs more than a page", len(wantMsgs))
	}
	if len(gotMsgs) != len(wantMsgs) {
		t.Fatalf("transcript: %d messages attached, %d in the engine", len(gotMsgs), len(wantMsgs))
	}
	for i := range wantMsgs {
		if gotMsgs[i].ID != wantMsgs[i].ID || gotMsgs[i].Rev != wantMsgs[i].Rev {
			t.Errorf("message %d: %s rev %d attached, %s rev %d in the engine", i, gotMsgs[i].ID, gotMsgs[i].Rev, wantMsgs[i].ID, wantMsgs[i].Rev)
		}
		if rev, ok := v.revs[wantMsgs[i].ID]; ok && rev != wantMsgs[i].Rev {
			t.Errorf("message %s: the feed's newest revision %d, the engine's %d", wantMsgs[i].ID, rev, wantMsgs[i].Rev)
		}
	}
	tail, _, more, err := r.TranscriptTail(rec.ID, 2)
	if err != nil || len(tail) != 2 || !more || tail[1].ID != wantMsgs[len(wantMsgs)-1].ID {
		t.Fatalf("tail: %d messages, more %v, %v", len(tail), more, err)
	}
	// Errors are the engine's, whichever side answered.
	if _, err := r.Pause("nosuchsession0000000000"); !errors.Is(err, core.ErrUnknownSession) {
		t.Errorf("pause of an unknown session: %v, want core.ErrUnknownSession", err)
	}
	if _, err := r.Pause(rec.ID); !errors.Is(err, ErrTransitionRefused) {
		t.Errorf("pause of an ended session: %v, want a refused transition", err)
	}
}

// TestRemoteStartsAHostAgain: when the host goes away (stopped, killed),
// the feed finds no server, asks Ensure for one, and resyncs on the new
// host's snapshot, which shows what the new host holds.
func TestRemoteStartsAHostAgain(t *testing.T) {
	ws, sock := t.TempDir(), socketPath(t)
	var host *served
	var ensured atomic.Int32
	up := make(chan struct{}, 4)
	t.Cleanup(func() { host.stop(t) })
	r := NewRemote(RemoteOptions{Workspace: ws, Client: newClient(t, sock), Ensure: func(ctx context.Context) (string, error) {
		ensured.Add(1)
		hctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		if _, err := newClient(t, sock).Health(hctx); err == nil {
			return "", nil
		}
		host = serve(t, ws, sock)
		up <- struct{}{}
		return "", nil
	}})
	defer r.Close()
	_, f := r.Subscribe()
	defer f.Close()
	v := &view{}
	v.reset(core.Snapshot{})
	<-up
	v.until(t, r, f, "the first host's snapshot", func() bool { return v.sync >= 2 })

	host.stop(t)
	// What the next host finds: a session made while none ran.
	next, err := core.Open(ws, core.Options{Agents: core.DemoResolver{Demo: nil}, NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := next.Create(core.CreateOptions{Agent: "demo", Title: "made meanwhile"})
	if err != nil {
		t.Fatal(err)
	}
	if err := next.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-up:
	case <-time.After(20 * time.Second):
		t.Fatalf("no new host was asked for (Ensure called %d times)", ensured.Load())
	}
	v.until(t, r, f, "the new host's snapshot", func() bool { _, ok := v.recs[rec.ID]; return ok })
	// The operator is told: the host was lost, then found again.
	v.until(t, r, f, "the reattached notice", func() bool { return slices.Contains(v.notices, NoticeReattached) })
	lostAt, foundAt := slices.Index(v.notices, NoticeReconnecting), slices.Index(v.notices, NoticeReattached)
	if lostAt < 0 || lostAt > foundAt {
		t.Errorf("notices %q: want %q before %q", v.notices, NoticeReconnecting, NoticeReattached)
	}
}

// TestRemoteSessionShell opens a shell in a session's environment through
// a terminal the host owns: output, exit code, and Close ends it.
func TestRemoteSessionShell(t *testing.T) {
	ws, sock := t.TempDir(), socketPath(t)
	host := serve(t, ws, sock)
	t.Cleanup(func() { host.stop(t) })
	r := NewRemote(RemoteOptions{Workspace: ws, Client: newClient(t, sock)})
	defer r.Close()
	rec, err := r.Create(core.CreateOptions{Agent: "demo", Title: "shell"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxFor(t, 20*time.Second)
	p, err := r.SessionShell(ctx, rec.ID, terminal.Size{Cols: 80, Rows: 24}, []string{"/bin/sh", "-c", "echo in-$(basename $PWD); exit 3"})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := io.Copy(&out, p); err != nil {
		t.Fatalf("read: %v (got %q)", err, out.String())
	}
	if want := "in-" + baseName(ws); !bytes.Contains(out.Bytes(), []byte(want)) {
		t.Errorf("output %q lacks %q: the shell should run in the workspace", out.String(), want)
	}
	if code, err := p.Wait(); err != nil || code != 3 {
		t.Errorf("exit code %d, %v; want 3", code, err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if list, err := r.opts.Client.Terminals(ctx); err != nil || len(list) != 0 {
		t.Errorf("closing the pty should forget the host's terminal: %+v, %v", list, err)
	}
	if _, err := r.SessionShell(ctx, "nosuchsession0000000000", terminal.Size{Cols: 80, Rows: 24}, nil); !errors.Is(err, core.ErrUnknownSession) {
		t.Errorf("a shell for an unknown session: %v", err)
	}
}

// TestSaveWaitsForTheWriteLease: the studio's save and its file pane's
// changes, in-process or through a host, wait while a session holds the
// workspace's write lease, so the operator's write never overlaps an
// agent's; each lands once the lease is released.
func TestSaveWaitsForTheWriteLease(t *testing.T) {
	ws, sock := t.TempDir(), socketPath(t)
	host := serve(t, ws, sock)
	t.Cleanup(func() { host.stop(t) })
	r := NewRemote(RemoteOptions{Workspace: ws, Client: newClient(t, sock)})
	defer r.Close()
	src := t.TempDir() // a folder on this machine to upload
	if err := os.MkdirAll(filepath.Join(src, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "sub", "a.txt"), []byte("uploaded"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(src, "link")); err != nil {
		t.Fatal(err)
	}
	exists := func(p string) bool { _, err := os.Lstat(filepath.Join(ws, p)); return err == nil }
	for _, e := range []struct {
		name string
		eng  Engine
	}{{"in-process", Local(host.eng)}, {"attached", r}} {
		for _, op := range []struct {
			name  string
			setup string // a file made first
			do    func(ctx context.Context, p string) error
			done  func(p string) bool
		}{
			{"save", "", func(ctx context.Context, p string) error { return e.eng.SaveFile(ctx, p, []byte("saved")) },
				func(p string) bool {
					b, err := os.ReadFile(filepath.Join(ws, p))
					return err == nil && string(b) == "saved"
				}},
			{"create", "", func(ctx context.Context, p string) error {
				_, err := e.eng.FileOp(ctx, FileOp{Kind: OpCreate, Path: p})
				return err
			}, exists},
			{"mkdir", "", func(ctx context.Context, p string) error {
				_, err := e.eng.FileOp(ctx, FileOp{Kind: OpMkdir, Path: p + "/deep"})
				return err
			}, func(p string) bool { return exists(p + "/deep") }},
			{"rename", "x", func(ctx context.Context, p string) error {
				_, err := e.eng.FileOp(ctx, FileOp{Kind: OpRename, Path: p, To: p + ".renamed"})
				return err
			}, func(p string) bool { return exists(p+".renamed") && !exists(p) }},
			{"delete", "x", func(ctx context.Context, p string) error {
				_, err := e.eng.FileOp(ctx, FileOp{Kind: OpDelete, Path: p})
				return err
			}, func(p string) bool { return !exists(p) }},
			{"upload", "", func(ctx context.Context, p string) error {
				st, err := e.eng.FileOp(ctx, FileOp{Kind: OpUpload, From: src, Path: p})
				if err == nil && (st.Files != 1 || st.Dirs != 2 || st.Bytes != 8 || len(st.Skipped) != 1 || st.Skipped[0] != p+"/link") {
					return fmt.Errorf("upload copied %+v", st)
				}
				return err
			}, func(p string) bool {
				b, err := os.ReadFile(filepath.Join(ws, p, "sub", "a.txt"))
				return err == nil && string(b) == "uploaded" && !exists(p+"/link")
			}},
		} {
			t.Run(e.name+"/"+op.name, func(t *testing.T) {
				ctx := ctxFor(t, 20*time.Second)
				name := e.name + "-" + op.name
				if op.setup != "" {
					if err := os.WriteFile(filepath.Join(ws, name), []byte(op.setup), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				before := op.done(name)
				release, err := host.eng.LeaseWriteOf(ctx, "", "a-session")
				if err != nil {
					t.Fatal(err)
				}
				did := make(chan error, 1)
				go func() { did <- op.do(ctx, name) }()
				select {
				case err := <-did:
					release()
					t.Fatalf("the %s returned (%v) while a session held the write lease", op.name, err)
				case <-time.After(200 * time.Millisecond):
				}
				if op.done(name) != before {
					t.Fatalf("the %s changed the workspace under a session's write lease", op.name)
				}
				release()
				if err := <-did; err != nil {
					t.Fatal(err)
				}
				if !op.done(name) {
					t.Fatalf("after the release, the %s did not land", op.name)
				}
			})
		}
	}
	// A lease that stays held: the save says so and writes nothing.
	release, err := host.eng.LeaseWriteOf(context.Background(), "", "a-session")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := Local(host.eng).SaveFile(ctx, "late.txt", []byte("x")); err == nil || !strings.Contains(err.Error(), "a-session") {
		t.Errorf("a save that timed out: %v, want it to name the holder", err)
	}
}

// TestTwoStudiosAndAFollowerAgree: two attached studios and a follower of
// the raw stream (what `sessions resume --wait` reads) watch one session,
// one studio answering its question; all three end with the same record
// and, for every message they saw, the newest revision the store holds on
// disk (deltas may arrive merged; revisions may not be lost).
func TestTwoStudiosAndAFollowerAgree(t *testing.T) {
	ws, sock := t.TempDir(), socketPath(t)
	host := serve(t, ws, sock)
	t.Cleanup(func() { host.stop(t) })
	var remotes [2]*Remote
	var feeds [2]Feed
	var views [2]*view
	for i := range remotes {
		remotes[i] = NewRemote(RemoteOptions{Workspace: ws, Client: newClient(t, sock)})
		defer remotes[i].Close()
		var snap core.Snapshot
		snap, feeds[i] = remotes[i].Subscribe()
		defer feeds[i].Close()
		views[i] = &view{}
		views[i].reset(snap)
		views[i].until(t, remotes[i], feeds[i], "the snapshot", func() bool { return views[i].sync >= 2 })
	}
	ctx := ctxFor(t, 30*time.Second)
	follower, err := newClient(t, sock).Events(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	followed := map[string]int{}
	var followedStatus sessions.Status
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range follower.C {
			if e, ok := Event(ev); ok { // the workspace's one session
				switch e.Kind {
				case core.EvMessage:
					followed[e.Message.ID] = max(followed[e.Message.ID], e.Message.Rev)
				case core.EvSession:
					followedStatus = e.Session.Status
					if followedStatus == sessions.Ended {
						return
					}
				}
			}
		}
	}()

	rec, err := remotes[0].Create(core.CreateOptions{Agent: "demo", Title: "watched", Instructions: "say hi", Approval: core.PolicyAuto})
	if err != nil {
		t.Fatal(err)
	}
	if err := remotes[0].Start(rec.ID); err != nil {
		t.Fatal(err)
	}
	views[1].until(t, remotes[1], feeds[1], "the question", func() bool { return views[1].recs[rec.ID].SubState == sessions.Parked })
	var question string
	for _, it := range host.eng.Snapshot().Interactions {
		if it.Kind == sessions.Question {
			question = it.ID
		}
	}
	if err := remotes[1].Answer(rec.ID, question, core.Answer{Text: "hello"}); err != nil {
		t.Fatal(err)
	}
	for i := range views {
		views[i].until(t, remotes[i], feeds[i], "the end", func() bool { return views[i].recs[rec.ID].Status == sessions.Ended })
	}
	<-done
	if followedStatus != sessions.Ended {
		t.Fatalf("the follower's stream ended at %s", followedStatus)
	}

	stored := storedRevisions(t, ws, rec.ID)
	for name, seen := range map[string]map[string]int{"studio 1": views[0].revs, "studio 2": views[1].revs, "follower": followed} {
		if len(seen) != len(stored) {
			t.Errorf("%s saw %d messages, the store holds %d", name, len(seen), len(stored))
		}
		for mid, rev := range stored {
			if seen[mid] != rev {
				t.Errorf("%s: message %s at revision %d, the store's is %d", name, mid, seen[mid], rev)
			}
		}
	}
}

// storedRevisions reads a session's transcript on disk: the newest
// revision of each message.
func storedRevisions(t *testing.T, ws, id string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ws, sessions.StateDir, "sessions", id, sessions.MessagesFile))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var m sessions.Message
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("messages.jsonl: %v", err)
		}
		out[m.ID] = max(out[m.ID], m.Rev)
	}
	return out
}

// TestFeedSaysATroubleOnce: a host that stays unreachable is one notice,
// not one per retry; after a snapshot the same trouble is news again.
func TestFeedSaysATroubleOnce(t *testing.T) {
	f := newFeed(func() {})
	for range 5 {
		f.notice("no engine host: refused")
	}
	if evs := f.Drain(); len(evs) != 1 || evs[0].Text != "no engine host: refused" {
		t.Fatalf("five retries said %+v, want one notice", evs)
	}
	f.snapshot()
	f.Drain() // the resync
	f.notice("no engine host: refused")
	if evs := f.Drain(); len(evs) != 1 {
		t.Fatalf("after a snapshot the trouble should be said again: %+v", evs)
	}
}
