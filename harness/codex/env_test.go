package codex

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/modeltest"
	"github.com/atelier-studio/atelier/internal/agenttest"
	"github.com/atelier-studio/atelier/terminal"
)

// TestDeclaredEnv: Codex's own variables pass, other programs' do not.
func TestDeclaredEnv(t *testing.T) {
	pass := []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_ORG_ID", "CODEX_API_KEY", "CODEX_HOME",
		"CODEX_CA_CERTIFICATE", "AZURE_OPENAI_API_KEY", "AZURE_OPENAI_ENDPOINT"}
	stay := []string{"ANTHROPIC_API_KEY", "CLAUDE_CODE_USE_BEDROCK", "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN",
		"AZURE_CLIENT_SECRET", "MY_OPENAI_KEY", "CODEX"}
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

// TestSettingsEnv: Codex's variables are inherited from Environ (the
// process's own when nil); explicit settings win over them; with a base
// URL the inherited keys stay out.
func TestSettingsEnv(t *testing.T) {
	environ := []string{"OPENAI_API_KEY=inherited-key", "CODEX_HOME=/inherited/codex", "AZURE_OPENAI_API_KEY=az",
		"ANTHROPIC_API_KEY=foreign", "GITHUB_TOKEN=foreign"}
	tests := []struct {
		name     string
		s        Settings
		has, not []string
	}{
		{name: "inherited", s: Settings{Environ: environ},
			has: []string{"OPENAI_API_KEY=inherited-key", "CODEX_HOME=/inherited/codex", "AZURE_OPENAI_API_KEY=az"},
			not: []string{"ANTHROPIC_API_KEY=foreign", "GITHUB_TOKEN=foreign"}},
		{name: "explicit key and home win", s: Settings{Environ: environ, APIKey: "explicit", Home: "/mine"},
			has: []string{"OPENAI_API_KEY=explicit", "CODEX_API_KEY=explicit", "CODEX_HOME=/mine"},
			not: []string{"OPENAI_API_KEY=inherited-key", "CODEX_HOME=/inherited/codex"}},
		{name: "explicit server drops inherited keys", s: Settings{Environ: environ, BaseURL: "http://gateway/v1"},
			has: []string{"CODEX_HOME=/inherited/codex"},
			not: []string{"OPENAI_API_KEY=inherited-key"}},
		{name: "explicit server and key", s: Settings{Environ: environ, BaseURL: "http://gateway/v1", APIKey: "gw"},
			has: []string{keyEnv + "=gw"},
			not: []string{"OPENAI_API_KEY=inherited-key", "OPENAI_API_KEY=gw"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, err := New(tt.s).env()
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
		})
	}
	t.Run("the process's own environment", func(t *testing.T) {
		t.Setenv("OPENAI_API_KEY", "from-the-process")
		env, err := New(Settings{}).env()
		if err != nil || !slices.Contains(env, "OPENAI_API_KEY=from-the-process") {
			t.Errorf("env %q, %v", env, err)
		}
	})
}

// TestProcessSeesOwnVariablesOnly runs the adapter's command line in an
// environment holding everybody's variables (as a container's may): Codex
// sees its own and ours, not another program's, as claude does.
func TestProcessSeesOwnVariablesOnly(t *testing.T) {
	ws := t.TempDir()
	env, err := terminal.NewLocal(terminal.LocalConfig{Workspace: ws, BaseEnv: []string{"PATH=/usr/bin:/bin", "HOME=" + ws,
		"ANTHROPIC_API_KEY=foreign-anthropic", "ATELIER_TEST_OTHER=foreign-other", "CODEX_IN_IMAGE=image-own"}})
	if err != nil {
		t.Fatal(err)
	}
	defer mustClose(t, env)
	show := `echo "key=$OPENAI_API_KEY image=$CODEX_IN_IMAGE anthropic=$ANTHROPIC_API_KEY other=$ATELIER_TEST_OTHER" >&2; exit 3`
	a := New(Settings{Command: []string{"sh", "-c", show, "sh"}, StartTimeout: 10 * time.Second,
		Environ: []string{"OPENAI_API_KEY=sk-inherited", "ANTHROPIC_API_KEY=foreign-parent"}})
	_, err = a.Turn(context.Background(), harness.TurnRequest{SessionID: "s1", Input: "hi"}, &modeltest.Recorder{}, &agenttest.Host{Dir: ws, Env: env})
	want := "key=sk-inherited image=image-own anthropic= other="
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Codex saw another environment:\n%v\nwant %q", err, want)
	}
}

