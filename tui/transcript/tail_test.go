package transcript

import (
	"errors"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/core"
	sess "github.com/atelier-studio/atelier/sessions"
)

func tabView(tab *Tab) string { return ansi.Strip(strings.Join(tab.View(), "\n")) }

// TestTailOffersTheRestAndMergesLiveEvents: a tab opened with the tail of
// its transcript says older messages exist; o asks for all of them; events
// that arrive while they load are replayed on the whole transcript.
func TestTailOffersTheRestAndMergesLiveEvents(t *testing.T) {
	tab := NewTab(plainStyles(), sess.Session{ID: "s", Title: "t", Agent: "demo", Status: sess.Waiting})
	tab.SetSize(80, 20)
	all := conversation(8)
	tab.LoadedTail(all[5:], 10, true, nil)
	if v := tabView(tab); !strings.Contains(v, "older messages not loaded: press o to load all") {
		t.Fatalf("the tail should say older messages exist:\n%s", v)
	}
	if got := tab.HandleKey(kp("o")); got != (LoadAll{ID: "s"}) {
		t.Fatalf("o: %#v", got)
	}
	if got := tab.HandleKey(kp("o")); got != nil {
		t.Fatalf("a second o while loading asks nothing: %#v", got)
	}
	if v := tabView(tab); !strings.Contains(v, "loading the older messages") {
		t.Fatalf("while loading:\n%s", v)
	}
	// A new message and a newer revision of a shown one arrive meanwhile.
	fresh := textMsg(9, sess.Assistant, "a fresh answer")
	rev := all[7]
	rev.Rev, rev.Parts = 2, []sess.Part{{Type: sess.TextPart, Text: "message 8, revised"}}
	tab.Apply(core.Event{Seq: 11, Kind: core.EvMessage, SessionID: "s", Message: &fresh})
	tab.Apply(core.Event{Seq: 12, Kind: core.EvMessage, SessionID: "s", Message: &rev})
	if v := tabView(tab); !strings.Contains(v, "a fresh answer") || !strings.Contains(v, "message 8, revised") {
		t.Fatalf("live events show on the tail at once:\n%s", v)
	}
	// The whole transcript as of seq 11: it has the fresh message, not the
	// revision.
	full := append(append([]sess.Message(nil), all...), fresh)
	tab.Loaded(full, 11, nil)
	if tab.More() || tab.Transcript().Len() != 9 {
		t.Fatalf("after the load: more %v, %d messages", tab.More(), tab.Transcript().Len())
	}
	v := tabView(tab)
	if strings.Contains(v, "older messages") || !strings.Contains(v, "message 8, revised") || strings.Count(v, "a fresh answer") != 1 {
		t.Fatalf("the whole transcript with the revision replayed once:\n%s", v)
	}
}

func TestTailKeepsItsMessagesWhenTheRestFails(t *testing.T) {
	tab := NewTab(plainStyles(), sess.Session{ID: "s", Title: "t", Agent: "demo", Status: sess.Ended})
	tab.SetSize(80, 20)
	tab.LoadedTail(conversation(3), 5, true, nil)
	tab.HandleKey(kp("o"))
	tab.Loaded(nil, 0, errors.New("disk unplugged"))
	v := tabView(tab)
	if !strings.Contains(v, "older messages: disk unplugged") || !strings.Contains(v, "message 3 says") {
		t.Fatalf("the tail stays with the error above it:\n%s", v)
	}
	if got := tab.HandleKey(kp("o")); got != (LoadAll{ID: "s"}) {
		t.Fatalf("o tries again: %#v", got)
	}
}
