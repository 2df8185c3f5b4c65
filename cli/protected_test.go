package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/harness/modeltest"
	"github.com/atelier-studio/atelier/sessions"
)

// chatToolCall is a chat-completions stream whose one tool call is name
// with input.
func chatToolCall(t *testing.T, name string, input map[string]any) modeltest.Reply {
	t.Helper()
	args, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	call, err := json.Marshal(map[string]any{"index": 0, "id": "call_1", "type": "function",
		"function": map[string]any{"name": name, "arguments": string(args)}})
	if err != nil {
		t.Fatal(err)
	}
	body := fmt.Sprintf(`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[%s]},"finish_reason":null}]}

data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

data: [DONE]

`, call)
	return modeltest.SSE([]byte(body))
}

// chatText is a chat-completions stream that answers text and stops.
func chatText(text string) modeltest.Reply {
	return modeltest.SSE([]byte(fmt.Sprintf(`data: {"id":"c2","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":%q},"finish_reason":null}]}

data: {"id":"c2","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}

data: [DONE]

`, text)))
}

// hostileWorkspace lays out ws as a hostile repository ships it: the
// protected paths, a secret file, and symlinks to them.
func hostileWorkspace(t *testing.T, ws string) {
	t.Helper()
	writeFile(t, filepath.Join(ws, ".atelier.toml"), "# untrusted\n")
	writeFile(t, filepath.Join(ws, ".git/config"), "[core]\n")
	writeFile(t, filepath.Join(ws, ".git/hooks/.keep"), "")
	writeFile(t, filepath.Join(ws, ".atelier/workflows/.keep"), "")
	writeFile(t, filepath.Join(ws, ".state/.keep"), "")
	writeFile(t, filepath.Join(ws, "sub/.keep"), "")
	writeFile(t, filepath.Join(ws, ".env"), "API_TOKEN=SECRET-VALUE-1234\n")
	for name, to := range map[string]string{
		"link": ".atelier.toml", "dir": ".state", "hooks": ".git/hooks",
		"gitcfg": ".git/config", "workflow": ".atelier/workflows/x.toml",
	} {
		if err := os.Symlink(to, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
}

// agentAt is the user configuration of an openai agent "m" served by srv.
func agentAt(srv *modeltest.Server, approval string) string {
	return fmt.Sprintf("default_agent = \"m\"\n\n[agents.m]\nharness = \"openai\"\nmodel = \"m\"\nbase_url = %q\napproval = %q\n",
		srv.URL+"/v1", approval)
}

// TestBinaryApproveAutoNeverAllowsProtected: `atelier run --approve auto`
// with an agent (under the auto policy) that writes a protected path,
// however it names it, or reads a secret file leaves the approval to a
// person and exits 4; nothing is written, the secret is not printed. The
// same agent writing an ordinary file is allowed and completes.
func TestBinaryApproveAutoNeverAllowsProtected(t *testing.T) {
	cases := []struct {
		name, tool, path string
		reaches          string // the file that must not change
	}{
		{"absolute state file", "write_file", "<ws>/.state/x", ".state/x"},
		{"absolute config", "write_file", "<ws>/.atelier.toml", ".atelier.toml"},
		{"dot-dot into state", "write_file", "sub/../.state/x", ".state/x"},
		{"dot-slash config", "write_file", ".//.atelier.toml", ".atelier.toml"},
		{"symlink to config", "write_file", "link", ".atelier.toml"},
		{"symlink to state", "write_file", "dir/x", ".state/x"},
		{"symlink to git hooks", "write_file", "hooks/pre-commit", ".git/hooks/pre-commit"},
		{"symlink to git config", "write_file", "gitcfg", ".git/config"},
		{"workflow", "write_file", ".atelier/workflows/x.toml", ".atelier/workflows/x.toml"},
		{"dangling symlink to a workflow", "write_file", "workflow", ".atelier/workflows/x.toml"},
		{"secret read", "read_file", ".env", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			b := newSandbox(t)
			hostileWorkspace(t, b.ws)
			p := strings.ReplaceAll(c.path, "<ws>", b.ws)
			in := map[string]any{"path": p, "content": "pwned\n"}
			if c.tool == "read_file" {
				in = map[string]any{"path": p}
			}
			b.configure(agentAt(modeltest.NewServer(t, chatToolCall(t, c.tool, in)), "auto"))
			var before []byte
			if c.reaches != "" {
				before, _ = os.ReadFile(filepath.Join(b.ws, c.reaches))
			}
			r := b.run("run", "--approve", "auto", "--json", "do it").want(t, ExitNeedsYou)
			var it *sessions.Interaction
			for _, line := range strings.Split(r.out, "\n") {
				var ev JSONEvent
				if json.Unmarshal([]byte(line), &ev) == nil && ev.Interaction != nil && ev.Interaction.Kind == sessions.Approval {
					it = ev.Interaction
				}
			}
			if it == nil || !it.Protected || it.Resolved || it.Path != p {
				t.Fatalf("approval %+v\nstdout:\n%s\nstderr:\n%s", it, r.out, r.err)
			}
			if c.reaches != "" {
				if after, _ := os.ReadFile(filepath.Join(b.ws, c.reaches)); string(after) != string(before) {
					t.Errorf("%s was written: %q", c.reaches, after)
				}
			}
			if strings.Contains(r.out+r.err, "SECRET-VALUE") {
				t.Errorf("the secret was printed:\n%s\n%s", r.out, r.err)
			}
		})
	}
	t.Run("ordinary file", func(t *testing.T) {
		t.Parallel()
		b := newSandbox(t)
		hostileWorkspace(t, b.ws)
		b.configure(agentAt(modeltest.NewServer(t,
			chatToolCall(t, "write_file", map[string]any{"path": "notes.txt", "content": "fine\n"}), chatText("done")), "ask"))
		b.run("run", "--approve", "auto", "do it").want(t, ExitOK)
		if got, err := os.ReadFile(filepath.Join(b.ws, "notes.txt")); err != nil || string(got) != "fine\n" {
			t.Errorf("notes.txt: %q %v", got, err)
		}
	})
}
