package acp

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/internal/netns"
	"github.com/atelier-studio/atelier/sessions"
)

// TestClaudeACPThroughEngine runs claude-code-acp as an acp session of the
// real engine: the write's approval parks the session, the operator allows
// it, the write goes through the engine's files, and the one-shot session
// completes.
func TestClaudeACPThroughEngine(t *testing.T) {
	if !netns.Enter(t) {
		return
	}
	var r *claudeRig
	r = newClaudeRig(t, writeScript(&r, "toolu_e", "engine.txt"))
	e, err := core.Open(r.h.Dir, core.Options{Agents: core.MapResolver{"claude-acp": r.a}, NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer mustClose(t, e)
	_, sub := e.Subscribe()
	s, err := e.Create(core.CreateOptions{Agent: "claude-acp", Instructions: "write the file", AutoStart: true})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.After(90 * time.Second)
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
				if ev.Interaction.Path != filepath.Join(r.h.Dir, "engine.txt") || ev.Interaction.Diff == "" {
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
				if b, err := os.ReadFile(filepath.Join(r.h.Dir, "engine.txt")); err != nil || string(b) != "x\n" {
					t.Fatalf("file %q %v", b, err)
				}
				return
			}
		}
	}
}
