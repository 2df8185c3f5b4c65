package claude

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/modeltest"
	"github.com/atelier-studio/atelier/harness/procpool"
	"github.com/atelier-studio/atelier/internal/agenttest"
	"github.com/atelier-studio/atelier/terminal"
)

// TestDeclaredEnv: Claude Code's own variables pass, other programs' do
// not.
func TestDeclaredEnv(t *testing.T) {
	pass := []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL",
		"ANTHROPIC_VERTEX_PROJECT_ID", "CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "CLAUDE_CODE_OAUTH_TOKEN",
		"CLAUDE_CONFIG_DIR", "AWS_REGION", "AWS_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
		"AWS_SESSION_TOKEN", "AWS_BEARER_TOKEN_BEDROCK", "CLOUD_ML_REGION", "GOOGLE_APPLICATION_CREDENTIALS",
		"GOOGLE_CLOUD_PROJECT", "VERTEX_REGION_CLAUDE_3_5_SONNET"}
	stay := []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "CODEX_API_KEY", "CODEX_HOME", "AZURE_OPENAI_API_KEY",
		"GITHUB_TOKEN", "GEMINI_API_KEY", "AWS_DEFAULT_REGION", "CLAUDE", "CLAUDECODE", "MY_ANTHROPIC_KEY"}
	var environ []string
	for _, n := range append(slices.Clone(pass), stay...) {
		environ = append(environ, n+"=v")
	}
	got := DeclaredEnv(environ)
	for _, n := range pass {
		if !slices.Contains(got, n+"=v") {
			t.Errorf("%s does not pass", n)
		}
	}
	if len(got) != len(pass) {
		t.Errorf("passed %q", got)
	}
}

// TestSettingsEnv: the CLI's variables are inherited from Environ (the
// process's own when nil); explicit settings win over them; with a base
// URL the inherited credentials stay out.
func TestSettingsEnv(t *testing.T) {
	environ := []string{"ANTHROPIC_API_KEY=inherited-key", "ANTHROPIC_BASE_URL=http://inherited",
		"CLAUDE_CODE_USE_BEDROCK=1", "AWS_REGION=eu-west-1", "OPENAI_API_KEY=foreign", "GITHUB_TOKEN=foreign"}
	tests := []struct {
		name     string
		set      Settings
		has, not []string
	}{
		{name: "inherited", set: Settings{Environ: environ},
			has: []string{"ANTHROPIC_API_KEY=inherited-key", "ANTHROPIC_BASE_URL=http://inherited", "CLAUDE_CODE_USE_BEDROCK=1", "AWS_REGION=eu-west-1"},
			not: []string{"OPENAI_API_KEY=foreign", "GITHUB_TOKEN=foreign"}},
		{name: "explicit key wins", set: Settings{Environ: environ, APIKey: "explicit-key"},
			has: []string{"ANTHROPIC_API_KEY=explicit-key", "ANTHROPIC_BASE_URL=http://inherited"},
			not: []string{"ANTHROPIC_API_KEY=inherited-key"}},
		{name: "explicit server drops inherited credentials", set: Settings{Environ: environ, BaseURL: "http://gateway"},
			has: []string{"ANTHROPIC_BASE_URL=http://gateway", "AWS_REGION=eu-west-1"},
			not: []string{"ANTHROPIC_API_KEY=inherited-key", "ANTHROPIC_BASE_URL=http://inherited"}},
		{name: "explicit server and key", set: Settings{Environ: environ, BaseURL: "http://gateway", APIKey: "gw-key"},
			has: []string{"ANTHROPIC_BASE_URL=http://gateway", "ANTHROPIC_API_KEY=gw-key"},
			not: []string{"ANTHROPIC_API_KEY=inherited-key"}},
		{name: "the agent's env wins last", set: Settings{Environ: environ, APIKey: "explicit-key", Env: []string{"ANTHROPIC_API_KEY=from-env-table"}},
			has: []string{"ANTHROPIC_API_KEY=from-env-table"},
			not: []string{"ANTHROPIC_API_KEY=explicit-key"}},
		{name: "nothing inherited", set: Settings{Environ: []string{}},
			not: []string{"ANTHROPIC_API_KEY=inherited-key"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, _, err := tt.set.env("")
			if err != nil {
				t.Fatal(err)
			}
			for _, kv := range tt.has {
				if !slices.Contains(env, kv) {
					t.Errorf("%s missing from %q", kv, env)
				}
			}
			for _, kv := range tt.not {
				if slices.Contains(env, kv) {
					t.Errorf("%s in %q", kv, env)
				}
			}
			seen := map[string]bool{}
			for _, kv := range env {
				name, _, _ := strings.Cut(kv, "=")
				if seen[name] {
					t.Errorf("%s twice in %q", name, env)
				}
				seen[name] = true
			}
		})
	}
	t.Run("the process's own environment", func(t *testing.T) {
		t.Setenv("ANTHROPIC_AUTH_TOKEN", "from-the-process")
		env, _, err := (Settings{}).env("")
		if err != nil || !slices.Contains(env, "ANTHROPIC_AUTH_TOKEN=from-the-process") {
			t.Errorf("env %q, %v", env, err)
		}
	})
}

