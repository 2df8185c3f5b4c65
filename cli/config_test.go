package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigErrors: a broken configuration stops a command with exit code
// 2 and says where: the file, the line and the key.
func TestConfigErrors(t *testing.T) {
	cases := []struct {
		name, toml string
		says       []string
	}{
		{"wrong type", "[engine]\nworkers = \"four\"\n", []string{":2:", "engine.workers"}},
		{"unknown key", "default_agent = \"demo\"\n\n[agents.local]\nharness = \"openai\"\nmodle = \"x\"\n", []string{":5:", "agents.local.modle"}},
		{"bad TOML", "[ui]\ntheme = \"dark\n", []string{":2"}},
		{"bad value", "[agents.a]\nharness = \"demo\"\napproval = \"sometimes\"\n", []string{":3:", "agents.a.approval"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := isolate(t)
			file := filepath.Join(cfg, "atelier", "config.toml")
			writeFile(t, file, c.toml)
			ws := t.TempDir()
			for _, args := range [][]string{{"sessions", "-w", ws}, {"run", "-w", ws, "hello"}, {"actions", "-w", ws}} {
				r := cli(t, args...).want(t, ExitUsage)
				for _, want := range append([]string{file}, c.says...) {
					if !strings.Contains(r.err, want) {
						t.Errorf("%s: stderr does not say %q:\n%s", args[0], want, r.err)
					}
				}
			}
			if len(readSessions(ws)) != 0 {
				t.Error("a command with a broken configuration made a session")
			}
		})
	}
}

// TestUntrustedWorkspaceConfig: a workspace's .atelier.toml is ignored
// until trusted, with a notice; once trusted, its agent exists.
func TestUntrustedWorkspaceConfig(t *testing.T) {
	isolate(t)
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, ".atelier.toml"), "default_agent = \"mine\"\n\n[agents.mine]\nharness = \"demo\"\n")
	r := fast(t, "run", "-w", ws, "--agent", "mine", "hello").want(t, ExitUsage)
	if !strings.Contains(r.err, ".atelier.toml") || !strings.Contains(r.err, "unknown agent") {
		t.Errorf("untrusted: stderr should carry the notice and refuse the agent:\n%s", r.err)
	}
	r = cli(t, "sessions", "-w", ws).want(t, ExitOK)
	if !strings.Contains(r.err, ".atelier.toml is not trusted") {
		t.Errorf("no notice of the untrusted file:\n%s", r.err)
	}
	cli(t, "trust", "-w", ws, "--yes").want(t, ExitOK)
	r = fast(t, "run", "-w", ws, "--approve", "auto", "hello").want(t, ExitOK)
	if !strings.Contains(r.err, "(mine)") {
		t.Errorf("trusted: the workspace's default agent should run:\n%s", r.err)
	}
}
