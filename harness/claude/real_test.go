package claude

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/modeltest"
	"github.com/atelier-studio/atelier/internal/agenttest"
	"github.com/atelier-studio/atelier/internal/fakeanthropic"
	"github.com/atelier-studio/atelier/internal/netns"
	"github.com/atelier-studio/atelier/internal/testreq"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/terminal"
)

// The tests in this file run the real Claude Code CLI (the version in
// Version) against internal/fakeanthropic, inside a loopback-only network namespace.

// scriptedReplies is the fake model: RUNWRITE asks for a command that
// needs approval, SLOWTOOL for one that runs long, SLOWTEXT streams for
// seconds; a tool result is answered by quoting it (and any steer).
func scriptedReplies(c fakeanthropic.Call) []fakeanthropic.Block {
	steer := strings.Join(c.System, " ")
	switch {
	case len(c.ToolResults) > 0 && c.Text == "":
		tr := c.ToolResults[0]
		msg := "Tool said: " + tr.Content
		if tr.IsError {
			msg = "Tool failed: " + tr.Content
		}
		if steer != "" {
			msg += " | steer: " + steer
		}
		return []fakeanthropic.Block{{Text: msg}}
	case strings.Contains(c.Text, "RUNWRITE"):
		return []fakeanthropic.Block{{Text: "I'll create the file."}, {ToolName: "Bash", Input: map[string]any{"command": "touch created.txt", "description": "Create created.txt"}}}
	case strings.Contains(c.Text, "SLOWTOOL"):
		return []fakeanthropic.Block{{ToolName: "Bash", Input: map[string]any{"command": "sleep 3; echo slept > slow.txt; cat slow.txt", "description": "Sleep a while"}}}
	case strings.Contains(c.Text, "RUNENV"):
		return []fakeanthropic.Block{{ToolName: "Bash", Input: map[string]any{"command": "env | sort", "description": "Show the environment"}}}
	case strings.Contains(c.Text, "SLOWTEXT"):
		return []fakeanthropic.Block{{Text: strings.Repeat("tick ", 40), Pace: 50 * time.Millisecond}}
	default:
		return []fakeanthropic.Block{{Text: "Reply to: " + c.Text}}
	}
}

type realRig struct {
	t   *testing.T
	api *fakeanthropic.Server
	ws  string
	h   *agenttest.Host
	a   *Agent
}

// newRealRig finds the CLI, enters the network namespace (false: the test
// ran in a child and the caller returns), and builds a workspace, a local
// environment, the fake API and the adapter.
func newRealRig(t *testing.T, bare bool) (*realRig, bool) {
	return newRealRigWith(t, bare, nil)
}