// TestProcessSeesOwnVariablesOnly runs the adapter's command line in an
// environment holding everybody's variables (as a container's may): the
// CLI sees its own and ours, not another program's.
func TestProcessSeesOwnVariablesOnly(t *testing.T) {
	ws := t.TempDir()
	env, err := terminal.NewLocal(terminal.LocalConfig{Workspace: ws, BaseEnv: []string{"PATH=/usr/bin:/bin", "HOME=" + ws,
		"OPENAI_API_KEY=foreign-openai", "ATELIER_TEST_OTHER=foreign-other", "CLAUDE_CODE_IN_IMAGE=image-own"}})
	if err != nil {
		t.Fatal(err)
	}
	defer mustClose(t, env)
	h := &agenttest.Host{Dir: ws, Env: env}
	show := `echo "key=$ANTHROPIC_API_KEY region=$AWS_REGION image=$CLAUDE_CODE_IN_IMAGE openai=$OPENAI_API_KEY other=$ATELIER_TEST_OTHER" >&2; exit 3`
	a := newTestAgent(t, Settings{Command: []string{"sh", "-c", show, "sh"},
		Environ: []string{"ANTHROPIC_API_KEY=sk-inherited", "AWS_REGION=eu-west-1", "OPENAI_API_KEY=foreign-parent"}})
	out := runTurn(t, a, context.Background(), harness.TurnRequest{SessionID: "s", Input: "hi"}, &modeltest.Recorder{}, h)
	want := "key=sk-inherited region=eu-west-1 image=image-own openai= other="
	if !strings.Contains(out.err.Error(), want) {
		t.Errorf("the CLI saw another environment:\n%v\nwant %q", out.err, want)
	}
}

// Lines Claude Code 2.1.197 printed without a login, and with a key the
// API refused (recorded against the real CLI).
const (
	notLoggedInLine   = `{"type":"assistant","message":{"id":"17090362-298b-4cd1-9329-137450829583","model":"<synthetic>","role":"assistant","type":"message","content":[{"type":"text","text":"Not logged in · Please run /login"}]},"parent_tool_use_id":null,"session_id":"` + sid + `","error":"authentication_failed"}`
	notLoggedInResult = `{"type":"result","subtype":"success","is_error":true,"api_error_status":null,"num_turns":1,"result":"Not logged in · Please run /login","session_id":"` + sid + `","total_cost_usd":0,"usage":{"input_tokens":0,"output_tokens":0}}`
	badKeyLine        = `{"type":"assistant","message":{"id":"067b42b1-0238-4bde-8351-42371e98aa62","model":"<synthetic>","role":"assistant","type":"message","content":[{"type":"text","text":"Invalid API key · Fix external API key"}]},"parent_tool_use_id":null,"session_id":"` + sid + `","error":"authentication_failed"}`
	badKeyResult      = `{"type":"result","subtype":"success","is_error":true,"api_error_status":401,"num_turns":1,"result":"Invalid API key · Fix external API key","session_id":"` + sid + `","total_cost_usd":0,"usage":{"input_tokens":0,"output_tokens":0}}`
)

// TestNotLoggedIn: a CLI that says it has no login (or whose key the API
// refuses) fails the turn with ErrNotLoggedIn, saying how to log in.
func TestNotLoggedIn(t *testing.T) {
	for _, tt := range []struct {
		name  string
		lines []string
		also  error
	}{
		{"no login", []string{notLoggedInLine, notLoggedInResult}, ErrTurnFailed},
		{"key refused", []string{badKeyLine, badKeyResult}, ErrAPI},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := scriptHost(t, func(f *fakeProc) {
				f.answerInit(expect(f, "control_request/initialize"))
				u := expect(f, "user")
				sendAll(f, initLine())
				f.replay(u)
				sendAll(f, tt.lines...)
				for f.read() != nil {
				}
				f.Exit(0)
			})
			a := newTestAgent(t, Settings{})
			out := runTurn(t, a, context.Background(), harness.TurnRequest{SessionID: "s", Input: "hi"}, &modeltest.Recorder{}, h)
			if !errors.Is(out.err, ErrNotLoggedIn) || !errors.Is(out.err, tt.also) {
				t.Fatalf("err %v", out.err)
			}
			for _, s := range []string{"claude /login", "ANTHROPIC_API_KEY", "api_key_env"} {
				if !strings.Contains(out.err.Error(), s) {
					t.Errorf("%q does not say %q", out.err, s)
				}
			}
			closeSession(t, a, "s")
		})
	}
}

// TestCloseWhileStarting: a session closed while its CLI starts does not
// keep that CLI running: it is killed, and the turn fails.
func TestCloseWhileStarting(t *testing.T) {
	spawning, release := make(chan struct{}), make(chan struct{})
	var f *fakeProc
	var once sync.Once
	h := &agenttest.Host{Dir: "/home/dev/project"}
	h.Fake = func(argv, env []string) (terminal.Process, error) {
		once.Do(func() { close(spawning) })
		<-release
		f = newFakeProc()
		go func() {
			for f.read() != nil {
			}
		}()
		return f, nil
	}
	a := newTestAgent(t, Settings{})
	done := make(chan turnOut, 1)
	go func() {
		res, err := a.Turn(context.Background(), harness.TurnRequest{SessionID: "s", Input: "hi"}, &modeltest.Recorder{}, h)
		done <- turnOut{res, err}
	}()
	<-spawning
	if err := a.CloseSession("s"); err != nil {
		t.Fatal(err)
	}
	close(release)
	var out turnOut
	select {
	case out = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the turn did not end")
	}
	if !errors.Is(out.err, procpool.ErrClosed) {
		t.Fatalf("err %v", out.err)
	}
	select {
	case <-f.Done():
	default:
		t.Fatal("the CLI started for a closed session still runs")
	}
}
