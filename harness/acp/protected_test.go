package acp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/terminal"
)

// goAgentEnv is an execution environment whose Spawn starts a goAgent on
// the workspace: the real engine runs the adapter against it.
type goAgentEnv struct{ ws string }

func (e goAgentEnv) Exec(context.Context, terminal.ExecRequest) (terminal.ExecResult, error) {
	return terminal.ExecResult{}, errors.New("no commands here")
}

func (e goAgentEnv) Spawn(context.Context, []string, []string) (terminal.Process, error) {
	return startGoAgent(e.ws).proc, nil
}

func (e goAgentEnv) Shell(context.Context, terminal.Size, []string) (terminal.PTY, error) {
	return nil, errors.New("no shells here")
}

func (e goAgentEnv) Close() error { return nil }

// engineRig is the real engine on a hostile workspace (every protected
// path, a secret, symlinks to them) with an acp agent played by goAgent.
type engineRig struct {
	t   *testing.T
	ws  string
	e   *core.Engine
	sub *core.Subscription
}

func newEngineRig(t *testing.T) *engineRig {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{".state", ".git/hooks", ".atelier/workflows", "sub"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range map[string]string{".atelier.toml": "# untrusted\n", ".git/config": "[core]\n",
		".env": "API_TOKEN=SECRET-VALUE-1234\n"} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, to := range map[string]string{"link": ".atelier.toml", "dir": ".state", "hooks": ".git/hooks",
		"gitcfg": ".git/config", "workflow": ".atelier/workflows/x.toml", "notes": ".env"} {
		if err := os.Symlink(to, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	a := New(Settings{Command: []string{"go-agent"}})
	e, err := core.Open(ws, core.Options{Agents: core.MapResolver{"acp": a}, NoHistory: true,
		Envs: func(sessions.Session, string) (terminal.Env, error) { return goAgentEnv{ws: ws}, nil }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mustClose(t, e) })
	_, sub := e.Subscribe()
	return &engineRig{t: t, ws: ws, e: e, sub: sub}
}

// run starts a one-shot session with the prompt under policy and answers
// every approval with deny, returning the approvals and the agent's text.
func (r *engineRig) run(prompt, policy string) ([]sessions.Interaction, string) {
	r.t.Helper()
	s, err := r.e.Create(core.CreateOptions{Agent: "acp", Instructions: prompt, Approval: policy, AutoStart: true})
	if err != nil {
		r.t.Fatal(err)
	}
	var asked []sessions.Interaction
	deadline := time.After(20 * time.Second)
	for {
		select {
		case <-r.sub.Ready():
		case <-deadline:
			r.t.Fatalf("timed out; approvals %+v", asked)
		}
		for _, ev := range r.sub.Drain() {
			if ev.SessionID != s.ID {
				continue
			}
			if ev.Kind == core.EvInteraction && ev.Interaction.Kind == sessions.Approval && !ev.Interaction.Resolved {
				asked = append(asked, *ev.Interaction)
				if err := r.e.As("").Answer(s.ID, ev.Interaction.ID, core.Answer{Decision: sessions.Deny, Message: "no"}); err != nil {
					r.t.Fatal(err)
				}
			}
			if ev.Kind == core.EvSession && ev.Session.Status == sessions.Ended {
				msgs, _, err := r.e.Transcript(s.ID)
				if err != nil {
					r.t.Fatal(err)
				}
				var text strings.Builder
				for _, m := range msgs {
					for _, p := range m.Parts {
						if m.Role == sessions.Assistant {
							text.WriteString(p.Text)
						}
					}
				}
				return asked, text.String()
			}
		}
	}
}

// TestFsWriteProtectedAsks: an ACP agent's fs/write_text_file to a
// protected path, in every form (absolute, ACP's normal one, "..", ".//",
// symlinks), asks a person under every policy, auto and read-only
// included, even with no permission asked before; denied, the agent's
// write fails and nothing changes.
func TestFsWriteProtectedAsks(t *testing.T) {
	cases := []struct{ name, path, reaches, policy string }{
		{"state file", "<ws>/.state/x", ".state/x", core.PolicyAuto},
		{"config", "<ws>/.atelier.toml", ".atelier.toml", core.PolicyAuto},
		{"dot-dot into state", "sub/../.state/x", ".state/x", core.PolicyAuto},
		{"dot-slash config", ".//.atelier.toml", ".atelier.toml", core.PolicyAuto},
		{"symlink to config", "link", ".atelier.toml", core.PolicyAuto},
		{"symlink to state", "dir/x", ".state/x", core.PolicyAuto},
		{"symlink to git hooks", "hooks/pre-commit", ".git/hooks/pre-commit", core.PolicyAuto},
		{"git config", ".git/config", ".git/config", core.PolicyAuto},
		{"symlink to git config", "gitcfg", ".git/config", core.PolicyAuto},
		{"workflow", ".atelier/workflows/x.toml", ".atelier/workflows/x.toml", core.PolicyAuto},
		{"dangling symlink to a workflow", "workflow", ".atelier/workflows/x.toml", core.PolicyAuto},
		{"config, policy ask", "<ws>/.atelier.toml", ".atelier.toml", core.PolicyAsk},
		{"config, policy read-only", "<ws>/.atelier.toml", ".atelier.toml", core.PolicyReadOnly},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newEngineRig(t)
			p := strings.ReplaceAll(c.path, "<ws>", r.ws)
			before, _ := os.ReadFile(filepath.Join(r.ws, c.reaches))
			asked, text := r.run("PUT "+p, c.policy)
			want := p
			if !strings.HasPrefix(want, "/") {
				want = r.ws + "/" + p
			}
			if len(asked) != 1 || !asked[0].Protected || asked[0].Path != want || asked[0].Tool != "write_file" ||
				!strings.Contains(asked[0].Diff, "+pwned") {
				t.Fatalf("approvals %+v", asked)
			}
			if !strings.Contains(text, "write failed") || !strings.Contains(text, "denied by the operator: no") {
				t.Errorf("agent text %q", text)
			}
			if after, _ := os.ReadFile(filepath.Join(r.ws, c.reaches)); string(after) != string(before) {
				t.Errorf("%s was written: %q", c.reaches, after)
			}
		})
	}
	t.Run("ordinary file", func(t *testing.T) {
		r := newEngineRig(t)
		asked, text := r.run("PUT sub/notes.txt", core.PolicyAuto)
		if len(asked) != 0 || text != "wrote it" {
			t.Fatalf("approvals %+v, text %q", asked, text)
		}
		if b, err := os.ReadFile(filepath.Join(r.ws, "sub/notes.txt")); err != nil || string(b) != "pwned\n" {
			t.Errorf("sub/notes.txt: %q %v", b, err)
		}
	})
}

// TestFsReadSecretAsks: fs/read_text_file of a secret file (directly or
// through a symlink) asks a person under the auto policy; denied, the
// content reaches neither the agent nor the transcript. An ordinary file
// is read without asking.
func TestFsReadSecretAsks(t *testing.T) {
	for _, p := range []string{".env", "notes"} {
		t.Run(p, func(t *testing.T) {
			r := newEngineRig(t)
			asked, text := r.run("GET "+p, core.PolicyAuto)
			if len(asked) != 1 || !asked[0].Protected || asked[0].Tool != "read_file" || !strings.Contains(asked[0].Reason, "secret") {
				t.Fatalf("approvals %+v", asked)
			}
			if !strings.Contains(text, "read failed") || strings.Contains(text, "SECRET-VALUE") {
				t.Errorf("agent text %q", text)
			}
		})
	}
	t.Run("ordinary file", func(t *testing.T) {
		r := newEngineRig(t)
		asked, text := r.run("GET .git/config", core.PolicyAuto)
		if len(asked) != 0 || text != "content: [core]\n" {
			t.Fatalf("approvals %+v, text %q", asked, text)
		}
	})
}

// TestPermissionProtectedAsks: the agent's session/request_permission for
// an edit of a protected path asks a person under the auto policy (the
// agent names it absolutely, as ACP does); denied, the agent is told
// reject and writes nothing.
func TestPermissionProtectedAsks(t *testing.T) {
	for _, p := range []string{".state/x", ".atelier.toml", "link", "hooks/pre-commit"} {
		t.Run(p, func(t *testing.T) {
			r := newEngineRig(t)
			asked, text := r.run("WRITE "+p, core.PolicyAuto)
			if len(asked) != 1 || !asked[0].Protected || asked[0].ToolCall != "w1" || asked[0].Path != filepath.Join(r.ws, p) {
				t.Fatalf("approvals %+v", asked)
			}
			if text != "not written" {
				t.Errorf("agent text %q", text)
			}
		})
	}
}
