package claude

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// userConfig writes a user's configuration as Claude Code's documentation
// shows it into home (~/.claude/settings.json, ~/.claude.json), and a
// project's into ws; it returns the variables the user's names.
func userConfig(t *testing.T, home, ws string) []string {
	t.Helper()
	writeFile(t, filepath.Join(home, ".claude", "settings.json"), `{
  "apiKeyHelper": "vault read -field=key \"$VAULT_PATH\" -token=${VAULT_TOKEN}",
  "awsAuthRefresh": "aws sso login --profile $SSO_PROFILE",
  "env": {"SET_BY_CLAUDE": "1"},
  "permissions": {"allow": ["Bash(echo $NOT_A_COMMAND)"]}
}`)
	writeFile(t, filepath.Join(home, ".claude.json"), `{
  "numStartups": 3,
  "mcpServers": {
    "gh": {"command": "gh-mcp", "args": ["$NOT_EXPANDED"], "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GH_MCP_TOKEN}"}},
    "web": {"type": "http", "url": "${WEB_URL:-https://web.example}/mcp", "headers": {"Authorization": "Bearer ${WEB_TOKEN}"}}
  },
  "projects": {
    "`+ws+`": {"mcpServers": {"local": {"command": "local-mcp", "args": ["--key", "${LOCAL_ARG}"]}}},
    "/another/project": {"mcpServers": {"o": {"command": "${OTHER_PROJECT}"}}}
  }
}`)
	// A project's files are the repository's: they name nothing.
	writeFile(t, filepath.Join(ws, ".claude", "settings.json"), `{"apiKeyHelper": "echo $PROJECT_TOKEN"}`)
	writeFile(t, filepath.Join(ws, ".claude", "settings.local.json"), `{"apiKeyHelper": "echo $PROJECT_LOCAL_TOKEN"}`)
	writeFile(t, filepath.Join(ws, ".mcp.json"), `{"mcpServers": {"p": {"command": "${PROJECT_MCP_TOKEN}"}}}`)
	return []string{"GH_MCP_TOKEN", "LOCAL_ARG", "SSO_PROFILE", "VAULT_PATH", "VAULT_TOKEN", "WEB_TOKEN", "WEB_URL"}
}

// TestConfigNames: the variables the user's helper commands read and
// those their MCP servers' definitions expand, and nothing else: not a
// project's, not another project's, not the env table Claude Code sets
// itself.
func TestConfigNames(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	want := userConfig(t, home, ws)
	dir, state := configDirs(nil, []string{"HOME=" + home})
	got, err := configNames(dir, state, ws)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("names %q, want %q", got, want)
	}
	// An older release's name for .claude.json wins, as Claude Code takes it.
	legacy := filepath.Join(home, ".claude", ".config.json")
	writeFile(t, legacy, `{"mcpServers": {"old": {"command": "${LEGACY_TOKEN}"}}}`)
	if _, state := configDirs(nil, []string{"HOME=" + home}); state != legacy {
		t.Errorf("state file %s, want %s", state, legacy)
	}
	if got, err := configNames(dir, legacy, ws); err != nil || !slices.Contains(got, "LEGACY_TOKEN") || slices.Contains(got, "GH_MCP_TOKEN") {
		t.Errorf("names with the older state file %q, %v", got, err)
	}
	for name, at := range map[string]string{"nothing": "", "no files": t.TempDir()} {
		got, err := configNames(at, filepath.Join(at, ".claude.json"), ws)
		if err != nil || len(got) != 0 {
			t.Errorf("%s: names %q, err %v", name, got, err)
		}
	}
}

// TestConfigNamesBadFile: a file that is not JSON, or cannot be read, is
// an error naming it, and the CLI does not start on it.
func TestConfigNamesBadFile(t *testing.T) {
	home := t.TempDir()
	bad := filepath.Join(home, ".claude", "settings.json")
	writeFile(t, bad, `{"apiKeyHelper": `)
	if _, _, err := (Settings{Home: home, Environ: []string{}}).env(""); err == nil || !strings.Contains(err.Error(), bad) {
		t.Fatalf("err %v", err)
	}
	state := t.TempDir() // a folder cannot be read as the file
	if _, err := configNames("", state, ""); err == nil || !strings.Contains(err.Error(), "claude configuration") {
		t.Fatalf("err %v", err)
	}
}

