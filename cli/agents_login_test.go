package cli

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/config"
)

// loginRig is a machine with fake claude and codex programs on PATH, an
// empty HOME and an environment of its own, for `atelier agents`' login
// check.
type loginRig struct {
	t    *testing.T
	home string
	env  map[string]string
}

func newLoginRig(t *testing.T) *loginRig {
	t.Helper()
	bin := t.TempDir()
	for _, name := range []string{"claude", "codex"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	home := t.TempDir()
	return &loginRig{t: t, home: home, env: map[string]string{"HOME": home}}
}

func (r *loginRig) getenv(k string) string { return r.env[k] }

func (r *loginRig) write(rel, content string) {
	r.t.Helper()
	p := filepath.Join(r.home, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		r.t.Fatal(err)
	}
}

// check runs the check of the agent name, configured by the TOML lines
// given (none: the detected agent).
func (r *loginRig) check(name string, toml ...string) (bool, string) {
	r.t.Helper()
	user := filepath.Join(r.t.TempDir(), "config.toml")
	if err := os.WriteFile(user, []byte(strings.Join(toml, "\n")+"\n"), 0o644); err != nil {
		r.t.Fatal(err)
	}
	cfg, err := config.Load(config.LoadOptions{UserConfigPath: user, Env: r.getenv})
	if err != nil {
		r.t.Fatal(err)
	}
	a := newAgents(cfg, r.getenv)
	ag, ok := a.agentFor(name)
	if !ok {
		r.t.Fatalf("no agent %s", name)
	}
	return a.check(ag)
}

// TestAgentsShowMissingLogin: `atelier agents` tells an agent CLI that
// has no login or key from one that has, from its variables and files,
// says how to log in, and says "may need a login" where it cannot tell.
func TestAgentsShowMissingLogin(t *testing.T) {
	const (
		ok    = "ok"
		no    = "not logged in"
		maybe = "may need a login"
	)
	tests := []struct {
		name  string
		agent string
		set   func(r *loginRig)
		toml  []string
		want  string
		hint  string // part of the advice
	}{
		{name: "claude without anything", agent: "claude", want: no, hint: "claude /login"},
		{name: "claude with a key exported", agent: "claude", want: ok,
			set: func(r *loginRig) { r.env["ANTHROPIC_API_KEY"] = "sk-ant-x" }},
		{name: "claude on Bedrock", agent: "claude", want: ok,
			set: func(r *loginRig) { r.env["CLAUDE_CODE_USE_BEDROCK"] = "1" }},
		{name: "claude with another program's key", agent: "claude", want: no, hint: "ANTHROPIC_API_KEY",
			set: func(r *loginRig) { r.env["OPENAI_API_KEY"] = "sk-x" }},
		{name: "claude logged in", agent: "claude", want: ok,
			set: func(r *loginRig) { r.write(".claude/.credentials.json", "{}") }},
		{name: "claude logged in elsewhere", agent: "claude", want: ok,
			set: func(r *loginRig) {
				r.env["CLAUDE_CONFIG_DIR"] = filepath.Join(r.home, "cc")
				r.write("cc/.credentials.json", "{}")
			}},
		{name: "claude with an oauth account", agent: "claude", want: ok,
			set: func(r *loginRig) { r.write(".claude.json", `{"oauthAccount":{"emailAddress":"a@b"}}`) }},
		{name: "claude state without a login", agent: "claude", want: no, hint: "api_key_env",
			set: func(r *loginRig) { r.write(".claude.json", `{"numStartups":3}`) }},
		{name: "claude settings may hold a key", agent: "claude", want: maybe,
			set: func(r *loginRig) { r.write(".claude/settings.json", `{"apiKeyHelper":"x"}`) }},
		{name: "claude key named in config", agent: "c",
			toml: []string{"[agents.c]", `harness = "claude"`, `api_key_env = "TEAM_KEY"`}, want: ok,
			set: func(r *loginRig) { r.env["TEAM_KEY"] = "k" }},
		{name: "claude key in the agent's env", agent: "c",
			toml: []string{"[agents.c]", `harness = "claude"`, "[agents.c.env]", `ANTHROPIC_AUTH_TOKEN = "${TOK}"`}, want: ok,
			set: func(r *loginRig) { r.env["TOK"] = "t" }},
		{name: "claude in a container", agent: "c",
			toml: []string{"[agents.c]", `harness = "claude"`, `execution = "docker"`, `image = "x"`}, want: maybe},
		{name: "claude behind a wrapper", agent: "c",
			toml: []string{"[agents.c]", `harness = "claude"`, `command = ["codex"]`}, want: maybe},
		{name: "claude on a gateway without a key", agent: "c",
			toml: []string{"[agents.c]", `harness = "claude"`, `base_url = "http://127.0.0.1:4000"`}, want: maybe, hint: "api_key_env"},
		{name: "codex without anything", agent: "codex", want: no, hint: "codex login"},
		{name: "codex with a key exported", agent: "codex", want: ok,
			set: func(r *loginRig) { r.env["OPENAI_API_KEY"] = "sk-x" }},
		{name: "codex with another program's key", agent: "codex", want: no,
			set: func(r *loginRig) { r.env["ANTHROPIC_API_KEY"] = "sk-ant-x" }},
		{name: "codex logged in", agent: "codex", want: ok,
			set: func(r *loginRig) { r.write(".codex/auth.json", "{}") }},
		{name: "codex logged in elsewhere", agent: "codex", want: ok,
			set: func(r *loginRig) {
				r.env["CODEX_HOME"] = filepath.Join(r.home, "ch")
				r.write("ch/auth.json", "{}")
			}},
		{name: "codex with a provider of its own", agent: "codex", want: maybe,
			set: func(r *loginRig) { r.write(".codex/config.toml", "model_provider = \"ollama\"\n") }},
		{name: "codex on a local server", agent: "x",
			toml: []string{"[agents.x]", `harness = "codex"`, `base_url = "http://127.0.0.1:11434/v1"`}, want: ok},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newLoginRig(t)
			if tt.set != nil {
				tt.set(r)
			}
			want := tt.want
			if runtime.GOOS == "darwin" && tt.agent == "claude" && want == no {
				want = maybe // the keychain may hold a login
			}
			avail, why := r.check(tt.agent, tt.toml...)
			switch want {
			case ok:
				if !avail || why != "" {
					t.Fatalf("available %v, %q: want available", avail, why)
				}
			case no:
				if avail || !strings.HasPrefix(why, no) {
					t.Fatalf("available %v, %q: want %q", avail, why, no)
				}
			case maybe:
				if !avail || !strings.HasPrefix(why, maybe) {
					t.Fatalf("available %v, %q: want available, %q", avail, why, maybe)
				}
			}
			if !strings.Contains(why, tt.hint) {
				t.Errorf("%q does not say %q", why, tt.hint)
			}
		})
	}
}
