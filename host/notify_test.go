package host

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/api"
	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/internal/redact"
	"github.com/atelier-studio/atelier/notify"
	"github.com/atelier-studio/atelier/sessions"
)

// secret is a value the engine's redactor knows: it must never reach a
// channel.
const secret = "tok-5ecr3t-value-9876"

// notified is a host serving the API over a demo engine, with a command
// channel: a real shell script that writes each event it reads on stdin
// to a file of its own.
type notified struct {
	*hosted
	n      *notify.Notifier
	e      *core.Engine
	events string // the folder the script writes into
}

// runNotified hosts an engine opened with eo (the demo when it names no
// agents), notifying after the delay after.
func runNotified(t *testing.T, after time.Duration, eo core.Options) *notified {
	t.Helper()
	t.Setenv("XDG_RUNTIME_DIR", shortDir(t))
	dir := t.TempDir()
	script := filepath.Join(t.TempDir(), "hook.sh")
	body := "#!/bin/sh\nf=\"" + dir + "/$(date +%s%N).$$.json\"\ncat > \"$f.tmp\" && mv \"$f.tmp\" \"$f\"\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	n := notify.New(notify.Options{Settings: notify.Settings{Command: []string{script}, Desktop: "off",
		Events: []string{notify.KindApproval, notify.KindQuestion, notify.KindStuck}}, Logf: t.Logf})
	t.Cleanup(n.Close)
	engine := make(chan *core.Engine, 1)
	red := redact.New([]redact.Secret{{Name: "DEPLOY_TOKEN", Value: secret}})
	h := runHost(t, Options{IdleExit: -1, Notifier: n, NotifyAfter: after,
		Open: func(ws string) (*core.Engine, error) {
			eo.NoHistory, eo.Redactor = true, red
			if eo.Agents == nil {
				eo.Agents = core.DemoResolver{Demo: &harness.Demo{Pace: 0, Wait: 50 * time.Millisecond}}
			}
			return core.Open(ws, eo)
		},
		Handler: func(e *core.Engine, _ func() func()) http.Handler {
			engine <- e
			return api.NewServer(e, api.Options{Version: "test"})
		}})
	return &notified{hosted: h, n: n, e: <-engine, events: dir}
}

// told returns the events the command was given, oldest first.
func (n *notified) told(t *testing.T) []notify.Event {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(n.events, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	var out []notify.Event
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var ev notify.Event
		if err := json.Unmarshal(b, &ev); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, ev)
	}
	return out
}

