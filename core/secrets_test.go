package core

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/internal/redact"
	"github.com/atelier-studio/atelier/sessions"
)

// agentResolver resolves one agent with the settings a configuration
// would give it.
type agentResolver struct {
	name string
	h    harness.Harness
	set  AgentSettings
}

func (r agentResolver) Resolve(agent string) (harness.Harness, AgentSettings, error) {
	if agent != r.name {
		return nil, AgentSettings{}, ErrUnknownAgent
	}
	return r.h, r.set, nil
}

// execCall is a tool call of the exec tool.
func execCall(id, command string) harness.ToolCall {
	in, _ := json.Marshal(map[string]string{"command": command})
	return harness.ToolCall{ID: id, Name: "exec", Input: in}
}

// toolOutputs joins the outputs of a transcript's tool calls.
func toolOutputs(msgs []sessions.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.Tool != nil {
				b.WriteString(p.Tool.Output)
			}
		}
	}
	return b.String()
}

// TestExecToolSeesNoOperatorKeys: `env` run by an agent through the exec
// tool shows the base environment and the agent's configured env, and none
// of the keys exported where Atelier runs: not in the transcript, not in
// the next model request. Before, commands ran with Atelier's whole
// environment. (No redactor here: the environment alone keeps them out.)
func TestExecToolSeesNoOperatorKeys(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-operator-secret-1")
	t.Setenv("ATELIER_TEST_DEPLOY_TOKEN", "deploy-token-operator-2")
	t.Setenv("ATELIER_TEST_UNRELATED", "unrelated-operator-3")
	m := &scripted.Model{Script: []scripted.Step{
		{Calls: []harness.ToolCall{execCall("c1", "env")}},
		{Text: "seen", Stop: harness.StopEnd},
	}}
	ws := t.TempDir()
	e, err := Open(ws, Options{Agents: agentResolver{"a", m, AgentSettings{Approval: PolicyAuto,
		Env: []string{"ATELIER_AGENT_SETTING=configured"}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer closeEngine(t, e)
	_, sub := e.Subscribe()
	defer sub.Close()
	rec, err := e.Create(CreateOptions{Agent: "a", Title: "t", Instructions: "show the environment", AutoStart: true, Approval: PolicyAuto})
	if err != nil {
		t.Fatal(err)
	}
	end := waitFor(t, sub, rec.ID, func(s sessions.Session) bool { return s.Status == sessions.Ended })
	if end.EndReason != sessions.Completed {
		t.Fatalf("ended %s: %s", end.EndReason, end.Error)
	}
	msgs, _, err := e.Transcript(rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	out := toolOutputs(msgs)
	for _, want := range []string{"PATH=", "HOME=", "ATELIER_AGENT_SETTING=configured"} {
		if !strings.Contains(out, want) {
			t.Errorf("env shows no %s:\n%s", want, out)
		}
	}
	reqs, _ := json.Marshal(m.Requests())
	log, err := os.ReadFile(filepath.Join(ws, sessions.StateDir, "sessions", rec.ID, sessions.MessagesFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"sk-ant-operator-secret-1", "deploy-token-operator-2", "unrelated-operator-3"} {
		if strings.Contains(out, secret) || strings.Contains(string(reqs), secret) || strings.Contains(string(log), secret) {
			t.Errorf("the operator's %s reached the agent's command:\n%s", secret, out)
		}
	}
}

// splitModel streams its answer in the pieces given.
type splitModel struct{ pieces []string }

func (m *splitModel) Name() string       { return "split" }
func (m *splitModel) Caps() harness.Caps { return harness.Caps{Boundary: harness.StepBoundary} }
func (m *splitModel) Step(_ context.Context, _ harness.StepRequest, out harness.Emitter) (harness.StepResult, error) {
	for _, p := range m.pieces {
		out.Text(p)
	}
	return harness.StepResult{Stop: harness.StopEnd}, nil
}

// TestSecretSplitAcrossDeltasIsRedacted: a key the model streams split
// across two deltas never reaches a subscriber (deltas and messages) nor
// messages.jsonl, and its marker does; the text around it arrives whole.
// A configured env value shown by `sessions exec` is redacted in its
// result and in the audit log. Before, deltas and logs were written as
// they came.
func TestSecretSplitAcrossDeltasIsRedacted(t *testing.T) {
	const secret = "sk-split-0123456789abcdef"
	m := &splitModel{pieces: []string{"the key is sk-split-01234", "56789abcdef, keep it safe"}}
	red := redact.New([]redact.Secret{{Name: "ATELIER_TEST_API_KEY", Value: secret},
		{Name: "SERVICE_TOKEN", Value: "service-token-value-42"}})
	ws := t.TempDir()
	e, err := Open(ws, Options{Redactor: red, Agents: agentResolver{"a", m, AgentSettings{Approval: PolicyAuto,
		Env: []string{"SERVICE_TOKEN=service-token-value-42"}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer closeEngine(t, e)
	_, sub := e.Subscribe()
	defer sub.Close()
	rec, err := e.Create(CreateOptions{Agent: "a", Title: "t", Instructions: "tell me", AutoStart: true, Mode: sessions.Continuous})
	if err != nil {
		t.Fatal(err)
	}
	var deltas strings.Builder
	var seen []string
	done := false
	for !done {
		<-sub.Ready()
		for _, ev := range sub.Drain() {
			if ev.SessionID != rec.ID {
				continue
			}
			b, _ := json.Marshal(ev)
			seen = append(seen, string(b))
			if ev.Kind == EvDelta {
				deltas.WriteString(ev.Delta.Text)
			}
			if ev.Kind == EvSession && (ev.Session.Status == sessions.Waiting || ev.Session.Status == sessions.Ended) {
				done = true
			}
		}
	}
	want := "the key is «redacted ATELIER_TEST_API_KEY», keep it safe"
	if deltas.String() != want {
		t.Errorf("deltas %q, want %q", deltas.String(), want)
	}
	for _, ev := range seen {
		if strings.Contains(ev, secret) || strings.Contains(ev, "0123456789abcdef") {
			t.Errorf("a subscriber saw the secret: %s", ev)
		}
	}
	res, err := e.Exec(context.Background(), rec.ID, ExecCommand{Shell: "env"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Stdout, "SERVICE_TOKEN=«redacted SERVICE_TOKEN»") {
		t.Errorf("exec shows %q", res.Stdout)
	}
	dir := filepath.Join(ws, sessions.StateDir, "sessions", rec.ID)
	for _, f := range []string{sessions.MessagesFile, sessions.TurnsFile} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "0123456789abcdef") || strings.Contains(string(b), "service-token-value-42") {
			t.Errorf("%s holds a secret:\n%s", f, b)
		}
	}
	msgs, _, err := e.Transcript(rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := msgs[len(msgs)-1].Text(); got != want {
		t.Errorf("the answer reads %q", got)
	}
}
