package codex

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// providersConfig is a config.toml as Codex's documentation writes them:
// providers whose key and headers come from variables, and MCP servers
// that get variables forwarded, a token and a header.
const providersConfig = `
model_provider = "azure"

[model_providers.azure]
name = "Azure"
base_url = "https://example.openai.azure.com/openai"
env_key = "AZURE_KEY_OF_MINE"
wire_api = "responses"

[model_providers.openrouter]
name = "OpenRouter"
base_url = "https://openrouter.example/api/v1"
env_key = "OPENROUTER_API_KEY"
env_http_headers = { "X-Title" = "OPENROUTER_TITLE" }

[model_providers.ollama]
name = "Ollama"
base_url = "http://localhost:11434/v1"

[mcp_servers.docs]
command = "docs-mcp"
env_vars = ["DOCS_INDEX", { name = "DOCS_TOKEN", source = "local" }]

[mcp_servers.tracker]
url = "https://tracker.example/mcp"
bearer_token_env_var = "TRACKER_TOKEN"
env_http_headers = { "X-Team" = "TRACKER_TEAM" }
`

func writeConfig(t *testing.T, dir, text string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, configFile), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestConfigNames: every variable the configuration names, and only
// those; overrides replace what the file says, as `codex -c` does.
func TestConfigNames(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, providersConfig)
	tests := []struct {
		name      string
		home      string
		overrides []string
		want      []string
	}{
		{name: "file", home: dir, want: []string{"AZURE_KEY_OF_MINE", "DOCS_INDEX", "DOCS_TOKEN",
			"OPENROUTER_API_KEY", "OPENROUTER_TITLE", "TRACKER_TEAM", "TRACKER_TOKEN"}},
		{name: "no home", home: "", want: nil},
		{name: "no file", home: t.TempDir(), want: nil},
		{name: "overrides alone", home: "", overrides: []string{
			`model_providers.gw.env_key="GW_KEY"`, `model_providers.gw.env_http_headers={ "X-Org" = "GW_ORG" }`,
			`mcp_servers.x.env_vars=["X_VAR"]`, "model=gpt-5.5", "not an override"},
			want: []string{"GW_KEY", "GW_ORG", "X_VAR"}},
		{name: "an override replaces the file's", home: dir, overrides: []string{
			"model_providers.azure.env_key=AZURE_OTHER", // not TOML: the literal string, as Codex takes it
			`mcp_servers.docs.env_vars=[]`},
			want: []string{"AZURE_OTHER", "OPENROUTER_API_KEY", "OPENROUTER_TITLE", "TRACKER_TEAM", "TRACKER_TOKEN"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := configNames(tt.home, tt.overrides)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("names %q, want %q", got, tt.want)
			}
		})
	}
}

// TestConfigNamesBadFile: a config.toml that is not TOML, or that cannot
// be read, is an error naming it, and the CLI does not start on it.
func TestConfigNamesBadFile(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, "[model_providers.x\nenv_key = 1\n")
	_, err := configNames(dir, nil)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, configFile)) {
		t.Fatalf("err %v", err)
	}
	a := New(Settings{Home: dir, Environ: []string{}})
	if _, err := a.env(); err == nil {
		t.Fatal("env built on a broken configuration")
	}
	unreadable := t.TempDir()
	if err := os.Mkdir(filepath.Join(unreadable, configFile), 0o755); err != nil { // a folder cannot be read as a file
		t.Fatal(err)
	}
	if _, err := configNames(unreadable, nil); err == nil || !strings.Contains(err.Error(), configFile) {
		t.Fatalf("err %v", err)
	}
}

// TestEnvPassesConfiguredVariables: the variables the configuration names
// pass from Environ to Codex, wherever the configuration is found (the
// Home setting, CODEX_HOME, ~/.codex); no other variable does.
func TestEnvPassesConfiguredVariables(t *testing.T) {
	home := t.TempDir()
	writeConfig(t, filepath.Join(home, ".codex"), providersConfig)
	codexHome := t.TempDir()
	writeConfig(t, codexHome, providersConfig)
	others := []string{"GITHUB_TOKEN=foreign", "ANTHROPIC_API_KEY=foreign", "AZURE_KEY_OF_MINE_TOO=foreign"}
	configured := []string{"AZURE_KEY_OF_MINE=az", "OPENROUTER_TITLE=title", "DOCS_TOKEN=docs", "TRACKER_TOKEN=tr"}
	tests := []struct {
		name    string
		s       Settings
		environ []string
	}{
		{name: "Home setting", s: Settings{Home: codexHome}, environ: []string{"HOME=/nowhere"}},
		{name: "CODEX_HOME", environ: []string{"CODEX_HOME=" + codexHome}},
		{name: "~/.codex", environ: []string{"HOME=" + home}},
		{name: "CODEX_HOME in the agent's env", s: Settings{Env: []string{"CODEX_HOME=" + codexHome}}},
		{name: "with a base URL", s: Settings{Home: codexHome, BaseURL: "http://gateway/v1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.s.Environ = slices.Concat(tt.environ, configured, others)
			env, err := New(tt.s).env()
			if err != nil {
				t.Fatal(err)
			}
			for _, kv := range configured {
				if !slices.Contains(env, kv) {
					t.Errorf("%s missing from %q", kv, env)
				}
			}
			for _, kv := range env {
				if strings.Contains(kv, "foreign") {
					t.Errorf("%s passed: %q", kv, env)
				}
			}
		})
	}
	t.Run("DeclaredEnv", func(t *testing.T) {
		got := DeclaredEnv(slices.Concat([]string{"CODEX_HOME=" + codexHome}, configured, others))
		if want := append([]string{"CODEX_HOME=" + codexHome}, configured...); !slices.Equal(got, want) {
			t.Errorf("DeclaredEnv = %q, want %q", got, want)
		}
	})
}