// newRealRigWith is newRealRig with the adapter's settings changed by edit
// (the fake API's URL given) before the adapter is built.
func newRealRigWith(t *testing.T, bare bool, edit func(s *Settings, apiURL string)) (*realRig, bool) {
	bin := testreq.Binary(t, "claude", "claude")
	if !netns.Enter(t) {
		return nil, false
	}
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "README.md"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The environment agents start from on the host is ours (the adapter
	// isolates the CLI from what it does not declare).
	env, err := terminal.NewLocal(terminal.LocalConfig{Workspace: ws, BaseEnv: os.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mustClose(t, env) })
	api := fakeanthropic.New(t, scriptedReplies)
	set := Settings{Command: []string{bin}, BaseURL: api.URL, APIKey: "sk-ant-test-key", Home: t.TempDir(), Bare: bare,
		Env: []string{"CLAUDE_CODE_DISABLE_NONSTREAMING_FALLBACK=1", "CLAUDE_CODE_MAX_RETRIES=0"}, StartTimeout: 30 * time.Second}
	if edit != nil {
		edit(&set, api.URL)
	}
	a := newTestAgent(t, set)
	r := &realRig{t: t, api: api, ws: ws, h: &agenttest.Host{Dir: ws, Env: env}, a: a}
	t.Cleanup(func() { closeSession(t, a, "s") })
	return r, true
}

func (r *realRig) turn(ctx context.Context, input, resume string, out harness.Emitter) turnOut {
	r.t.Helper()
	return r.turnReq(ctx, harness.TurnRequest{SessionID: "s", Input: input, Resume: resume}, out)
}

func (r *realRig) turnReq(ctx context.Context, req harness.TurnRequest, out harness.Emitter) turnOut {
	r.t.Helper()
	return within(r.t, 45*time.Second, func() turnOut {
		res, err := r.a.Turn(ctx, req, out, r.h)
		return turnOut{res, err}
	})
}

func onlyResult(t *testing.T, rec *modeltest.Recorder) modeltest.Event {
	t.Helper()
	rs := toolResults(rec)
	if len(rs) != 1 {
		t.Fatalf("tool results %+v", rs)
	}
	for _, r := range rs {
		return r
	}
	panic("unreachable")
}

// TestRealApproveSecondTurnAndResume, with the CLI's default (non-bare)
// set-up: an approved command really runs and its result reaches the
// model; a second turn goes to the same process, with the model the
// operator switched to; after the process ends,
// a new one continues claude's session with --resume and the history.
func TestRealApproveSecondTurnAndResume(t *testing.T) {
	r, ok := newRealRig(t, false)
	if !ok {
		return
	}
	rec := &modeltest.Recorder{}
	out := r.turn(context.Background(), "RUNWRITE create a file", "", rec)
	if out.err != nil {
		t.Fatal(out.err)
	}
	if _, err := os.Stat(filepath.Join(r.ws, "created.txt")); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
	aps := r.h.Approvals()
	if len(aps) != 1 || aps[0].Tool != "Bash" || aps[0].Command != "touch created.txt" || aps[0].ToolCall == "" {
		t.Fatalf("approvals %+v", aps)
	}
	res := onlyResult(t, rec)
	if res.ID != aps[0].ToolCall || res.State != sessions.ToolDone {
		t.Errorf("tool result %+v", res)
	}
	calls := r.api.Calls()
	last := calls[len(calls)-1]
	if len(last.ToolResults) != 1 || last.ToolResults[0].IsError || last.ToolResults[0].ID != res.ID {
		t.Errorf("the model got %+v", last.ToolResults)
	}
	if want := "I'll create the file.Tool said: "; !strings.HasPrefix(rec.Joined("text"), want) {
		t.Errorf("text %q", rec.Joined("text"))
	}
	if !sessionIDPattern.MatchString(out.res.Resume) || out.res.Usage.OutputTokens == 0 || out.res.Usage.CostUSD <= 0 {
		t.Errorf("result %+v", out.res)
	}

	rec2 := &modeltest.Recorder{}
	out2 := r.turnReq(context.Background(), harness.TurnRequest{SessionID: "s", Input: "second question", Resume: out.res.Resume, Model: "claude-other-test-model"}, rec2)
	// set_model also tells the model, in a /model command caveat.
	if out2.err != nil || !strings.HasSuffix(rec2.Joined("text"), "second question") {
		t.Fatalf("second turn: %v %q", out2.err, rec2.Joined("text"))
	}
	calls = r.api.Calls()
	if m := calls[len(calls)-1].Raw["model"]; m != "claude-other-test-model" {
		t.Errorf("second turn asked model %v", m)
	}
	if len(r.h.Spawns()) != 1 || out2.res.Resume != out.res.Resume {
		t.Errorf("second turn: %d processes, session %q then %q", len(r.h.Spawns()), out.res.Resume, out2.res.Resume)
	}

	// A restart: the process ends, a new one resumes claude's session.
	closeSession(t, r.a, "s")
	before := len(r.api.Calls())
	rec3 := &modeltest.Recorder{}
	out3 := r.turn(context.Background(), "after restart", out2.res.Resume, rec3)
	if out3.err != nil || rec3.Joined("text") != "Reply to: after restart" {
		t.Fatalf("resumed turn: %v %q %q", out3.err, rec3.Joined("text"), rec3.Notices())
	}
	if len(r.h.Spawns()) != 2 || out3.res.Resume != out.res.Resume {
		t.Errorf("resume: %d processes, session %q", len(r.h.Spawns()), out3.res.Resume)
	}
	calls = r.api.Calls()[before:]
	if len(calls) == 0 || calls[len(calls)-1].Messages < 5 {
		t.Errorf("the resumed request does not carry the history: %+v", calls)
	}
}

// TestRealDeny: a denied command does not run, and the operator's message
// reaches the model as the tool's error.
func TestRealDeny(t *testing.T) {
	r, ok := newRealRig(t, true)
	if !ok {
		return
	}
	r.h.Decide = func(ctx context.Context, a harness.ApprovalRequest) (harness.ApprovalAnswer, error) {
		return harness.ApprovalAnswer{Message: "no files today"}, nil
	}
	rec := &modeltest.Recorder{}
	out := r.turn(context.Background(), "RUNWRITE create a file", "", rec)
	if out.err != nil {
		t.Fatal(out.err)
	}
	if _, err := os.Stat(filepath.Join(r.ws, "created.txt")); err == nil {
		t.Error("the denied command ran")
	}
	if res := onlyResult(t, rec); res.State != sessions.ToolDenied || !strings.Contains(res.Text, "no files today") {
		t.Errorf("tool result %+v", res)
	}
	calls := r.api.Calls()
	last := calls[len(calls)-1]
	if len(last.ToolResults) != 1 || !last.ToolResults[0].IsError || !strings.Contains(last.ToolResults[0].Content, "no files today") {
		t.Errorf("the model got %+v", last.ToolResults)
	}
}

// TestRealInterrupt: cancelling a turn while an approved command runs
// stops the CLI through its interrupt request: Turn returns the context's
// error, the tool call ends interrupted, the command's effect never
// happens, and the same process takes the next turn.
func TestRealInterrupt(t *testing.T) {
	r, ok := newRealRig(t, true)
	if !ok {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r.h.Decide = func(context.Context, harness.ApprovalRequest) (harness.ApprovalAnswer, error) {
		time.AfterFunc(time.Second, cancel)
		return harness.ApprovalAnswer{Allowed: true}, nil
	}
	rec := &modeltest.Recorder{}
	start := time.Now()
	out := r.turn(ctx, "SLOWTOOL please", "", rec)
	if !errors.Is(out.err, context.Canceled) {
		t.Fatalf("err %v", out.err)
	}
	if res := onlyResult(t, rec); res.State != sessions.ToolInterrupted {
		t.Errorf("tool result %+v", res)
	}
	t.Logf("cancelled turn returned %v after start", time.Since(start))
	time.Sleep(3 * time.Second) // past the command's own end
	if _, err := os.Stat(filepath.Join(r.ws, "slow.txt")); err == nil {
		t.Error("the interrupted command went on running")
	}
	rec2 := &modeltest.Recorder{}
	out2 := r.turn(context.Background(), "still there?", out.res.Resume, rec2)
	if out2.err != nil || !strings.HasSuffix(rec2.Joined("text"), "still there?") {
		t.Fatalf("turn after the interrupt: %v %q", out2.err, rec2.Joined("text"))
	}
	if len(r.h.Spawns()) != 1 {
		t.Errorf("%d processes: the interrupt was not clean", len(r.h.Spawns()))
	}
}

// TestRealSteerDuringTool: a steer written while an approved command runs
// joins the same turn: the model gets it with the tool's result, and the
// one Turn returns that answer.
func TestRealSteerDuringTool(t *testing.T) {
	r, ok := newRealRig(t, true)
	if !ok {
		return
	}
	steerErr := make(chan error, 1)
	r.h.Decide = func(context.Context, harness.ApprovalRequest) (harness.ApprovalAnswer, error) {
		time.AfterFunc(time.Second, func() { steerErr <- r.a.Steer(context.Background(), "s", "STEER use tabs") })
		return harness.ApprovalAnswer{Allowed: true}, nil
	}
	rec := &modeltest.Recorder{}
	out := r.turn(context.Background(), "SLOWTOOL please", "", rec)
	if out.err != nil {
		t.Fatal(out.err)
	}
	if err := <-steerErr; err != nil {
		t.Fatal(err)
	}
	text := rec.Joined("text")
	if !strings.Contains(text, "Tool said: slept") || !strings.Contains(text, "STEER use tabs") {
		t.Errorf("text %q", text)
	}
	if res := onlyResult(t, rec); res.State != sessions.ToolDone {
		t.Errorf("tool result %+v", res)
	}
}

// TestRealSteerDuringAnswer: a steer written while the model streams an
// answer without tools runs as a follow-up turn in the CLI, and the one
// Turn returns after answering it too.
func TestRealSteerDuringAnswer(t *testing.T) {
	r, ok := newRealRig(t, true)
	if !ok {
		return
	}
	rec := &notifier{first: make(chan struct{})}
	steerErr := make(chan error, 1)
	go func() {
		<-rec.first
		steerErr <- r.a.Steer(context.Background(), "s", "STEER shorter please")
	}()
	out := r.turn(context.Background(), "SLOWTEXT go", "", rec)
	if out.err != nil {
		t.Fatal(out.err)
	}
	if err := <-steerErr; err != nil {
		t.Fatal(err)
	}
	text := rec.Joined("text")
	if !strings.HasPrefix(text, "tick tick") || !strings.HasSuffix(text, "Reply to: STEER shorter please") {
		t.Errorf("text %q", text)
	}
}

// notifier is a Recorder that signals its first text delta.
type notifier struct {
	modeltest.Recorder
	once  sync.Once
	first chan struct{}
}

func (n *notifier) Text(d string) {
	n.Recorder.Text(d)
	n.once.Do(func() { close(n.first) })
}

// TestRealProcessKilled: the CLI killed mid-turn fails the turn with
// ErrExited (and whatever it wrote on stderr); the next turn starts a new
// process that resumes claude's session, history included.
func TestRealProcessKilled(t *testing.T) {
	r, ok := newRealRig(t, true)
	if !ok {
		return
	}
	out := r.turn(context.Background(), "hello", "", &modeltest.Recorder{})
	if out.err != nil {
		t.Fatal(out.err)
	}
	// Claude appends a turn's messages to its session file in batches,
	// on a timer (100ms in 2.1.197), after the result line; the file can
	// exist before them, holding only metadata (a "last-prompt" line). A
	// CLI killed meanwhile loses the turn: the session has no messages,
	// so it cannot be resumed (the adapter then starts a new session with
	// a notice, see TestResumeRefusedStartsFresh). Wait for turn 1 in it.
	waitFor(t, 20*time.Second, "turn 1's answer in claude's session file", func() bool {
		return savedAnswer(r.a.set.Home, out.res.Resume, "Reply to: hello")
	})
	rec := &notifier{first: make(chan struct{})}
	go func() {
		<-rec.first
		p := r.h.Procs()[0]
		if err := p.Kill(); err != nil {
			t.Errorf("kill: %v", err)
		}
	}()
	out = r.turn(context.Background(), "SLOWTEXT go", out.res.Resume, rec)
	var pe *ProcessError
	if !errors.Is(out.err, ErrExited) || !errors.As(out.err, &pe) || !strings.Contains(out.err.Error(), "exit code 137") {
		t.Fatalf("err %v", out.err)
	}
	rec2 := &modeltest.Recorder{}
	out2 := r.turn(context.Background(), "hello again", out.res.Resume, rec2)
	if out2.err != nil || rec2.Joined("text") != "Reply to: hello again" || len(r.h.Spawns()) != 2 || len(rec2.Notices()) != 0 {
		t.Fatalf("after the kill: %v %q %q, %d processes", out2.err, rec2.Joined("text"), rec2.Notices(), len(r.h.Spawns()))
	}
	calls := r.api.Calls()
	if calls[len(calls)-1].Messages < 3 {
		t.Errorf("the resumed session lost its history: %d messages", calls[len(calls)-1].Messages)
	}
}

// savedAnswer reports whether claude's session file for the session id
// (under the CLI's home) holds an assistant message with the text.
func savedAnswer(home, id, text string) bool {
	m, _ := filepath.Glob(filepath.Join(home, ".claude", "projects", "*", id+".jsonl"))
	if len(m) != 1 {
		return false
	}
	b, err := os.ReadFile(m[0])
	if err != nil {
		return false
	}
	for _, l := range bytes.Split(b, []byte("\n")) {
		var e struct {
			Type    string `json:"type"`
			Message struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(l, &e) != nil || e.Type != "assistant" {
			continue // metadata, another message, or a line being written
		}
		for _, c := range e.Message.Content {
			if c.Text == text {
				return true
			}
		}
	}
	return false
}

// waitFor polls cond until it holds, failing the test after d.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	end := time.Now().Add(d)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("no %s after %s", what, d)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestRealExportedCredentials: with ANTHROPIC_API_KEY and
// ANTHROPIC_BASE_URL exported where Atelier runs, and nothing in the
// settings, the CLI finds them (as its own docs tell users to export them)
// and the turn succeeds; another program's variables stay out of its
// environment, and so out of its tools'.
func TestRealExportedCredentials(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-exported")
	t.Setenv("OPENAI_API_KEY", "sk-openai-foreign")
	t.Setenv("ATELIER_TEST_FOREIGN", "foreign-marker")
	t.Setenv("CLAUDE_CODE_ATELIER_TEST_MARK", "own-marker")
	var url string
	r, ok := newRealRigWith(t, true, func(s *Settings, apiURL string) {
		s.BaseURL, s.APIKey, url = "", "", apiURL
	})
	if !ok {
		return
	}
	t.Setenv("ANTHROPIC_BASE_URL", url)
	r.api.RequireKey("sk-ant-exported")
	rec := &modeltest.Recorder{}
	out := r.turn(context.Background(), "RUNENV show me", "", rec)
	if out.err != nil {
		t.Fatal(out.err)
	}
	res := onlyResult(t, rec)
	if res.State != sessions.ToolDone {
		t.Fatalf("tool result %+v", res)
	}
	calls := r.api.Calls()
	env := calls[len(calls)-1].ToolResults[0].Content
	if !strings.Contains(env, "PATH=") || !strings.Contains(env, "CLAUDE_CODE_ATELIER_TEST_MARK=own-marker") {
		t.Fatalf("the env command did not show the CLI's environment: %q", env)
	}
	for _, foreign := range []string{"sk-openai-foreign", "foreign-marker"} {
		if strings.Contains(env, foreign) {
			t.Errorf("another program's variable reached claude's tools: %q", env)
		}
	}
	// The CLI needs its key; the commands it runs do not
	// (CLAUDE_CODE_SUBPROCESS_ENV_SCRUB).
	if strings.Contains(env, "sk-ant-exported") {
		t.Errorf("claude's own key reached its tools: %q", env)
	}
}

// TestRealAPIKeyHelper: a user whose ~/.claude/settings.json gets the key
// from an apiKeyHelper that reads a variable (as Claude Code's settings
// documentation configures it) has that variable passed to the CLI, which
// authenticates with the helper's key; the commands of its Bash tool do not
// see the variable. Before, Atelier stripped it, and the helper printed
// nothing.
func TestRealAPIKeyHelper(t *testing.T) {
	t.Setenv("ATELIER_TEST_HELPER_KEY", "sk-ant-from-helper")
	r, ok := newRealRigWith(t, false, func(s *Settings, _ string) {
		s.APIKey = ""
		settings := `{"apiKeyHelper": "printf %s \"$ATELIER_TEST_HELPER_KEY\""}`
		if err := os.MkdirAll(filepath.Join(s.Home, ".claude"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(s.Home, ".claude", "settings.json"), []byte(settings), 0o600); err != nil {
			t.Fatal(err)
		}
	})
	if !ok {
		return
	}
	r.api.RequireKey("sk-ant-from-helper")
	rec := &modeltest.Recorder{}
	out := r.turn(context.Background(), "RUNENV show me", "", rec)
	if out.err != nil {
		t.Fatal(out.err)
	}
	if res := onlyResult(t, rec); res.State != sessions.ToolDone {
		t.Fatalf("tool result %+v", res)
	}
	calls := r.api.Calls()
	env := calls[len(calls)-1].ToolResults[0].Content
	if !strings.Contains(env, "PATH=") {
		t.Fatalf("the env command did not show the CLI's environment: %q", env)
	}
	if strings.Contains(env, "ATELIER_TEST_HELPER_KEY") || strings.Contains(env, "sk-ant-from-helper") {
		t.Errorf("the helper's variable reached claude's Bash tool: %q", env)
	}
}

// TestRealToolsSeeNoKey: the key the configuration gives the CLI
// (ANTHROPIC_API_KEY) is not in the environment of the commands its Bash
// tool runs, nor are the other credentials it reads; the model got the
// command's output from the CLI, so it never saw the key either.
func TestRealToolsSeeNoKey(t *testing.T) {
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "sk-ant-auth-token-exported")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "aws-secret-exported")
	r, ok := newRealRig(t, false)
	if !ok {
		return
	}
	rec := &modeltest.Recorder{}
	out := r.turn(context.Background(), "RUNENV show me", "", rec)
	if out.err != nil {
		t.Fatal(out.err)
	}
	if res := onlyResult(t, rec); res.State != sessions.ToolDone {
		t.Fatalf("tool result %+v", res)
	}
	calls := r.api.Calls()
	env := calls[len(calls)-1].ToolResults[0].Content
	if !strings.Contains(env, "PATH=") || !strings.Contains(env, "CLAUDE_CODE_DISABLE_NONSTREAMING_FALLBACK=1") {
		t.Fatalf("the env command did not show the CLI's environment: %q", env)
	}
	for _, secret := range []string{"sk-ant-test-key", "ANTHROPIC_API_KEY", "aws-secret-exported"} {
		if strings.Contains(env, secret) {
			t.Errorf("%s reached claude's Bash tool: %q", secret, env)
		}
	}
}

// TestRealNotLoggedIn: a CLI with no login, and one whose key the API
// refuses, fail the turn with ErrNotLoggedIn and say how to log in.
func TestRealNotLoggedIn(t *testing.T) {
	t.Run("no login", func(t *testing.T) {
		r, ok := newRealRigWith(t, false, func(s *Settings, _ string) {
			s.BaseURL, s.APIKey, s.Environ = "", "", []string{}
		})
		if !ok {
			return
		}
		out := r.turn(context.Background(), "hello", "", &modeltest.Recorder{})
		t.Logf("error: %v", out.err)
		if !errors.Is(out.err, ErrNotLoggedIn) || !strings.Contains(out.err.Error(), "Not logged in") ||
			!strings.Contains(out.err.Error(), "claude /login") || !strings.Contains(out.err.Error(), "api_key_env") {
			t.Fatalf("err %v", out.err)
		}
	})
	t.Run("key refused", func(t *testing.T) {
		r, ok := newRealRig(t, true)
		if !ok {
			return
		}
		r.api.RequireKey("sk-ant-another-key")
		out := r.turn(context.Background(), "hello", "", &modeltest.Recorder{})
		t.Logf("error: %v", out.err)
		if !errors.Is(out.err, ErrNotLoggedIn) || !errors.Is(out.err, ErrAPI) || !strings.Contains(out.err.Error(), "ANTHROPIC_API_KEY") {
			t.Fatalf("err %v", out.err)
		}
	})
}
