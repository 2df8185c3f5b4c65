package engine

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/atelier-studio/atelier/sessions"
)

// TestEventWire: an event's JSON is the API stream's; it decodes back into
// the same event, every field kept, so a client holds what the engine
// published.
func TestEventWire(t *testing.T) {
	rec := sessions.Session{ID: "s1", Title: "t", Status: sessions.Waiting}
	for _, ev := range []Event{
		{Seq: 3, Kind: EvSession, SessionID: "s1", Session: &rec},
		{Seq: 4, Kind: EvDelta, SessionID: "s1", Delta: &Delta{MessageID: "m", Part: 1, Type: sessions.TextPart, Text: "hi"}},
		{Seq: 5, Kind: EvSignal, Text: "deploy", Signal: &Signal{ID: "g", Name: "deploy", Data: `{"a":1}`, Woken: 2}},
		{Seq: 6, Kind: EvCommit, SessionID: "s1", Text: "abc", Turn: 2},
	} {
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		var back Event
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, ev) {
			t.Errorf("%s: %+v came back as %+v (%s)", ev.Kind, ev, back, b)
		}
	}
	snap := Snapshot{Seq: 9, Sessions: []sessions.Session{rec},
		Interactions: []OpenInteraction{{SessionID: "s1", Interaction: sessions.Interaction{ID: "i", Kind: sessions.Approval, Tool: "exec"}}}}
	b, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	var its []map[string]any
	if err := json.Unmarshal(raw["interactions"], &its); err != nil || len(its) != 1 || its[0]["session_id"] != "s1" || its[0]["id"] != "i" {
		t.Errorf("an open interaction on the wire is flat, with its session: %s (%v)", raw["interactions"], err)
	}
}

// TestEventComplete: an event without what its kind needs, and the
// stream's own snapshot kind, are not the engine's to apply.
func TestEventComplete(t *testing.T) {
	rec := sessions.Session{ID: "s1"}
	for _, c := range []struct {
		ev   Event
		want bool
	}{
		{Event{Kind: EvSession, Session: &rec}, true},
		{Event{Kind: EvSession}, false},
		{Event{Kind: EvDelta}, false},
		{Event{Kind: EvMessage}, false},
		{Event{Kind: EvInteraction}, false},
		{Event{Kind: EvSnapshot}, false},
		{Event{Kind: EvNotice, Text: "x"}, true},
		{Event{Kind: EvRemoved, SessionID: "s1"}, true},
	} {
		if got := c.ev.Complete(); got != c.want {
			t.Errorf("%+v: complete %v, want %v", c.ev, got, c.want)
		}
	}
}