// scriptedCodex plays app-server on a fake process: it answers
// initialize, thread/start and turn/start, and then sends what turn
// returns for the turn (notification lines, given their thread and turn
// ids). It exits when its input ends.
func scriptedCodex(f *agenttest.Proc, turn func(threadID, turnID string) []string) {
	defer f.Exit(0)
	in := bufio.NewScanner(f.InR)
	for in.Scan() {
		var m message
		if json.Unmarshal(in.Bytes(), &m) != nil || m.Method == "" || len(m.ID) == 0 {
			continue
		}
		var result string
		switch m.Method {
		case "initialize":
			result = `{"userAgent":"fake"}`
		case "thread/start":
			result = `{"thread":{"id":"th1"}}`
		case "turn/start":
			result = `{"turn":{"id":"tu1","status":"inProgress"}}`
		default:
			result = `{}`
		}
		if _, err := fmt.Fprintf(f.OutW, "{\"id\":%s,\"result\":%s}\n", m.ID, result); err != nil {
			return
		}
		if m.Method == "turn/start" && turn != nil {
			for _, l := range turn("th1", "tu1") {
				if _, err := fmt.Fprintln(f.OutW, l); err != nil {
					return
				}
			}
		}
	}
}

// TestNotLoggedIn: a turn the model API refused for want of a login or a
// valid key (as Codex 0.171 reports it) fails with ErrNotLoggedIn, saying
// how to log in; other failures do not.
func TestNotLoggedIn(t *testing.T) {
	failed := func(info string) func(threadID, turnID string) []string {
		return func(th, tu string) []string {
			e := `{"message":"unexpected status 401 Unauthorized: Missing bearer or basic authentication in header","codexErrorInfo":` + info + `}`
			return []string{
				`{"method":"error","params":{"error":` + e + `,"willRetry":false,"threadId":"` + th + `","turnId":"` + tu + `"}}`,
				`{"method":"turn/completed","params":{"threadId":"` + th + `","turn":{"id":"` + tu + `","status":"failed","error":` + e + `}}}`,
			}
		}
	}
	for _, tt := range []struct {
		name  string
		info  string
		login bool
	}{
		{"http 401", `{"httpConnectionFailed":{"httpStatusCode":401}}`, true},
		{"unauthorized", `"unauthorized"`, true},
		{"overloaded", `"serverOverloaded"`, false},
		{"http 500", `{"responseStreamDisconnected":{"httpStatusCode":500}}`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := &agenttest.Host{Dir: t.TempDir(), Fake: func([]string, []string) (terminal.Process, error) {
				f := agenttest.NewProc()
				go scriptedCodex(f, failed(tt.info))
				return f, nil
			}}
			a := New(Settings{})
			defer closeSession(t, a, "s1")
			_, err := a.Turn(context.Background(), harness.TurnRequest{SessionID: "s1", Input: "hi"}, &modeltest.Recorder{}, h)
			if !errors.Is(err, ErrTurnFailed) || errors.Is(err, ErrNotLoggedIn) != tt.login {
				t.Fatalf("err %v", err)
			}
			if tt.login && (!strings.Contains(err.Error(), "codex login") || !strings.Contains(err.Error(), "api_key_env")) {
				t.Errorf("%q does not say how to log in", err)
			}
		})
	}
}

// TestConcurrentStartsOneProcess: many callers asking for one session's
// process at once start exactly one.
func TestConcurrentStartsOneProcess(t *testing.T) {
	var spawned atomic.Int32
	gate := make(chan struct{})
	h := &agenttest.Host{Dir: t.TempDir(), Fake: func([]string, []string) (terminal.Process, error) {
		spawned.Add(1)
		f := agenttest.NewProc()
		go func() {
			<-gate // a slow start: the others pile up meanwhile
			scriptedCodex(f, nil)
		}()
		return f, nil
	}}
	a := New(Settings{})
	defer closeSession(t, a, "s1")
	const n = 16
	procs := make([]*proc, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { procs[i], errs[i] = a.session(context.Background(), "s1", h) })
	}
	time.Sleep(50 * time.Millisecond)
	close(gate)
	wg.Wait()
	if spawned.Load() != 1 {
		t.Fatalf("%d processes started for one session", spawned.Load())
	}
	for i := range n {
		if errs[i] != nil || procs[i] != procs[0] {
			t.Fatalf("caller %d: %p %v", i, procs[i], errs[i])
		}
	}
}
