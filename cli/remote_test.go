package cli

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/internal/poll"
	"github.com/atelier-studio/atelier/sessions"
)

// controlLines reads a session's controls.jsonl: its requests (Outcome
// empty) and their outcomes.
func (b *sandbox) controlLines(id string) []sessions.Control {
	b.t.Helper()
	f, err := os.Open(filepath.Join(b.ws, ".state", "sessions", id, "controls.jsonl"))
	if err != nil {
		b.t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	var out []sessions.Control
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var c sessions.Control
		if json.Unmarshal(sc.Bytes(), &c) == nil {
			out = append(out, c)
		}
	}
	return out
}

// request finds the request of a kind (and text, when given) in a
// session's controls, the last one when several match.
func (b *sandbox) request(id string, kind sessions.ControlKind, text string) (sessions.Control, bool) {
	b.t.Helper()
	var found sessions.Control
	ok := false
	for _, c := range b.controlLines(id) {
		if c.Outcome == "" && c.Kind == kind && (text == "" || c.Text == text) {
			found, ok = c, true
		}
	}
	return found, ok
}

// TestRemoteShortCommands: with a host running, the short commands send
// through its API: the host's engine records them (one origin for
// commands of separate processes, the client "cli") and runs the turns
// while no other process runs the session; the commands print and exit as
// they do without a host.
func TestRemoteShortCommands(t *testing.T) {
	t.Parallel()
	b := newServeSandbox(t)
	id := b.create("--mode", "continuous")
	b.detach()

	r := b.run("sessions", "start", id).want(t, ExitOK)
	if got := strings.TrimSpace(r.out); got != "start "+id+": now" {
		t.Errorf("sessions start: %q, want %q", got, "start "+id+": now")
	}
	waiting := func() bool { return b.record(id).Status == string(sessions.Waiting) }
	poll.Until(t, "the task's turn ends", waiting)

	// send returns at once; the host runs the turn with no other process.
	began := time.Now()
	r = b.run("sessions", "send", id, "hello")
	r.want(t, ExitOK)
	if !strings.HasPrefix(r.out, "send "+id+": ") || strings.Count(r.out, "\n") != 1 {
		t.Errorf("sessions send printed %q", r.out)
	}
	if d := time.Since(began); d > 10*time.Second {
		t.Errorf("sessions send took %s: it should only hand the prompt over", d)
	}
	sent, ok := b.request(id, sessions.CtlPrompt, "hello")
	if !ok {
		t.Fatalf("no prompt \"hello\" in controls.jsonl: %+v", b.controlLines(id))
	}
	if sent.Client != "cli" || sent.Origin == "" {
		t.Errorf("the prompt's client %q, origin %q: want client cli and the host's origin", sent.Client, sent.Origin)
	}
	// The audit log names the sender's user, which the socket told the host.
	if want := core.UserOf(os.Getuid()); sent.User != want {
		t.Errorf("the prompt's user %q, want %q", sent.User, want)
	}
	poll.Until(t, "the host runs the turn of hello", func() bool {
		row := b.record(id)
		return row.Turns >= 2 && row.Status == string(sessions.Waiting)
	})

	// pause, resume and cancel in other processes: the same engine (the
	// host's) records them.
	b.run("sessions", "send", id, longPrompt).want(t, ExitOK)
	poll.Until(t, "the long turn runs", func() bool { return b.record(id).Status == string(sessions.Running) })
	r = b.run("sessions", "pause", id).want(t, ExitOK)
	if !strings.HasPrefix(r.out, "pause "+id+": ") {
		t.Errorf("sessions pause printed %q", r.out)
	}
	paused, ok := b.request(id, sessions.CtlPause, "")
	if !ok || paused.Origin != sent.Origin || paused.Client != "cli" {
		t.Errorf("the pause was recorded by %q (client %q), the send by %q: want both by the host, client cli",
			paused.Origin, paused.Client, sent.Origin)
	}
	// The demo agent's boundary may be the end of its turn: the pause then
	// holds the session there, or is superseded by the turn's end.
	var st string
	poll.Until(t, "the pause settles", func() bool {
		st = b.record(id).Status
		return st == string(sessions.Paused) || st == string(sessions.Waiting)
	})
	if st == string(sessions.Paused) {
		r = b.run("sessions", "resume", id).want(t, ExitOK)
		if !strings.HasPrefix(r.out, "resume "+id+": ") {
			t.Errorf("sessions resume printed %q", r.out)
		}
		poll.Until(t, "the session resumes and waits", waiting)
	}

	// A repeated key sends nothing again; another text with it is refused.
	b.run("sessions", "send", id, "--key", "k1", "keyed").want(t, ExitOK)
	poll.Until(t, "key k1 is done", func() bool { return b.keys(id)["k1"].State == sessions.KeyDone })
	again := b.run("sessions", "send", id, "--key", "k1", "keyed").want(t, ExitOK)
	if !strings.Contains(again.out, "You said: keyed") {
		t.Errorf("a repeated done key printed %q, want its recorded reply", again.out)
	}
	conflict := b.run("sessions", "send", id, "--key", "k1", "other").want(t, ExitUsage)
	if !strings.Contains(conflict.err, "use a new key") {
		t.Errorf("a key conflict says %q", conflict.err)
	}
	list := b.run("sessions", "keys", id).want(t, ExitOK)
	if !strings.Contains(list.out, "k1") {
		t.Errorf("sessions keys:\n%s", list.out)
	}
	b.run("sessions", "keys", id, "--forget", "k1").want(t, ExitUsage) // done, not uncertain

	// Unknown ids exit as they do without a host; a refused transition too.
	for _, args := range [][]string{
		{"sessions", "pause", "nosuchsession"},
		{"sessions", "send", "nosuchsession", "hi"},
		{"sessions", "keys", "nosuchsession"},
	} {
		r := b.run(args...).want(t, ExitUsage)
		if !strings.Contains(r.err, "no such session") || !strings.Contains(r.err, "atelier sessions --all") {
			t.Errorf("%s: %q", strings.Join(args, " "), r.err)
		}
	}
	b.run("sessions", "resume", id).want(t, ExitUsage) // WAITING: nothing to resume
	b.run("sessions", "answer", "nosuchinteraction", "x").want(t, ExitUsage)

	r = b.run("sessions", "cancel", id).want(t, ExitOK)
	if !strings.HasPrefix(r.out, "cancel "+id+": ") {
		t.Errorf("sessions cancel printed %q", r.out)
	}
	poll.Until(t, "the session ends cancelled", func() bool {
		row := b.record(id)
		return row.Status == string(sessions.Ended) && row.EndReason == "cancelled"
	})
	b.run("sessions", "pause", id).want(t, ExitUsage) // ENDED

	b.run("serve", "--stop").want(t, ExitOK)
	// Without a host the same command opens its own engine again.
	r = b.run("sessions", "keys", id).want(t, ExitOK)
	if !strings.Contains(r.out, "k1") {
		t.Errorf("sessions keys without a host:\n%s", r.out)
	}
}
