package claude

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/sessions"
)

// TestRealThroughEngine runs the real CLI through the engine: a one-shot
// session's approval shows up as an action, the operator's answer lets the
// command run, the session ends completed with the tool call done in its
// transcript, and the engine keeps claude's session id for a restart.
func TestRealThroughEngine(t *testing.T) {
	r, ok := newRealRig(t, true)
	if !ok {
		return
	}
	e, err := core.Open(r.ws, core.Options{Agents: core.MapResolver{"claude": r.a}, NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer mustClose(t, e)
	rec, err := e.Create(core.CreateOptions{Agent: "claude", Instructions: "RUNWRITE create a file", AutoStart: true})
	if err != nil {
		t.Fatal(err)
	}
	var approval *sessions.Interaction
	waitFor(t, 45*time.Second, "approval", func() bool {
		for _, a := range e.Actions() {
			if a.SessionID == rec.ID && a.Kind == core.NeedsApproval {
				approval = a.Interaction
				return true
			}
		}
		return false
	})
	if approval.Tool != "Bash" || approval.Command != "touch created.txt" {
		t.Fatalf("approval %+v", approval)
	}
	if err := e.As("").Answer(rec.ID, approval.ID, core.Answer{Decision: sessions.AllowOnce, By: "test"}); err != nil {
		t.Fatal(err)
	}
	var s sessions.Session
	waitFor(t, 45*time.Second, "the end of the session", func() bool {
		s, _ = e.Session(rec.ID)
		return s.Status == sessions.Ended
	})
	if s.EndReason != sessions.Completed || !sessionIDPattern.MatchString(s.AgentResume) {
		t.Fatalf("session %+v", s)
	}
	if _, err := os.Stat(filepath.Join(r.ws, "created.txt")); err != nil {
		t.Errorf("the command did not run: %v", err)
	}
	msgs, _, err := e.Transcript(rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	var tool *sessions.ToolCall
	var text strings.Builder
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.Tool != nil {
				tool = p.Tool
			}
			if m.Role == sessions.Assistant && p.Type == sessions.TextPart {
				text.WriteString(p.Text)
			}
		}
	}
	if tool == nil || tool.State != sessions.ToolDone || tool.Name != "Bash" {
		t.Errorf("tool call %+v", tool)
	}
	if !strings.Contains(text.String(), "Tool said: ") {
		t.Errorf("assistant text %q", text.String())
	}
}
