package codex

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/modeltest"
	"github.com/atelier-studio/atelier/internal/agenttest"
	"github.com/atelier-studio/atelier/internal/netns"
	"github.com/atelier-studio/atelier/internal/testreq"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/terminal"
)

// realRig is the codex CLI from PATH against a fake Responses server, in a
// temp workspace with a throwaway HOME and CODEX_HOME.
type realRig struct {
	t   *testing.T
	ws  string
	srv *fakeResponses
	h   *agenttest.Host
	s   Settings
}

func newRealRig(t *testing.T, replies ...[]byte) *realRig {
	t.Helper()
	bin := testreq.Binary(t, "codex", "codex")
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	home := filepath.Join(root, "home")
	for _, d := range []string{ws, filepath.Join(home, ".codex")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env, err := terminal.NewLocal(terminal.LocalConfig{Workspace: ws,
		BaseEnv: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LANG=C.UTF-8"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mustClose(t, env) })
	srv := newFakeResponses(t, replies...)
	return &realRig{t: t, ws: ws, srv: srv, h: &agenttest.Host{Dir: ws, Env: env},
		s: Settings{Command: []string{bin}, Model: "gpt-5.5", BaseURL: srv.URL + "/v1", APIKey: "sk-fake",
			Home: filepath.Join(home, ".codex"), Env: []string{"RUST_LOG=warn"}}}
}

func (r *realRig) turn(a *Agent, ctx context.Context, input, resume string) (harness.TurnResult, *modeltest.Recorder, error) {
	rec := &modeltest.Recorder{}
	res, err := a.Turn(ctx, harness.TurnRequest{SessionID: "s1", Turn: 1, Input: input, Resume: resume}, rec, r.h)
	return res, rec, err
}

// toolOutput finds the output Codex sent the model for a call.
func toolOutput(t *testing.T, body, callID string) (string, bool) {
	t.Helper()
	var req struct {
		Input []struct {
			Type   string          `json:"type"`
			CallID string          `json:"call_id"`
			Output json.RawMessage `json:"output"`
		} `json:"input"`
	}
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		t.Fatalf("request body: %v", err)
	}
	for _, it := range req.Input {
		if it.Type == "function_call_output" && it.CallID == callID {
			var s string
			if json.Unmarshal(it.Output, &s) != nil {
				s = string(it.Output)
			}
			return s, true
		}
	}
	return "", false
}

func realCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func (r *realRig) spawned() int { return len(r.h.Spawns()) }

// TestRealAllowSteerSecondTurn: an approved command really runs and its
// output reaches the model; a steer sent while the approval waits reaches
// the model too; a second turn runs in the same process and thread.
func TestRealAllowSteerSecondTurn(t *testing.T) {
	if !netns.Enter(t) {
		return
	}
	r := newRealRig(t, execCall("call_1", "touch created_by_codex.txt"), sseText("msg_1", "Created it."), sseText("msg_2", "Second."))
	a := New(r.s)
	defer closeSession(t, a, "s1")
	ctx := realCtx(t)
	var steerErr error
	r.h.Decide = func(ctx context.Context, req harness.ApprovalRequest) (harness.ApprovalAnswer, error) {
		steerErr = a.Steer(ctx, "s1", "STEER-MARK mind the tests")
		return harness.ApprovalAnswer{Allowed: true}, nil
	}
	res, rec, err := r.turn(a, ctx, "create the marker", "")
	if err != nil {
		t.Fatal(err)
	}
	if steerErr != nil {
		t.Fatalf("steer: %v", steerErr)
	}
	if res.Stop != harness.StopEnd || res.Resume == "" {
		t.Fatalf("result %+v", res)
	}
	if _, err := os.Stat(filepath.Join(r.ws, "created_by_codex.txt")); err != nil {
		t.Fatalf("the approved command did not run: %v", err)
	}
	ap := r.h.Approvals()
	if len(ap) != 1 || ap[0].Tool != ToolExec || !strings.Contains(ap[0].Command, "touch created_by_codex.txt") || ap[0].ToolCall != "call_1" {
		t.Fatalf("approvals %+v", ap)
	}
	tools, order := toolsOf(rec)
	if len(order) != 1 || tools["call_1"].state != sessions.ToolDone {
		t.Fatalf("tools %+v", tools)
	}
	bodies := r.srv.Bodies()
	if len(bodies) < 2 {
		t.Fatalf("%d model requests", len(bodies))
	}
	out, ok := toolOutput(t, bodies[1], "call_1")
	if !ok || !strings.Contains(out, "exited with code 0") {
		t.Fatalf("the command's result did not reach the model: %q", out)
	}
	if !strings.Contains(strings.Join(bodies[1:], ""), "STEER-MARK") {
		t.Fatal("the steer did not reach the model")
	}
	if !strings.Contains(rec.Joined("text"), "Created it.") {
		t.Fatalf("text %q", rec.Joined("text"))
	}

	n := len(bodies)
	res2, rec2, err := r.turn(a, ctx, "SECOND-TURN now", res.Resume)
	if err != nil {
		t.Fatal(err)
	}
	if res2.Resume != res.Resume || r.spawned() != 1 {
		t.Fatalf("second turn: resume %q (first %q), %d processes", res2.Resume, res.Resume, r.spawned())
	}
	bodies = r.srv.Bodies()
	if len(bodies) <= n || !strings.Contains(bodies[n], "SECOND-TURN") || !strings.Contains(bodies[n], "created_by_codex") {
		t.Fatalf("the second turn's request lacks the input or the history")
	}
	if rec2.Joined("text") == "" {
		t.Fatal("second turn streamed no text")
	}
}

// TestRealDeny: a denied command does not run, its part is denied, and the
// denial reaches the model as the call's output.
func TestRealDeny(t *testing.T) {
	if !netns.Enter(t) {
		return
	}
	r := newRealRig(t, execCall("call_1", "touch denied.txt"), sseText("msg_1", "Understood."))
	r.h.Decide = deny
	a := New(r.s)
	defer closeSession(t, a, "s1")
	_, rec, err := r.turn(a, realCtx(t), "create the file", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(r.ws, "denied.txt")); err == nil {
		t.Fatal("the denied command ran")
	}
	tools, _ := toolsOf(rec)
	if tools["call_1"] == nil || tools["call_1"].state != sessions.ToolDenied {
		t.Fatalf("tools %+v", tools)
	}
	bodies := r.srv.Bodies()
	if len(bodies) < 2 {
		t.Fatalf("%d model requests", len(bodies))
	}
	out, ok := toolOutput(t, bodies[1], "call_1")
	if !ok || out == "" || strings.Contains(out, "exited with code 0") {
		t.Fatalf("the denial did not reach the model: %q %v", out, ok)
	}
	t.Logf("codex told the model: %q", out)
}

// TestRealInterrupt cancels a turn while its approval waits: the turn ends
// with the context's error, the command never runs, its part is closed as
// interrupted, and the same process takes the next turn.
func TestRealInterrupt(t *testing.T) {
	if !netns.Enter(t) {
		return
	}
	r := newRealRig(t, execCall("call_1", "touch never.txt"), sseText("msg_1", "After."))
	a := New(r.s)
	defer closeSession(t, a, "s1")
	ctx, cancel := context.WithCancel(realCtx(t))
	r.h.Decide = func(actx context.Context, req harness.ApprovalRequest) (harness.ApprovalAnswer, error) {
		cancel()
		return block(actx, req)
	}
	res, rec, err := r.turn(a, ctx, "create the file", "")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	tools, order := toolsOf(rec)
	if len(order) != 1 || tools["call_1"].state != sessions.ToolInterrupted {
		t.Fatalf("tool %+v", *tools["call_1"])
	}
	if _, err := os.Stat(filepath.Join(r.ws, "never.txt")); err == nil {
		t.Fatal("the command ran")
	}
	r.h.Decide = allow
	res2, rec2, err := r.turn(a, realCtx(t), "go on", res.Resume)
	if err != nil {
		t.Fatal(err)
	}
	if r.spawned() != 1 || res2.Resume != res.Resume || !strings.Contains(rec2.Joined("text"), "After.") {
		t.Fatalf("after the interrupt: %d processes, resume %q/%q, text %q", r.spawned(), res2.Resume, res.Resume, rec2.Joined("text"))
	}
}

// TestRealResume ends the process after a turn; a new adapter (as after a
// restart) resumes the thread from the token and the model sees the first
// turn in its history.
func TestRealResume(t *testing.T) {
	if !netns.Enter(t) {
		return
	}
	r := newRealRig(t, sseText("msg_1", "One."), sseText("msg_2", "Two."))
	a := New(r.s)
	res, _, err := r.turn(a, realCtx(t), "FIRST-INPUT hello", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.CloseSession("s1"); err != nil {
		t.Fatal(err)
	}
	b := New(r.s)
	defer closeSession(t, b, "s1")
	rec := &modeltest.Recorder{}
	res2, err := b.Turn(realCtx(t), harness.TurnRequest{SessionID: "s1", Turn: 2, Input: "SECOND-INPUT", Resume: res.Resume}, rec, r.h)
	if err != nil {
		t.Fatal(err)
	}
	if res2.Resume != res.Resume || r.spawned() != 2 {
		t.Fatalf("resume %q, first %q, %d processes", res2.Resume, res.Resume, r.spawned())
	}
	for _, n := range rec.Notices() {
		if strings.Contains(n, "could not resume") {
			t.Fatalf("notice %q", n)
		}
	}
	bodies := r.srv.Bodies()
	if len(bodies) != 2 || !strings.Contains(bodies[1], "FIRST-INPUT") || !strings.Contains(bodies[1], "SECOND-INPUT") {
		t.Fatalf("the resumed thread's request lacks the first turn (%d requests)", len(bodies))
	}
}

// TestRealProcessDies kills the CLI while its approval waits: the wait
// ends, the turn fails with ErrExited and the CLI's stderr tail, the open
// part gets a result, and the next turn starts a new process.
func TestRealProcessDies(t *testing.T) {
	if !netns.Enter(t) {
		return
	}
	r := newRealRig(t, execCall("call_1", "touch x.txt"), sseText("msg_1", "Back."))
	r.s.Env = []string{"RUST_LOG=info"} // something on stderr to show
	a := New(r.s)
	defer closeSession(t, a, "s1")
	r.h.Decide = func(ctx context.Context, req harness.ApprovalRequest) (harness.ApprovalAnswer, error) {
		p := r.h.Procs()[0]
		_ = p.Kill()
		return block(ctx, req)
	}
	res, rec, err := r.turn(a, realCtx(t), "create the file", "")
	if !errors.Is(err, ErrExited) || !strings.Contains(err.Error(), "exit code") || !strings.Contains(err.Error(), "stderr:") {
		t.Fatalf("err %v", err)
	}
	tools, _ := toolsOf(rec)
	if tools["call_1"] == nil || tools["call_1"].state != sessions.ToolError {
		t.Fatalf("tools %+v", tools)
	}
	r.h.Decide = allow
	if _, _, err := r.turn(a, realCtx(t), "again", res.Resume); err != nil {
		t.Fatal(err)
	}
	if r.spawned() != 2 {
		t.Fatalf("%d processes", r.spawned())
	}
}

// TestMissingBinary: a CLI that is not there is a clear error.
func TestMissingBinary(t *testing.T) {
	ws := t.TempDir()
	env, err := terminal.NewLocal(terminal.LocalConfig{Workspace: ws, BaseEnv: []string{"PATH=" + os.Getenv("PATH")}})
	if err != nil {
		t.Fatal(err)
	}
	defer mustClose(t, env)
	a := New(Settings{Command: []string{filepath.Join(ws, "no-such-codex")}})
	_, err = a.Turn(context.Background(), harness.TurnRequest{SessionID: "s", Input: "hi"}, &modeltest.Recorder{}, &agenttest.Host{Dir: ws, Env: env})
	if err == nil || !strings.Contains(err.Error(), "no-such-codex") {
		t.Fatalf("err %v", err)
	}
}

// TestRealExportedCredentials: with CODEX_HOME and OPENAI_API_KEY exported
// where Atelier runs and nothing in the settings, Codex finds its
// configuration (a provider whose key is OPENAI_API_KEY: Codex takes no
// base URL from the environment) and the key, and the turn succeeds; a
// variable of another program in the environment it starts in (a
// container image's) stays out of its tools' environment.
func TestRealExportedCredentials(t *testing.T) {
	if !netns.Enter(t) {
		return
	}
	r := newRealRig(t, execCall("call_1", "env"), sseText("msg_1", "Seen."))
	config := strings.Join([]string{
		`model_provider = "exported"`,
		`[model_providers.exported]`,
		`name = "Exported"`,
		`base_url = "` + r.srv.URL + `/v1"`,
		`env_key = "OPENAI_API_KEY"`,
		`wire_api = "responses"`,
	}, "\n") + "\n"
	codexHome := t.TempDir() // not ~/.codex: found only through CODEX_HOME
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CODEX_HOME", codexHome)
	t.Setenv("OPENAI_API_KEY", "sk-exported")
	t.Setenv("OPENAI_ATELIER_TEST_MARK", "own-marker")
	t.Setenv("ANTHROPIC_BASE_URL", "http://foreign-marker.invalid")
	r.srv.requireAuth("Bearer sk-exported")
	// The environment the CLI starts in holds another program's variable.
	env, err := terminal.NewLocal(terminal.LocalConfig{Workspace: r.ws,
		BaseEnv: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Dir(r.s.Home), "LANG=C.UTF-8", "ATELIER_TEST_FOREIGN=foreign-marker"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mustClose(t, env) })
	r.h.Env = env
	a := New(Settings{Command: r.s.Command, Model: r.s.Model, Env: r.s.Env})
	defer closeSession(t, a, "s1")
	res, rec, err := r.turn(a, realCtx(t), "show the environment", "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != harness.StopEnd || !strings.Contains(rec.Joined("text"), "Seen.") {
		t.Fatalf("result %+v, text %q", res, rec.Joined("text"))
	}
	bodies := r.srv.Bodies()
	if len(bodies) < 2 {
		t.Fatalf("%d model requests", len(bodies))
	}
	out, ok := toolOutput(t, bodies[1], "call_1")
	if !ok || !strings.Contains(out, "OPENAI_ATELIER_TEST_MARK=own-marker") {
		t.Fatalf("the env command did not show Codex's environment: %q", out)
	}
	if strings.Contains(out, "foreign-marker") {
		t.Errorf("another program's variable reached Codex's tools: %q", out)
	}
	// Codex needs its key; the commands it runs do not
	// (shell_environment_policy).
	if strings.Contains(out, "sk-exported") {
		t.Errorf("Codex's own key reached its tools: %q", out)
	}
}

// TestRealProviderEnvKey: with CODEX_HOME exported and its config.toml
// naming a provider whose key and a header come from variables (env_key,
// env_http_headers, as Codex's documentation configures Azure, OpenRouter
// or Ollama), the exported variables reach Codex and the turn succeeds with
// that key and header. Before, Atelier stripped them and Codex failed with
// "Missing environment variable".
func TestRealProviderEnvKey(t *testing.T) {
	if !netns.Enter(t) {
		return
	}
	r := newRealRig(t, sseText("msg_1", "Provided."))
	config := strings.Join([]string{
		`model_provider = "mine"`,
		`[model_providers.mine]`,
		`name = "Mine"`,
		`base_url = "` + r.srv.URL + `/v1"`,
		`env_key = "ATELIER_TEST_PROVIDER_KEY"`,
		`env_http_headers = { "X-Atelier-Test" = "ATELIER_TEST_PROVIDER_HEADER" }`,
		`wire_api = "responses"`,
		`request_max_retries = 0`,
		`stream_max_retries = 0`,
	}, "\n") + "\n"
	codexHome := t.TempDir()
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CODEX_HOME", codexHome)
	t.Setenv("ATELIER_TEST_PROVIDER_KEY", "sk-provider")
	t.Setenv("ATELIER_TEST_PROVIDER_HEADER", "header-value")
	r.srv.requireAuth("Bearer sk-provider")
	a := New(Settings{Command: r.s.Command, Model: r.s.Model, Env: r.s.Env})
	defer closeSession(t, a, "s1")
	res, rec, err := r.turn(a, realCtx(t), "hello", "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != harness.StopEnd || !strings.Contains(rec.Joined("text"), "Provided.") {
		t.Fatalf("result %+v, text %q", res, rec.Joined("text"))
	}
	hs := r.srv.Headers()
	if len(hs) == 0 || hs[0].Get("X-Atelier-Test") != "header-value" {
		t.Errorf("the configured header did not arrive: %v", hs)
	}
}

// TestRealToolsSeeNoKey: the key the configuration gives Codex (through
// the custom provider's variable) is not in the environment of the
// commands it runs, nor in what the model gets back; the agent's
// configured env is.
func TestRealToolsSeeNoKey(t *testing.T) {
	if !netns.Enter(t) {
		return
	}
	r := newRealRig(t, execCall("call_1", "env"), sseText("msg_1", "Seen."))
	r.s.Env = append(r.s.Env, "ATELIER_AGENT_SETTING=configured")
	a := New(r.s)
	defer closeSession(t, a, "s1")
	res, _, err := r.turn(a, realCtx(t), "show the environment", "")
	if err != nil || res.Stop != harness.StopEnd {
		t.Fatalf("turn: %v %+v", err, res)
	}
	bodies := r.srv.Bodies()
	if len(bodies) < 2 {
		t.Fatalf("%d model requests", len(bodies))
	}
	out, ok := toolOutput(t, bodies[1], "call_1")
	if !ok || !strings.Contains(out, "PATH=") || !strings.Contains(out, "ATELIER_AGENT_SETTING=configured") {
		t.Fatalf("the env command did not show Codex's environment: %q", out)
	}
	if strings.Contains(out, "sk-fake") || strings.Contains(out, keyEnv) {
		t.Errorf("the key reached Codex's tools: %q", out)
	}
}

// TestRealNotLoggedIn: a key the API refuses fails the turn with
// ErrNotLoggedIn, saying how to log in.
func TestRealNotLoggedIn(t *testing.T) {
	if !netns.Enter(t) {
		return
	}
	r := newRealRig(t)
	r.srv.requireAuth("Bearer sk-another-key")
	r.s.Config = []string{"model_providers." + ProviderName + ".request_max_retries=0",
		"model_providers." + ProviderName + ".stream_max_retries=0"}
	a := New(r.s)
	defer closeSession(t, a, "s1")
	_, _, err := r.turn(a, realCtx(t), "hello", "")
	t.Logf("error: %v", err)
	if !errors.Is(err, ErrNotLoggedIn) || !strings.Contains(err.Error(), "codex login") {
		t.Fatalf("err %v", err)
	}
}
