package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/internal/poll"
	"github.com/atelier-studio/atelier/sessions"
)

// TestRemoteWait: with a host running, `sessions start --wait` and
// `sessions send --wait` act through the host's API and follow the
// session on its event stream: they print the reply and exit as the
// in-process path does (a continuous session waiting for its next message
// is a normal stop, 0; a cancel from another command, 3), every control is
// recorded by the host's one engine, and a repeated done key returns at
// once.
func TestRemoteWait(t *testing.T) {
	t.Parallel()
	b := newServeSandbox(t)
	id := b.create("--mode", "continuous")
	// Made before the host detach() starts (it stops the one these
	// creates started): the new host finds them in the store.
	other := b.create("--mode", "continuous")
	b.detach()

	r := b.run("sessions", "start", id, "--wait").want(t, ExitOK)
	if !strings.Contains(r.out, "You said") {
		t.Errorf("start --wait printed no reply:\n%s\nstderr:\n%s", r.out, r.err)
	}
	if st := b.record(id).Status; st != string(sessions.Waiting) {
		t.Errorf("after start --wait the session is %s, want WAITING", st)
	}
	started, ok := b.request(id, sessions.CtlStart, "")
	if !ok {
		t.Fatalf("no start in controls.jsonl: %+v", b.controlLines(id))
	}

	// The same exit as in-process (TestBinaryRepeatedKeyDone): the turn
	// ended and the continuous session waits for its next message.
	r = b.run("sessions", "send", id, "hello", "--wait").want(t, ExitOK)
	if !strings.Contains(r.out, "You said: hello") {
		t.Errorf("send --wait printed:\n%s\nstderr:\n%s", r.out, r.err)
	}
	if !strings.Contains(r.err, "send "+id+": ") {
		t.Errorf("send --wait gave no receipt notice:\n%s", r.err)
	}
	sent, ok := b.request(id, sessions.CtlPrompt, "hello")
	if !ok {
		t.Fatalf("no prompt \"hello\" in controls.jsonl: %+v", b.controlLines(id))
	}
	// Two separate processes, one origin: the host's engine recorded both.
	if sent.Client != "cli" || sent.Origin == "" || sent.Origin != started.Origin {
		t.Errorf("the prompt's client %q, origin %q; the start's origin %q: want client cli and one origin (the host's)",
			sent.Client, sent.Origin, started.Origin)
	}
	b.run("sessions", "send", id, "--key", "k0", "short").want(t, ExitOK)
	if k0, ok := b.request(id, sessions.CtlPrompt, "short"); !ok || k0.Origin != sent.Origin {
		t.Errorf("a short send's origin %q, the --wait send's %q: want the host's for both", k0.Origin, sent.Origin)
	}
	poll.Until(t, "the short send's turn ends", func() bool { return b.keys(id)["k0"].State == sessions.KeyDone })

	// --json: the in-process follow's event lines.
	r = b.run("sessions", "send", id, "json please", "--wait", "--json").want(t, ExitOK)
	types := map[string]int{}
	var text strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(r.out), "\n") {
		var ev JSONEvent
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("send --wait --json: %q: %v", line, err)
		}
		if ev.SessionID != id {
			t.Errorf("an event of session %q: %s", ev.SessionID, line)
		}
		types[ev.Type]++
		if ev.Type == "delta" && ev.Delta != nil {
			text.WriteString(ev.Delta.Text)
		}
		if ev.Type == "status" && ev.Seq == 0 {
			t.Errorf("a status event without the engine's sequence number: %s", line)
		}
	}
	for _, want := range []string{"notice", "status", "delta", "message"} {
		if types[want] == 0 {
			t.Errorf("send --wait --json printed no %s event: %v\n%s", want, types, r.out)
		}
	}
	if !strings.Contains(text.String(), "You said: json please") {
		t.Errorf("the deltas say %q", text.String())
	}

	// A keyed --wait, then the same key again: it returns at once with the
	// recorded reply and the first one's exit code.
	b.run("sessions", "send", id, "--key", "k1", "--wait", "keyed").want(t, ExitOK)
	again := b.run("sessions", "send", id, "--key", "k1", "--wait", "keyed").want(t, ExitOK)
	if !strings.Contains(again.out, "You said: keyed") {
		t.Errorf("a repeated done key printed %q", again.out)
	}

	// A cancel from another command ends the --wait with exit 3.
	p := b.start("sessions", "send", id, longPrompt, "--wait")
	poll.Until(t, "the long turn runs", func() bool { return b.record(id).Status == string(sessions.Running) })
	b.run("sessions", "cancel", id).want(t, ExitOK)
	r = p.wait(t).want(t, ExitCancelled)
	if !strings.Contains(r.err, "was cancelled") {
		t.Errorf("the cancelled --wait said:\n%s", r.err)
	}
	if cancelled, ok := b.request(id, sessions.CtlCancel, ""); !ok || cancelled.Origin != sent.Origin {
		t.Errorf("the cancel's origin %q, want the host's %q", cancelled.Origin, sent.Origin)
	}
	// Ended: --wait says so and exits with the end's code at once.
	b.run("sessions", "resume", id, "--wait").want(t, ExitCancelled)

	// --timeout cancels through the host: exit 3, as in-process
	// (TestBinaryRepeatedKeyCancelled).
	b.run("sessions", "start", other, "--wait").want(t, ExitOK)
	b.run("sessions", "send", other, "--wait", "--timeout", "300ms", longPrompt).want(t, ExitCancelled)
	if row := b.record(other); row.Status != string(sessions.Ended) || row.EndReason != "cancelled" {
		t.Errorf("after --timeout the session is %s (%s), want ENDED cancelled", row.Status, row.EndReason)
	}

	b.run("serve", "--stop").want(t, ExitOK)
}
