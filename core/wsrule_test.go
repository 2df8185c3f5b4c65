package core

import (
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/scripted"
)

// A workspace rule allows exactly the call it names, without asking, and
// says so; another command still asks.
func TestWorkspaceRuleAllowsWhatItNames(t *testing.T) {
	m := &scripted.Model{Script: []scripted.Step{
		{Calls: []harness.ToolCall{execCall("c1", "echo allowed")}},
		{Calls: []harness.ToolCall{execCall("c2", "echo other")}},
		{Text: "done", Stop: harness.StopEnd},
	}}
	rule := func(tool, subject string) (string, bool) {
		if tool == "exec" && subject == "echo allowed" {
			return "allowed by this workspace's rule: exec `echo allowed`", true
		}
		return "", false
	}
	e, err := Open(t.TempDir(), Options{Agents: agentResolver{"a", m, AgentSettings{Approval: PolicyAsk}}, WorkspaceRule: rule})
	if err != nil {
		t.Fatal(err)
	}
	defer closeEngine(t, e)
	_, sub := e.Subscribe()
	defer sub.Close()
	rec, err := e.Create(CreateOptions{Agent: "a", Instructions: "go", AutoStart: true})
	if err != nil {
		t.Fatal(err)
	}
	var noticed bool
	deadline := time.Now().Add(10 * time.Second)
	for len(e.Snapshot().Interactions) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the second command never asked")
		}
		select {
		case <-sub.Ready():
			for _, ev := range sub.Drain() {
				if ev.Kind == EvNotice && ev.SessionID == rec.ID && strings.Contains(ev.Text, "workspace's rule") {
					noticed = true
				}
			}
		case <-time.After(50 * time.Millisecond):
		}
	}
	its := e.Snapshot().Interactions
	if len(its) != 1 || its[0].Command != "echo other" {
		t.Fatalf("what asks: %+v", its)
	}
	if !noticed {
		t.Error("the rule's allowance was not said")
	}
	msgs, _, err := e.Transcript(rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if out := toolOutputs(msgs); !strings.Contains(out, "allowed") {
		t.Fatalf("the allowed command did not run: %q", out)
	}
}
