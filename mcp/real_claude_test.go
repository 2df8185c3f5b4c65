package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/internal/fakeanthropic"
	"github.com/atelier-studio/atelier/internal/netns"
	"github.com/atelier-studio/atelier/internal/testreq"
)

// realListTool is how Claude Code names the list_sessions tool of the MCP
// server the test's configuration calls "atelier".
const realListTool = "mcp__atelier__" + ToolListSessions

// realClaudeReplies is the fake model: LISTSESSIONS (when the request
// offers the atelier list tool) is answered with a call of it, a tool
// result by quoting it, anything else by echoing it.
func realClaudeReplies(c fakeanthropic.Call) []fakeanthropic.Block {
	switch {
	case len(c.ToolResults) > 0 && c.Text == "":
		tr := c.ToolResults[0]
		if tr.IsError {
			return []fakeanthropic.Block{{Text: "Tool failed: " + tr.Content}}
		}
		return []fakeanthropic.Block{{Text: "Tool said: " + tr.Content}}
	case strings.Contains(c.Text, "LISTSESSIONS") && offersTool(c, realListTool):
		return []fakeanthropic.Block{{ToolName: realListTool, Input: map[string]any{}}}
	default:
		return []fakeanthropic.Block{{Text: "Reply to: " + c.Text}}
	}
}

// offersTool reports whether the request lists the tool name.
func offersTool(c fakeanthropic.Call, name string) bool {
	tools, _ := c.Raw["tools"].([]any)
	for _, x := range tools {
		if m, _ := x.(map[string]any); m["name"] == name {
			return true
		}
	}
	return false
}

// TestRealClaudeListsSessions runs `atelier mcp WS` as an MCP server of
// the real Claude Code CLI (--mcp-config), against the fake Messages API,
// inside a loopback-only network namespace: the model asks for
// list_sessions, the CLI calls our server, which starts the workspace's
// host and lists the session made beforehand; its id reaches the model in
// the tool result and the CLI's final answer.
func TestRealClaudeListsSessions(t *testing.T) {
	claude := testreq.Binary(t, "claude", "claude")
	if testing.Short() {
		t.Skip("builds the atelier binary and runs the real Claude Code CLI")
	}
	if !netns.Enter(t) {
		return
	}
	bin := filepath.Join(t.TempDir(), "atelier")
	if out, err := exec.Command("go", "build", "-o", bin, "..").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	api := fakeanthropic.New(t, realClaudeReplies)

	home, ws, tmp := t.TempDir(), t.TempDir(), t.TempDir()
	rt := shortDir(t) // XDG_RUNTIME_DIR: the host's socket path has a length limit
	own := map[string]string{
		"HOME":            home,
		"TMPDIR":          tmp,
		"XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"XDG_DATA_HOME":   filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME":  filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME":  filepath.Join(home, ".cache"),
		"XDG_RUNTIME_DIR": rt,
		// What the claude adapter gives the CLI (harness/claude): the
		// fake API, a key, and nothing sent beyond the model API.
		"ANTHROPIC_BASE_URL":                        api.URL,
		"ANTHROPIC_API_KEY":                         "sk-ant-test-key",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC":  "1",
		"DISABLE_TELEMETRY":                         "1",
		"DISABLE_AUTOUPDATER":                       "1",
		"DISABLE_ERROR_REPORTING":                   "1",
		"DISABLE_BUG_COMMAND":                       "1",
		"CLAUDE_CODE_DISABLE_NONSTREAMING_FALLBACK": "1",
		"CLAUDE_CODE_MAX_RETRIES":                   "0",
	}
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if _, ok := own[name]; ok || strings.HasPrefix(name, "XDG_") || strings.HasPrefix(name, "ATELIER_") ||
			strings.HasPrefix(name, "ANTHROPIC_") || strings.HasPrefix(name, "CLAUDE_") {
			continue
		}
		env = append(env, kv)
	}
	for k, v := range own {
		env = append(env, k+"="+v)
	}

	run := func(name string, args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Env, cmd.Dir = env, ws
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Logf("%s %s: %v\nstderr:\n%s", filepath.Base(name), strings.Join(args, " "), err, stderr.String())
		}
		return string(out), err
	}
	// No host outlives the test: --stop, then a kill of whatever is left.
	t.Cleanup(func() {
		if _, err := run(bin, "serve", ws, "--stop"); err != nil {
			t.Errorf("serve --stop: %v", err)
		}
		out, _ := run(bin, "serve", ws, "--status", "--json")
		var st struct {
			Running bool `json:"running"`
			PID     int  `json:"pid"`
		}
		if json.Unmarshal([]byte(out), &st) == nil && st.Running && st.PID > 0 {
			_ = syscall.Kill(st.PID, syscall.SIGKILL)
			t.Errorf("the host (pid %d) still ran after serve --stop", st.PID)
		}
	})

	out, err := run(bin, "sessions", "create", "--no-start", "-w", ws, "a task to list")
	if err != nil {
		t.Fatal(err)
	}
	id := strings.TrimSpace(out)
	if id == "" || strings.ContainsAny(id, " \n") {
		t.Fatalf("sessions create printed %q", out)
	}

	cfg := filepath.Join(t.TempDir(), "mcp.json")
	server := map[string]any{"type": "stdio", "command": bin, "args": []string{"mcp", ws}, "env": own}
	b, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"atelier": server}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, b, 0o600); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	out, err = run(claude, "-p", "LISTSESSIONS", "--mcp-config", cfg, "--strict-mcp-config",
		"--allowedTools", realListTool, "--output-format", "stream-json", "--verbose")
	t.Logf("claude ran %v", time.Since(start).Round(time.Millisecond))
	if err != nil {
		t.Fatalf("claude: %v\n%s", err, out)
	}

	// The model got list_sessions' answer: the CLI called our server,
	// which reached the host.
	var got *fakeanthropic.ToolResult
	for _, c := range api.Calls() {
		for i := range c.ToolResults {
			got = &c.ToolResults[i]
		}
	}
	if got == nil || got.IsError || !strings.Contains(got.Content, id) {
		t.Fatalf("the model got tool result %+v, want one with %s; calls %+v\nclaude:\n%s", got, id, api.Calls(), out)
	}

	// The CLI's final answer quotes it; the server started as "connected".
	var result, status string
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var ev struct {
			Type       string `json:"type"`
			Subtype    string `json:"subtype"`
			Result     string `json:"result"`
			IsError    bool   `json:"is_error"`
			MCPServers []struct {
				Name   string `json:"name"`
				Status string `json:"status"`
			} `json:"mcp_servers"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		switch {
		case ev.Type == "system" && ev.Subtype == "init":
			for _, s := range ev.MCPServers {
				if s.Name == "atelier" {
					status = s.Status
				}
			}
		case ev.Type == "result":
			if ev.IsError || ev.Subtype != "success" {
				t.Errorf("result event %s", sc.Text())
			}
			result = ev.Result
		}
	}
	t.Logf("claude's result: %q", result)
	if status != "connected" {
		t.Errorf("the atelier MCP server's status at init is %q\n%s", status, out)
	}
	if !strings.HasPrefix(result, "Tool said: ") || !strings.Contains(result, id) {
		t.Errorf("claude's result %q, want the tool's answer with %s", result, id)
	}
}
