package config

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestAPIKey(t *testing.T) {
	f := newFixture(t)
	f.env["MY_KEY"] = "the-key"
	f.env["OPENAI_API_KEY"] = "openai-key"
	f.writeUser(lines(
		"[agents.named]",
		`harness = "openai"`,
		`api_key_env = "MY_KEY"`,
		"[agents.unset]",
		`harness = "anthropic"`,
		`api_key_env = "NOT_SET_KEY"`,
		"[agents.usual]",
		`harness = "openai"`,
		"[agents.usual-unset]",
		`harness = "anthropic"`,
		"[agents.ollama]",
		`harness = "openai"`,
		`base_url = "http://localhost:11434/v1"`,
		`api_key_env = "OLLAMA_API_KEY"`,
		"[agents.lan]",
		`harness = "openai"`,
		`base_url = "http://192.168.1.20:1234/v1"`,
		"[agents.remote]",
		`harness = "openai"`,
		`base_url = "https://openrouter.ai/api/v1"`,
		`api_key_env = "OPENROUTER_API_KEY"`,
		"[agents.third-party]",
		`harness = "openai"`,
		`base_url = "https://example.com/v1"`,
		"[agents.cli]",
		`harness = "claude"`,
		"[agents.claude-proxy]",
		`harness = "claude"`,
		`base_url = "https://llm-gateway.example.com"`,
		`api_key_env = "MY_KEY"`,
		"[agents.claude-local]",
		`harness = "claude"`,
		`base_url = "http://127.0.0.1:4000"`,
		"[agents.claude-remote]",
		`harness = "claude"`,
		`base_url = "https://llm-gateway.example.com"`,
		"[agents.codex-proxy]",
		`harness = "codex"`,
		`base_url = "https://llm-gateway.example.com/v1"`,
		`api_key_env = "MY_KEY"`,
		"[agents.codex-remote]",
		`harness = "codex"`,
		`base_url = "https://llm-gateway.example.com/v1"`,
	))
	cfg := f.load()
	tests := []struct {
		agent   string
		want    string
		errVar  string
		errText string
	}{
		{agent: "named", want: "the-key"},
		{agent: "usual", want: "openai-key"},
		{agent: "ollama", want: ""},
		{agent: "lan", want: ""},
		{agent: "cli", want: ""},
		{agent: "claude-proxy", want: "the-key"},
		{agent: "claude-local", want: ""},
		{agent: "codex-proxy", want: "the-key"},
		{agent: "claude-remote", errVar: "-", errText: "(ANTHROPIC_API_KEY is only sent to the official API)"},
		{agent: "codex-remote", errVar: "-", errText: "(OPENAI_API_KEY is only sent to the official API)"},
		{agent: "demo", want: ""},
		{agent: "unset", errVar: "NOT_SET_KEY", errText: "agent unset: environment variable NOT_SET_KEY is not set (named by agents.unset.api_key_env at " + f.user + ":6)"},
		{agent: "usual-unset", errVar: "ANTHROPIC_API_KEY", errText: "name another variable with api_key_env"},
		{agent: "remote", errVar: "OPENROUTER_API_KEY", errText: f.user + ":21"},
		{agent: "third-party", errVar: "-", errText: "set api_key_env to the variable holding the key for https://example.com/v1"},
	}
	for _, tt := range tests {
		t.Run(tt.agent, func(t *testing.T) {
			a, ok := cfg.Agent(tt.agent)
			if !ok {
				t.Fatalf("no agent %s", tt.agent)
			}
			got, err := cfg.APIKey(a)
			if tt.errVar == "" {
				if err != nil || got != tt.want {
					t.Errorf("got %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			if tt.errVar == "-" {
				if !errors.Is(err, ErrNoAPIKeyEnv) || got != "" || !strings.Contains(err.Error(), tt.errText) {
					t.Errorf("got %q, %v; want ErrNoAPIKeyEnv saying %q", got, err, tt.errText)
				}
				return
			}
			var ee *EnvError
			if !errors.As(err, &ee) || !errors.Is(err, ErrEnvUnset) || ee.Var != tt.errVar {
				t.Fatalf("got %q, %v; want an EnvError for %s", got, err, tt.errVar)
			}
			if !strings.Contains(err.Error(), tt.errText) {
				t.Errorf("error %q does not contain %q", err, tt.errText)
			}
		})
	}
}

func TestAgentEnv(t *testing.T) {
	f := newFixture(t)
	f.env["GH"] = "token-value"
	f.writeUser(lines(
		"[agents.a]",
		`harness = "claude"`,
		"[agents.a.env]",
		`GITHUB_TOKEN = "${GH}"`,
		`GOFLAGS = "-mod=mod"`,
		`LITERAL = "$GH"`,
		"[agents.b]",
		`harness = "codex"`,
		"[agents.b.env]",
		`NPM_TOKEN = "${NPM}"`,
	))
	cfg := f.load()
	a, _ := cfg.Agent("a")
	env, err := cfg.AgentEnv(a)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"GITHUB_TOKEN=token-value", "GOFLAGS=-mod=mod", "LITERAL=$GH"}
	if !slices.Equal(env, want) {
		t.Errorf("env %v, want %v", env, want)
	}
	b, _ := cfg.Agent("b")
	_, err = cfg.AgentEnv(b)
	var ee *EnvError
	if !errors.As(err, &ee) || ee.Var != "NPM" || ee.Line != 10 {
		t.Errorf("got %v, want an EnvError for NPM at line 10", err)
	}
}

func TestLocalURL(t *testing.T) {
	for u, want := range map[string]bool{
		"http://localhost:11434/v1": true, "http://127.0.0.1:8080": true, "http://[::1]:1234/v1": true,
		"http://10.0.0.5/v1": true, "http://studio.local:1234": true, "http://host.docker.internal:11434": true,
		"https://api.openai.com/v1": false, "": false, "https://8.8.8.8/v1": false, "http://localhost.evil.com": false,
	} {
		if got := localURL(u); got != want {
			t.Errorf("localURL(%q) = %v, want %v", u, got, want)
		}
	}
}

// TestServerAndKeyOnAgentCLIs: base_url and api_key_env are accepted on
// claude and codex agents (their adapters point the CLI at the server and
// hand it the key), and kept in the agent.
func TestServerAndKeyOnAgentCLIs(t *testing.T) {
	for _, h := range []Harness{HarnessClaude, HarnessCodex} {
		t.Run(string(h), func(t *testing.T) {
			f := newFixture(t)
			f.env["GATEWAY_KEY"] = "gw-key"
			f.writeUser(lines(
				"[agents.gw]",
				`harness = "`+string(h)+`"`,
				`base_url = "https://llm-gateway.example.com/v1"`,
				`api_key_env = "GATEWAY_KEY"`,
			))
			cfg := f.load()
			a, ok := cfg.Agent("gw")
			if !ok || a.BaseURL != "https://llm-gateway.example.com/v1" || a.APIKeyEnv != "GATEWAY_KEY" {
				t.Fatalf("agent %+v", a)
			}
			if key, err := cfg.APIKey(a); err != nil || key != "gw-key" {
				t.Fatalf("key %q, %v", key, err)
			}
		})
	}
}

// A host resolves an agent with the variables its client handed over: they
// come before the host's own, and EnvRefs names what to hand over.
func TestWithEnvAndEnvRefs(t *testing.T) {
	f := newFixture(t)
	f.env["GH"] = "host-token"
	f.env["MY_KEY"] = "host-key"
	f.writeUser(lines(
		"[agents.a]",
		`harness = "anthropic"`,
		`api_key_env = "MY_KEY"`,
		"[agents.a.env]",
		`GITHUB_TOKEN = "${GH}"`,
		`PLAIN = "x"`,
		"[agents.b]",
		`harness = "openai"`,
		"[agents.c]",
		`harness = "openai"`,
		`base_url = "http://127.0.0.1:9/v1"`,
	))
	cfg := f.load()
	a, _ := cfg.Agent("a")
	b, _ := cfg.Agent("b")
	c, _ := cfg.Agent("c")
	for _, tt := range []struct {
		ag   Agent
		want []string
	}{{a, []string{"GH", "MY_KEY"}}, {b, []string{"OPENAI_API_KEY"}}, {c, nil}} {
		if got := cfg.EnvRefs(tt.ag); !slices.Equal(got, tt.want) {
			t.Errorf("EnvRefs(%s) = %v, want %v", tt.ag.Name, got, tt.want)
		}
	}
	over := cfg.WithEnv(map[string]string{"MY_KEY": "client-key", "GH": "client-token"})
	if key, err := over.APIKey(a); err != nil || key != "client-key" {
		t.Fatalf("APIKey with the client's env = %q, %v", key, err)
	}
	if env, err := over.AgentEnv(a); err != nil || !slices.Equal(env, []string{"GITHUB_TOKEN=client-token", "PLAIN=x"}) {
		t.Fatalf("AgentEnv with the client's env = %v, %v", env, err)
	}
	if key, _ := cfg.APIKey(a); key != "host-key" {
		t.Fatalf("WithEnv changed the original: %q", key)
	}
	// A variable the client lacks is still read from the host.
	if key, _ := cfg.WithEnv(map[string]string{"GH": "t"}).APIKey(a); key != "host-key" {
		t.Fatalf("fallback to the host's variable: %q", key)
	}
}
