package tui

import (
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/core"
	sess "github.com/atelier-studio/atelier/sessions"
)

// TestStreamingCursorOnlyWhileItStreams: an unfinished answer ends in the
// streaming cursor while the session runs, not while it is parked (on the
// operator, a timer) or paused, when nothing streams. The engine's events
// are given to the program as the subscription would: a turn parked with
// its answer unfinished, then running again.
func TestStreamingCursorOnlyWhileItStreams(t *testing.T) {
	h := newHarness(t, t.TempDir(), 120, 40)
	rec, err := h.eng.Create(core.CreateOptions{Title: "thinking", Agent: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	h.until("its record", func() bool { _, ok := h.app.live.recs[rec.ID]; return ok })
	h.run(h.app.openSession(rec.ID, true))
	h.until("the transcript", func() bool { return !strings.Contains(h.screen(), "loading the transcript") })

	seq := h.app.live.seq // the engine's events are newer than what the studio holds
	state := func(status sess.Status, sub sess.SubState) {
		r := h.app.live.recs[rec.ID]
		r.Status, r.SubState = status, sub
		seq++
		h.send(eventsMsg{{Seq: seq, Kind: core.EvSession, SessionID: rec.ID, Session: &r}})
	}
	state(sess.Running, sess.Active)
	seq++
	answer := sess.Message{ID: "m-unfinished", Role: sess.Assistant, Parts: []sess.Part{{Type: sess.TextPart, Text: "Let me think this over"}}}
	h.send(eventsMsg{{Seq: seq, Kind: core.EvMessage, SessionID: rec.ID, Message: &answer}})
	if s := h.screen(); !strings.Contains(s, "think this over▍") {
		t.Fatalf("running, the unfinished answer ends in the cursor:\n%s", s)
	}
	state(sess.Running, sess.Parked)
	if s := h.screen(); !strings.Contains(s, "think this over") || strings.Contains(s, "▍") {
		t.Fatalf("parked, nothing streams: no cursor:\n%s", s)
	}
	state(sess.Paused, "")
	if strings.Contains(h.screen(), "▍") {
		t.Fatalf("paused, no cursor:\n%s", h.screen())
	}
	state(sess.Running, sess.Active)
	if s := h.screen(); !strings.Contains(s, "think this over▍") {
		t.Fatalf("running again, the cursor is back:\n%s", s)
	}
}