// TestEnvPassesConfiguredVariables: the variables the user's configuration
// names pass from Environ to the CLI, wherever that configuration is (the
// Home setting, HOME, CLAUDE_CONFIG_DIR), and are returned for the Bash
// tool to go without; no other variable passes; with Bare, none do.
func TestEnvPassesConfiguredVariables(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	names := userConfig(t, home, ws)
	configDir := t.TempDir()
	for _, f := range []string{".claude/settings.json", ".claude.json"} {
		b, err := os.ReadFile(filepath.Join(home, f))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(configDir, filepath.Base(f)), string(b))
	}
	var configured []string
	for _, n := range names {
		configured = append(configured, n+"=v")
	}
	others := []string{"GITHUB_TOKEN=foreign", "PROJECT_TOKEN=foreign", "PROJECT_MCP_TOKEN=foreign", "OTHER_PROJECT=foreign", "NOT_EXPANDED=foreign"}
	tests := []struct {
		name    string
		set     Settings
		environ []string
	}{
		{name: "Home setting", set: Settings{Home: home}, environ: []string{"HOME=/nowhere"}},
		{name: "HOME", environ: []string{"HOME=" + home}},
		{name: "CLAUDE_CONFIG_DIR", environ: []string{"CLAUDE_CONFIG_DIR=" + configDir}},
		{name: "with a base URL", set: Settings{Home: home, BaseURL: "http://gateway"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.set.Environ = slices.Concat(tt.environ, configured, others)
			env, got, err := tt.set.env(ws)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, names) {
				t.Errorf("configured %q, want %q", got, names)
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
		got := DeclaredEnv(slices.Concat([]string{"CLAUDE_CONFIG_DIR=" + configDir}, configured, others))
		var want []string
		for _, kv := range slices.Concat([]string{"CLAUDE_CONFIG_DIR=" + configDir}, configured) {
			if kv != "LOCAL_ARG=v" { // the workspace's servers: unknown here
				want = append(want, kv)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("DeclaredEnv = %q, want %q", got, want)
		}
	})
	t.Run("bare", func(t *testing.T) {
		env, got, err := Settings{Home: home, Bare: true, Environ: configured}.env(ws)
		if err != nil || len(got) != 0 || len(env) != len(quiet)+1 {
			t.Errorf("env %q, configured %q, err %v", env, got, err)
		}
	})
}

// TestScrubbedUnsetsConfigured runs the wrapper for real: a command of the
// Bash tool (which runs CLAUDE_ENV_FILE first) sees neither the CLI's
// credentials nor the configured variables, while the CLI has them; a
// name that is not one does not get into the script.
func TestScrubbedUnsetsConfigured(t *testing.T) {
	bash := `env >"$1.cli"; . "$CLAUDE_ENV_FILE"; echo "vault=$VAULT_TOKEN key=$ANTHROPIC_API_KEY kept=$KEPT"`
	out := filepath.Join(t.TempDir(), "out")
	argv := scrubbed([]string{"sh", "-c", bash, "sh", out}, []string{"VAULT_TOKEN", "BAD;touch " + out + ".pwned"})
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "VAULT_TOKEN=vault-secret", "ANTHROPIC_API_KEY=sk-key", "KEPT=yes"}
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if got := strings.TrimSpace(string(b)); got != "vault= key= kept=yes" {
		t.Errorf("the Bash tool's command saw %q", got)
	}
	cli, err := os.ReadFile(out + ".cli")
	if err != nil || !strings.Contains(string(cli), "VAULT_TOKEN=vault-secret") {
		t.Errorf("the CLI lost the configured variable: %q %v", cli, err)
	}
	if _, err := os.Stat(out + ".pwned"); err == nil {
		t.Error("a name from the configuration ran as a command")
	}
}
