package cli

import (
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/internal/redact"
)

// What a client hands over is what the agent reads and nothing else; the
// host builds another harness only for values that differ from its own,
// and redacts the keys among them.
func TestHandedVariables(t *testing.T) {
	user := filepath.Join(t.TempDir(), "config.toml")
	toml := `[agents.cc]
harness = "claude"
[agents.cc.env]
GITHUB_TOKEN = "${GH_PAT}"
[agents.api]
harness = "anthropic"
api_key_env = "MY_ANTHROPIC"
`
	if err := os.WriteFile(user, []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	hostEnv := map[string]string{"MY_ANTHROPIC": "host-anthropic-key", "GH_PAT": "host-pat-value"}
	getenv := func(k string) string { return hostEnv[k] }
	cfg, err := config.Load(config.LoadOptions{UserConfigPath: user, Env: getenv})
	if err != nil {
		t.Fatal(err)
	}
	a := newAgents(cfg, getenv)
	a.red = redact.New(nil)
	client := []string{"PATH=/client/bin", "LD_PRELOAD=/evil.so", "ANTHROPIC_API_KEY=sk-client-claude-key",
		"CLAUDE_CODE_USE_BEDROCK=1", "GH_PAT=client-pat-value", "MY_ANTHROPIC=host-anthropic-key", "OPENAI_API_KEY=sk-openai-unrelated"}

	if got, want := a.handed("cc", client), map[string]string{"ANTHROPIC_API_KEY": "sk-client-claude-key",
		"CLAUDE_CODE_USE_BEDROCK": "1", "GH_PAT": "client-pat-value"}; !maps.Equal(got, want) {
		t.Fatalf("handed for claude: %v, want %v", got, want)
	}
	if got, want := a.handed("api", client), map[string]string{"MY_ANTHROPIC": "host-anthropic-key"}; !maps.Equal(got, want) {
		t.Fatalf("handed for anthropic: %v, want %v", got, want)
	}
	if got := a.handed("demo", client); got != nil {
		t.Fatalf("handed for demo: %v", got)
	}

	// The same values as the host's: the one harness of the agent.
	h1, _, err := a.Resolve("api")
	if err != nil {
		t.Fatal(err)
	}
	h2, _, err := a.ResolveEnv("api", a.handed("api", client))
	if err != nil || h2 != h1 {
		t.Fatalf("equal values built another harness (%v)", err)
	}
	// Another key: another harness, and the key is redacted from then on.
	h3, _, err := a.ResolveEnv("api", map[string]string{"MY_ANTHROPIC": "sk-another-client-key", "LD_PRELOAD": "/evil.so"})
	if err != nil || h3 == h1 {
		t.Fatalf("another key shared the host's harness (%v)", err)
	}
	if got := a.red.Redact("sk-another-client-key"); got != redact.Marker("MY_ANTHROPIC") {
		t.Fatalf("the handed key is not redacted: %q", got)
	}
	// A variable the agent does not read changes nothing.
	if h4, _, _ := a.ResolveEnv("api", map[string]string{"LD_PRELOAD": "/evil.so"}); h4 != h1 {
		t.Fatal("an undeclared variable built another harness")
	}
	// The claude agent's settings carry the client's ${GH_PAT}, and its
	// CLI inherits the client's key, not an undeclared variable.
	_, set, err := a.ResolveEnv("cc", a.handed("cc", client))
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Env) != 1 || set.Env[0] != "GITHUB_TOKEN=client-pat-value" {
		t.Fatalf("claude agent env %v", set.Env)
	}
	if got := a.red.Redact("client-pat-value sk-client-claude-key"); got != redact.Marker("GITHUB_TOKEN")+" "+redact.Marker("ANTHROPIC_API_KEY") {
		t.Fatalf("claude's handed secrets: %q", got)
	}
	inh := a.inherited(map[string]string{"ANTHROPIC_API_KEY": "sk-client-claude-key"})
	found := false
	for _, kv := range inh {
		if kv == "ANTHROPIC_API_KEY=sk-client-claude-key" {
			found = true
		}
		if kv == "LD_PRELOAD=/evil.so" {
			t.Fatal("an undeclared client variable reached the CLI")
		}
	}
	if !found {
		t.Fatal("the CLI does not inherit the client's key")
	}
}