// waitTold waits until the command was given want events.
func (n *notified) waitTold(t *testing.T, want int) []notify.Event {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		got := n.told(t)
		if len(got) >= want || time.Now().After(deadline) {
			if len(got) != want {
				t.Fatalf("the command was told of %d events, want %d: %+v", len(got), want, got)
			}
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitOpen waits for the session's open interaction of kind and returns it.
func (n *notified) waitOpen(t *testing.T, session string, kind sessions.InteractionKind) sessions.Interaction {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		for _, it := range n.e.Snapshot().Interactions {
			if it.SessionID == session && it.Kind == kind {
				return it.Interaction
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no %s opened for session %s", kind, session)
	return sessions.Interaction{}
}

func (n *notified) create(t *testing.T, title string) sessions.Session {
	t.Helper()
	return n.createWith(t, "demo", title)
}

func (n *notified) createWith(t *testing.T, agent, title string) sessions.Session {
	t.Helper()
	s, err := n.e.Create(core.CreateOptions{Agent: agent, Title: title, Instructions: "show me", AutoStart: true})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (n *notified) answer(t *testing.T, session string, it sessions.Interaction) {
	t.Helper()
	a := core.Answer{Decision: sessions.AllowOnce, By: "operator"}
	if it.Kind == sessions.Question {
		a = core.Answer{Text: "hello", By: "operator"}
	}
	if err := n.e.As("").Answer(session, it.ID, a); err != nil {
		t.Fatal(err)
	}
}

// follow attaches a client labelled label to the host's event stream
// until the returned function is called.
func follow(t *testing.T, socket, label string) (detach func()) {
	t.Helper()
	c, err := client.New(socket, client.Options{Label: label})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	st, err := c.Events(ctx, "", 0)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	go func() {
		for range st.C { // read until detached
		}
	}()
	var once bool
	detach = func() {
		if !once {
			once = true
			cancel()
			c.CloseIdle()
		}
	}
	t.Cleanup(detach)
	return detach
}

// TestNotifyWithoutStudio: with no studio attached (a command line client
// following the events is no studio), each approval and question of a
// session reaches the command once, with what the operator needs to act,
// and no secret.
func TestNotifyWithoutStudio(t *testing.T) {
	n := runNotified(t, 50*time.Millisecond, core.Options{})
	follow(t, n.rec.Socket, "cli")
	s := n.create(t, "deploy with "+secret)

	exec := n.waitOpen(t, s.ID, sessions.Approval)
	got := n.waitTold(t, 1)[0]
	if got.Kind != notify.KindApproval || got.SessionID != s.ID || got.InteractionID != exec.ID ||
		got.Workspace != n.e.Workspace() || got.Act != notify.Act(n.e.Workspace()) ||
		!strings.Contains(got.Summary, "ls -la") || got.Time.IsZero() {
		t.Errorf("the approval's event: %+v", got)
	}
	if got.Title != "deploy with "+redact.Marker("DEPLOY_TOKEN") {
		t.Errorf("the title %q, want the secret redacted", got.Title)
	}
	time.Sleep(300 * time.Millisecond) // six delays: nothing is told twice
	n.waitTold(t, 1)

	n.answer(t, s.ID, exec)
	q := n.waitOpen(t, s.ID, sessions.Question)
	all := n.waitTold(t, 2)
	if all[1].Kind != notify.KindQuestion || all[1].InteractionID != q.ID || !strings.Contains(all[1].Summary, "greeting") {
		t.Errorf("the question's event: %+v", all[1])
	}
	n.answer(t, s.ID, q)
	write := n.waitOpen(t, s.ID, sessions.Approval)
	n.waitTold(t, 3)
	n.answer(t, s.ID, write)
	time.Sleep(300 * time.Millisecond)
	ids := map[string]bool{}
	for _, ev := range n.waitTold(t, 3) {
		ids[ev.InteractionID] = true
		if strings.Contains(ev.Title+ev.Summary, secret) {
			t.Errorf("a secret reached the channel: %+v", ev)
		}
	}
	if len(ids) != 3 {
		t.Errorf("three events for %d interactions", len(ids))
	}
}

// TestNoNotifyWhileStudioAttached: what opens while a studio is attached
// is the studio's to show, also after it detaches; what opens once it is
// gone is told of.
func TestNoNotifyWhileStudioAttached(t *testing.T) {
	n := runNotified(t, 50*time.Millisecond, core.Options{})
	detach := follow(t, n.rec.Socket, StudioLabel)
	s := n.create(t, "refactor")
	exec := n.waitOpen(t, s.ID, sessions.Approval)
	time.Sleep(400 * time.Millisecond)
	if got := n.told(t); len(got) != 0 {
		t.Fatalf("told of %+v with a studio attached", got)
	}

	detach()
	time.Sleep(400 * time.Millisecond)
	if got := n.told(t); len(got) != 0 {
		t.Fatalf("told, after the studio left, of what it had shown: %+v", got)
	}
	n.answer(t, s.ID, exec)
	q := n.waitOpen(t, s.ID, sessions.Question)
	if got := n.waitTold(t, 1); got[0].InteractionID != q.ID {
		t.Errorf("told of %+v, want the question %s", got[0], q.ID)
	}
}

// TestNoNotifyWhenAnsweredAtOnce: an interaction answered within the
// delay is not told of.
func TestNoNotifyWhenAnsweredAtOnce(t *testing.T) {
	n := runNotified(t, 1500*time.Millisecond, core.Options{})
	s := n.create(t, "quick")
	n.answer(t, s.ID, n.waitOpen(t, s.ID, sessions.Approval))
	n.answer(t, s.ID, n.waitOpen(t, s.ID, sessions.Question))
	// The write's approval that opens next stays open, so it is told of
	// once the delay passes; the approval and the question, answered
	// within theirs, would have been told of before it: by then every
	// notice there is, is in.
	w := n.waitOpen(t, s.ID, sessions.Approval)
	got := n.waitTold(t, 1)
	if got[0].Kind != notify.KindApproval || got[0].InteractionID != w.ID {
		t.Errorf("told of %+v, want only the open approval %s", got, w.ID)
	}
}

// TestNotifyStuck: a session the watchdog reports stuck is told of once,
// however long it stays stuck.
func TestNotifyStuck(t *testing.T) {
	gate := make(chan struct{})
	defer close(gate)
	m := &scripted.Model{Script: []scripted.Step{{Text: "working", Gate: gate}}}
	n := runNotified(t, 50*time.Millisecond, core.Options{Agents: core.MapResolver{"gated": m}, StuckAfter: 200 * time.Millisecond})
	s := n.createWith(t, "gated", "long build")
	it := n.waitOpen(t, s.ID, sessions.Stuck)
	got := n.waitTold(t, 1)[0]
	if got.Kind != notify.KindStuck || got.InteractionID != it.ID || !strings.Contains(got.Summary, "no progress") || got.Title != "long build" {
		t.Errorf("the stuck event: %+v", got)
	}
	time.Sleep(time.Second) // five watchdog periods
	n.waitTold(t, 1)
}

// TestNotifyOnceAcrossResync: a subscription that falls behind takes a new
// snapshot; what was already told of is not told again, and what opened
// meanwhile is.
func TestNotifyOnceAcrossResync(t *testing.T) {
	n := runNotified(t, time.Hour, core.Options{}) // the host's own watcher never fires
	s := n.create(t, "lagging")
	first := n.waitOpen(t, s.ID, sessions.Approval)
	w := newWatcher(n.e, n.n, func() bool { return false }, 0)
	w.resync(core.Snapshot{}, false) // this watcher started before anything opened
	w.apply(core.Event{Kind: core.EvInteraction, SessionID: s.ID, Interaction: &first})
	w.fire(time.Now())
	n.waitTold(t, 1)

	n.answer(t, s.ID, first)
	second := n.waitOpen(t, s.ID, sessions.Question)
	for range 2 {
		w.apply(core.Event{Kind: core.EvResync})
		w.fire(time.Now())
	}
	if got := n.waitTold(t, 2); got[1].InteractionID != second.ID {
		t.Errorf("after the resync, told of %+v, want the question %s", got[1], second.ID)
	}
	time.Sleep(200 * time.Millisecond)
	n.waitTold(t, 2)
}
