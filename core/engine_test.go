package core

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/sessions"
)

func fastDemo() Options {
	return Options{Agents: DemoResolver{Demo: &harness.Demo{Wait: 50 * time.Millisecond}}}
}

// waitFor drains a subscription until cond holds for a session record.
func waitFor(t *testing.T, sub *Subscription, id string, cond func(sessions.Session) bool) sessions.Session {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case <-sub.Ready():
			for _, ev := range sub.Drain() {
				if ev.Kind == EvSession && ev.SessionID == id && cond(*ev.Session) {
					return *ev.Session
				}
			}
		case <-deadline:
			t.Fatalf("session %s: condition not reached", id)
		}
	}
}

func TestDemoRunsToCompletionWithAutoPolicy(t *testing.T) {
	ws := t.TempDir()
	e, err := Open(ws, fastDemo())
	if err != nil {
		t.Fatal(err)
	}
	defer closeEngine(t, e)
	_, sub := e.Subscribe()
	defer sub.Close()
	rec, err := e.Create(CreateOptions{Agent: "demo", Title: "t", Instructions: "say hi", AutoStart: true, Approval: PolicyAuto})
	if err != nil {
		t.Fatal(err)
	}
	// The question parks the session: answer it with its default.
	deadline := time.After(10 * time.Second)
	answered := false
	for !answered {
		select {
		case <-sub.Ready():
			for _, ev := range sub.Drain() {
				if ev.Kind == EvInteraction && ev.Interaction.Kind == sessions.Question && !ev.Interaction.Resolved {
					if err := e.As("").Answer(rec.ID, ev.Interaction.ID, Answer{By: "test"}); err != nil {
						t.Fatal(err)
					}
					answered = true
				}
			}
		case <-deadline:
			t.Fatal("no question")
		}
	}
	end := waitFor(t, sub, rec.ID, func(s sessions.Session) bool { return s.Status == sessions.Ended })
	if end.EndReason != sessions.Completed {
		t.Fatalf("ended %s: %s", end.EndReason, end.Error)
	}
	b, err := os.ReadFile(filepath.Join(ws, harness.DemoFile))
	if err != nil || !strings.Contains(string(b), "say hi") || !strings.HasSuffix(string(b), "\n\nHello!\n") {
		t.Fatalf("demo file (the task, then the answer to its question): %q %v", b, err)
	}
	msgs, _, err := e.Transcript(rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	var tools []string
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.Tool != nil {
				tools = append(tools, p.Tool.Name+":"+string(p.Tool.State))
				if p.Tool.Name == "ask_user" && p.Tool.Output != "hello" {
					t.Errorf("ask_user answer %q, want the default", p.Tool.Output)
				}
			}
		}
	}
	if got := strings.Join(tools, ","); got != "exec:done,ask_user:done,write_file:done,wait:done" {
		t.Fatalf("tools %s", got)
	}
	// The turn ended with one history commit that holds the demo's file.
	var commit string
	for commit == "" {
		select {
		case <-sub.Ready():
			for _, ev := range sub.Drain() {
				if ev.Kind == EvCommit && ev.SessionID == rec.ID {
					commit = ev.Text
				}
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no turn commit")
		}
	}
	changes, err := e.History().Changes(context.Background(), commit)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || changes[0].Path != harness.DemoFile {
		t.Fatalf("turn commit changes %+v", changes)
	}
	log, _ := e.History().Log(context.Background(), rec.ID)
	if len(log) != 1 || log[0].Turn != 1 {
		t.Fatalf("history %+v", log)
	}
	for _, f := range []string{"session.json", "messages.jsonl", "turns.jsonl"} {
		if _, err := os.Stat(filepath.Join(ws, ".state/sessions", rec.ID, f)); err != nil {
			t.Error(err)
		}
	}
}
