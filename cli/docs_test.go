package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/config"
)

func readDoc(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "docs", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestConfigurationDoc keeps docs/configuration.md complete: it embeds
// config.Example verbatim and names every key the config package knows
// (the keys Example sets, which the config package's own test keeps
// complete).
func TestConfigurationDoc(t *testing.T) {
	doc := readDoc(t, "configuration.md")
	if !strings.Contains(doc, "```toml\n"+config.Example+"```") {
		t.Error("docs/configuration.md does not embed config.Example as it is now")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "config.toml")
	writeFile(t, file, config.Example)
	cfg, err := config.Load(config.LoadOptions{Workspace: t.TempDir(), UserConfigPath: file, Env: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	for _, e := range cfg.Effective() {
		parts := strings.Split(e.Key, ".")
		switch {
		case parts[0] == "agents" && len(parts) >= 3:
			keys["agents.<name>."+parts[2]] = true
		case parts[0] == "keys":
			keys["keys.<action>"] = true
		default:
			keys[e.Key] = true
		}
	}
	if len(keys) < 20 {
		t.Fatalf("only %d keys from the example: %v", len(keys), keys)
	}
	for k := range keys {
		if !strings.Contains(doc, "`"+k+"`") {
			t.Errorf("docs/configuration.md does not document %s", k)
		}
	}
	for _, field := range []string{"tool", "pattern", "action"} {
		if !strings.Contains(doc, "| `"+field+"` |") {
			t.Errorf("docs/configuration.md does not document the rule field %s", field)
		}
	}
}

// TestCLIDoc keeps docs/cli.md in step with the command line: every
// command, every exit code, every --json event type.
func TestCLIDoc(t *testing.T) {
	doc := readDoc(t, "cli.md")
	for _, p := range commandPaths() {
		if len(p) == 0 || p[0] == "completion" {
			continue
		}
		name := strings.Join(p, " ")
		if len(p) > 1 {
			name = strings.Join(p[1:], " ") // sessions subcommands are listed without "sessions"
		}
		if !strings.Contains(doc, "`"+name) && !strings.Contains(doc, "atelier "+strings.Join(p, " ")) {
			t.Errorf("docs/cli.md does not mention %s", strings.Join(p, " "))
		}
	}
	for _, code := range []int{ExitOK, ExitFailed, ExitUsage, ExitCancelled, ExitNeedsYou, ExitTimedOut} {
		if !strings.Contains(doc, "| "+strconv.Itoa(code)+" |") {
			t.Errorf("docs/cli.md has no row for exit code %d", code)
		}
	}
	for _, typ := range []string{"session_created", "status", "delta", "message", "interaction", "queue", "commit", "notice", "ended", "key"} {
		if !strings.Contains(doc, "| `"+typ+"` |") {
			t.Errorf("docs/cli.md does not describe the %s event", typ)
		}
	}
}

// TestReadme keeps the README's promises: its set-up block is exactly the
// two commands a fresh machine with Go needs (open the studio, run the
// tests), it says how to get the `atelier` command every other page uses,
// and everything it links or names as a path is in this repository.
func TestReadme(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	_, setup, ok := strings.Cut(doc, "## Set up\n")
	if !ok {
		t.Fatal("README.md has no Set up section")
	}
	_, block, _ := strings.Cut(setup, "```sh\n")
	block, _, _ = strings.Cut(block, "```")
	var cmds []string
	for _, l := range strings.Split(strings.TrimSpace(block), "\n") {
		cmd, _, _ := strings.Cut(l, "#")
		cmds = append(cmds, strings.TrimSpace(cmd))
	}
	if !slices.Equal(cmds, []string{"go run .", "go test ./..."}) {
		t.Errorf("the set-up block runs %q, want exactly go run . and go test ./...", cmds)
	}
	if !strings.Contains(setup, "`go install .`") || !strings.Contains(setup, "`./atelier`") {
		t.Error("the set-up does not say how to get the atelier binary (go install ., or go build's ./atelier)")
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	var targets []string
	for _, m := range regexp.MustCompile(`\]\(([^)]+)\)`).FindAllStringSubmatch(doc, -1) {
		targets = append(targets, m[1])
	}
	for _, m := range regexp.MustCompile("`((?:\\.\\./|docs/|\\.ci/)[^` ]*)`").FindAllStringSubmatch(doc, -1) {
		targets = append(targets, m[1])
	}
	if len(targets) == 0 {
		t.Fatal("found no links or paths in README.md")
	}
	for _, target := range targets {
		if strings.Contains(target, "://") {
			t.Errorf("README.md links out of the repository: %s", target)
			continue
		}
		path, _, _ := strings.Cut(target, "#")
		full := filepath.Join(repo, filepath.FromSlash(path))
		if rel, err := filepath.Rel(repo, full); err != nil || strings.HasPrefix(rel, "..") {
			t.Errorf("README.md names %s, outside the repository", target)
			continue
		}
		if _, err := os.Stat(full); err != nil {
			t.Errorf("README.md names %s: %v", target, err)
		}
	}
}
