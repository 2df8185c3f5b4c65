package codex

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/internal/netns"
	"github.com/atelier-studio/atelier/sessions"
)

// TestRealThroughEngine runs a codex session through the real engine: the
// command's approval parks the session, the operator's answer lets it run,
// and the one-shot session completes with the command's part done.
func TestRealThroughEngine(t *testing.T) {
	if !netns.Enter(t) {
		return
	}
	r := newRealRig(t, execCall("call_1", "touch engine_marker.txt"), sseText("msg_1", "Done."))
	a := New(r.s)
	e, err := core.Open(r.ws, core.Options{Agents: core.MapResolver{"codex": a}, NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer mustClose(t, e)
	_, sub := e.Subscribe()
	s, err := e.Create(core.CreateOptions{Agent: "codex", Instructions: "create the marker", AutoStart: true})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.After(60 * time.Second)
	answered := false
	for {
		select {
		case <-sub.Ready():
		case <-deadline:
			t.Fatal("timed out")
		}
		for _, ev := range sub.Drain() {
			if ev.SessionID != s.ID {
				continue
			}
			if ev.Kind == core.EvInteraction && ev.Interaction.Kind == sessions.Approval && !ev.Interaction.Resolved && !answered {
				if ev.Interaction.Tool != ToolExec || ev.Interaction.Command == "" {
					t.Fatalf("approval %+v", ev.Interaction)
				}
				if err := e.As("").Answer(s.ID, ev.Interaction.ID, core.Answer{Decision: sessions.AllowOnce}); err != nil {
					t.Fatal(err)
				}
				answered = true
			}
			if ev.Kind == core.EvSession && ev.Session.Status == sessions.Ended {
				if ev.Session.EndReason != sessions.Completed || !answered {
					t.Fatalf("ended %+v (answered %v)", ev.Session, answered)
				}
				if _, err := os.Stat(filepath.Join(r.ws, "engine_marker.txt")); err != nil {
					t.Fatal(err)
				}
				msgs, _, _ := e.Transcript(s.ID)
				var done bool
				for _, m := range msgs {
					for _, p := range m.Parts {
						if p.Tool != nil && p.Tool.Name == ToolExec && p.Tool.State == sessions.ToolDone {
							done = true
						}
					}
				}
				if !done {
					t.Fatalf("no finished exec part in %+v", msgs)
				}
				return
			}
		}
	}
}
