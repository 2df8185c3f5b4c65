package core

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/sessions/history"
)

// hostileRig opens an engine (no history: nothing here needs it) on a
// workspace laid out as a hostile repository would ship it: every protected
// path, and symlinks to each.
func hostileRig(t *testing.T, agents MapResolver, extraSecrets ...string) *rig {
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
	for name, content := range map[string]string{
		".atelier.toml": "default_agent = \"a\"\n",
		".git/config":   "[core]\n",
		".env":          "API_TOKEN=SECRET-VALUE-1234\n",
		"db.secret":     "SECRET-VALUE-5678\n",
		"README.md":     "hello\n",
	} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, to := range map[string]string{
		"link":     ".atelier.toml",
		"dir":      ".state",
		"hooks":    ".git/hooks",
		"gitcfg":   ".git/config",
		"workflow": ".atelier/workflows/x.toml",
		"notes":    ".env",
	} {
		if err := os.Symlink(to, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	e, err := Open(ws, Options{Agents: agents, Workers: 2, NoHistory: true,
		HistoryOptions: history.Options{ExtraSecretPatterns: extraSecrets}})
	if err != nil {
		t.Fatal(err)
	}
	_, sub := e.Subscribe()
	t.Cleanup(func() { closeEngine(t, e) })
	return &rig{t: t, ws: ws, e: e, sub: sub}
}

// snapshot reads the files a protected write could reach, to check that a
// denied one changed nothing.
func snapshot(t *testing.T, ws string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(ws, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(ws, p)
		switch {
		case strings.HasPrefix(rel, ".state/sessions"), strings.HasPrefix(rel, ".state/engine"):
			return nil // the engine's own records change as the session runs
		case info.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = string(b)
		case info.IsDir():
			out[rel+"/"] = ""
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// protectedVariants are the ways an agent can name a protected path; each
// must ask a person. "<ws>" stands for the workspace's absolute path.
var protectedVariants = []struct{ name, path string }{
	{"absolute state file", "<ws>/.state/x"},
	{"absolute config", "<ws>/.atelier.toml"},
	{"dot-dot into state", "sub/../.state/x"},
	{"dot-slash config", ".//.atelier.toml"},
	{"symlink to config", "link"},
	{"symlink to state", "dir/x"},
	{"symlink to git hooks", "hooks/pre-commit"},
	{"git config", ".git/config"},
	{"symlink to git config", "gitcfg"},
	{"workflow", ".atelier/workflows/x.toml"},
	{"dangling symlink to a workflow", "workflow"},
}

// TestProtectedWritesAlwaysAsk: under the auto policy, write_file and
// edit_file on each variant park the session on an approval marked
// Protected (for a person only); denied, nothing in the workspace changes.
func TestProtectedWritesAlwaysAsk(t *testing.T) {
	for _, tool := range []string{"write_file", "edit_file"} {
		for _, v := range protectedVariants {
			t.Run(tool+"/"+v.name, func(t *testing.T) {
				m := &scripted.Model{}
				r := hostileRig(t, MapResolver{"a": m})
				p := strings.ReplaceAll(v.path, "<ws>", r.ws)
				in := map[string]any{"path": p, "content": "pwned\n"}
				if tool == "edit_file" {
					in = map[string]any{"path": p, "old_text": "[core]", "new_text": "[core]\nhooksPath = /tmp/evil"}
				}
				m.Script = []scripted.Step{{Calls: []harness.ToolCall{toolCall("c1", tool, in)}}}
				before := snapshot(t, r.ws)
				id := r.create(CreateOptions{Agent: "a", AutoStart: true, Approval: PolicyAuto}).ID
				it := r.interaction(id, sessions.Approval)
				if !it.Protected || it.Path != p || it.Tool != tool || !strings.Contains(it.Reason, "protected") {
					t.Fatalf("approval %+v", it)
				}
				if err := r.e.As("").Answer(id, it.ID, Answer{Decision: sessions.Deny}); err != nil {
					t.Fatal(err)
				}
				r.status(id, sessions.Ended)
				after := snapshot(t, r.ws)
				for k, was := range before {
					if after[k] != was {
						t.Errorf("%s changed: %q", k, after[k])
					}
				}
				for k := range after {
					if _, ok := before[k]; !ok {
						t.Errorf("%s was created", k)
					}
				}
			})
		}
	}
}

// TestProtectedWriteAsksDespiteGrant: an "allow for this session" grant
// for write_file does not cover a protected path, and an allowed protected
// write is written.
func TestProtectedWriteAsksDespiteGrant(t *testing.T) {
	m := &scripted.Model{}
	r := hostileRig(t, MapResolver{"a": m})
	m.Script = []scripted.Step{
		{Calls: []harness.ToolCall{toolCall("c1", "write_file", map[string]any{"path": "ok.txt", "content": "fine\n"})}},
		{Calls: []harness.ToolCall{toolCall("c2", "write_file", map[string]any{"path": "plain.txt", "content": "fine\n"})}},
		{Calls: []harness.ToolCall{toolCall("c3", "write_file", map[string]any{"path": r.ws + "/.state/x", "content": "approved\n"})}},
	}
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Approval: PolicyAsk}).ID
	first := r.interaction(id, sessions.Approval)
	if first.Protected || first.Path != "ok.txt" {
		t.Fatalf("first approval %+v", first)
	}
	if err := r.e.As("").Answer(id, first.ID, Answer{Decision: sessions.AllowSession}); err != nil {
		t.Fatal(err)
	}
	// plain.txt goes through on the grant; .state/x asks.
	it := r.interaction(id, sessions.Approval)
	if !it.Protected || it.ToolCall != "c3" {
		t.Fatalf("approval after the grant %+v", it)
	}
	if err := r.e.As("").Answer(id, it.ID, Answer{Decision: sessions.AllowOnce}); err != nil {
		t.Fatal(err)
	}
	r.status(id, sessions.Ended)
	for f, want := range map[string]string{"ok.txt": "fine\n", "plain.txt": "fine\n", ".state/x": "approved\n"} {
		if b, err := os.ReadFile(filepath.Join(r.ws, f)); err != nil || string(b) != want {
			t.Errorf("%s: %q %v", f, b, err)
		}
	}
}

// TestSecretReadAsks: read_file of a file the history treats as secret
// (.env, through a symlink, a configured pattern) asks a person even under
// the auto policy; denied, the content never reaches the transcript. An
// ordinary file is read without asking.
func TestSecretReadAsks(t *testing.T) {
	for _, p := range []string{".env", "<ws>/.env", "notes", "db.secret"} {
		t.Run(p, func(t *testing.T) {
			m := &scripted.Model{}
			r := hostileRig(t, MapResolver{"a": m}, "*.secret")
			p := strings.ReplaceAll(p, "<ws>", r.ws)
			m.Script = []scripted.Step{{Calls: []harness.ToolCall{toolCall("c1", "read_file", map[string]any{"path": p})}}}
			id := r.create(CreateOptions{Agent: "a", AutoStart: true, Approval: PolicyAuto}).ID
			it := r.interaction(id, sessions.Approval)
			if !it.Protected || it.Path != p || it.Tool != "read_file" || !strings.Contains(it.Reason, "secret") {
				t.Fatalf("approval %+v", it)
			}
			if err := r.e.As("").Answer(id, it.ID, Answer{Decision: sessions.Deny}); err != nil {
				t.Fatal(err)
			}
			r.status(id, sessions.Ended)
			msgs, _, err := r.e.Transcript(id)
			if err != nil {
				t.Fatal(err)
			}
			ts := tools(msgs)
			if len(ts) != 1 || ts[0].State != sessions.ToolDenied {
				t.Fatalf("tool calls %+v", ts)
			}
			for _, msg := range msgs {
				for _, part := range msg.Parts {
					if strings.Contains(part.Text, "SECRET-VALUE") || part.Tool != nil && strings.Contains(part.Tool.Output, "SECRET-VALUE") {
						t.Fatalf("the secret reached the transcript: %+v", part)
					}
				}
			}
		})
	}
	t.Run("ordinary file", func(t *testing.T) {
		m := &scripted.Model{Script: []scripted.Step{{Calls: []harness.ToolCall{toolCall("c1", "read_file", map[string]any{"path": "README.md"})}}}}
		r := hostileRig(t, MapResolver{"a": m})
		id := r.create(CreateOptions{Agent: "a", AutoStart: true, Approval: PolicyAuto}).ID
		r.status(id, sessions.Ended)
		msgs, _, err := r.e.Transcript(id)
		if err != nil {
			t.Fatal(err)
		}
		if ts := tools(msgs); len(ts) != 1 || ts[0].State != sessions.ToolDone || ts[0].Output != "hello\n" {
			t.Fatalf("tool calls %+v", ts)
		}
	})
}

// TestHostProtectedPaths: the harness Host that agents running their own
// tools get (claude, codex, ACP) applies the same verdict: an approval
// naming a protected path in any form asks a person under the auto policy.
func TestHostProtectedPaths(t *testing.T) {
	for _, v := range protectedVariants {
		t.Run(v.name, func(t *testing.T) {
			ag := &scripted.Agent{}
			r := hostileRig(t, MapResolver{"a": ag})
			p := strings.ReplaceAll(v.path, "<ws>", r.ws)
			ag.Script = []scripted.Step{{Approvals: []harness.ApprovalRequest{{ToolCall: "t1", Tool: "Write", Path: p}}}}
			id := r.create(CreateOptions{Agent: "a", AutoStart: true, Approval: PolicyAuto}).ID
			it := r.interaction(id, sessions.Approval)
			if !it.Protected || it.Path != p || !strings.Contains(it.Reason, "protected") {
				t.Fatalf("approval %+v", it)
			}
			if err := r.e.As("").Answer(id, it.ID, Answer{Decision: sessions.Deny}); err != nil {
				t.Fatal(err)
			}
			r.status(id, sessions.Ended)
		})
	}
}

// TestHostProtectedPathDespiteGrant: a session grant for the agent's write
// tool answers its next ordinary write, never a protected one.
func TestHostProtectedPathDespiteGrant(t *testing.T) {
	ag := &scripted.Agent{}
	r := hostileRig(t, MapResolver{"a": ag})
	ag.Script = []scripted.Step{{Approvals: []harness.ApprovalRequest{
		{ToolCall: "t1", Tool: "Write", Path: "ok.txt"},
		{ToolCall: "t2", Tool: "Write", Path: "plain.txt"},
		{ToolCall: "t3", Tool: "Write", Path: r.ws + "/link"},
	}}}
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Approval: PolicyAsk}).ID
	first := r.interaction(id, sessions.Approval)
	if first.Protected || first.ToolCall != "t1" {
		t.Fatalf("first approval %+v", first)
	}
	if err := r.e.As("").Answer(id, first.ID, Answer{Decision: sessions.AllowSession}); err != nil {
		t.Fatal(err)
	}
	it := r.interaction(id, sessions.Approval)
	if !it.Protected || it.ToolCall != "t3" || !strings.Contains(it.Reason, ".atelier.toml") {
		t.Fatalf("approval after the grant %+v", it)
	}
	if err := r.e.As("").Answer(id, it.ID, Answer{Decision: sessions.Deny}); err != nil {
		t.Fatal(err)
	}
	r.status(id, sessions.Ended)
}
