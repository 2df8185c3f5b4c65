package config

import (
	"slices"
	"testing"
	"time"
)

func TestDefaultsWithNothingConfigured(t *testing.T) {
	f := newFixture(t)
	cfg := f.load()
	if cfg.DefaultAgent() != "demo" {
		t.Errorf("default agent %q, want demo", cfg.DefaultAgent())
	}
	agents := cfg.Agents()
	if len(agents) != 1 || agents[0].Name != "demo" || agents[0].Harness != HarnessDemo {
		t.Fatalf("agents %+v, want only demo", agents)
	}
	demo, ok := cfg.Agent("demo")
	if !ok || demo.Approval != ApprovalAsk || demo.Execution != ExecutionLocal || !slices.Equal(demo.Tools, AllTools()) {
		t.Errorf("demo agent %+v lacks its defaults", demo)
	}
	if cfg.UI.Theme != "auto" || cfg.UI.Notifications != "auto" || cfg.Engine.Workers != DefaultWorkers ||
		cfg.Engine.StuckAfter != DefaultStuckAfter || cfg.History.MaxFileSize != DefaultMaxFileSize ||
		cfg.Docker.Network != "none" {
		t.Errorf("studio defaults wrong: %+v %+v %+v %+v", cfg.UI, cfg.Engine, cfg.History, cfg.Docker)
	}
	if cfg.WorkspaceTrust != TrustNone || len(cfg.Notices) != 0 {
		t.Errorf("trust %s notices %v, want none", cfg.WorkspaceTrust, cfg.Notices)
	}
	if file, line := cfg.Source("agents.demo.harness"); file != "" || line != 0 {
		t.Errorf("a default has source %s:%d", file, line)
	}
}

func TestWorkspaceWinsKeyByKey(t *testing.T) {
	f := newFixture(t)
	f.writeUser(lines(
		`default_agent = "local"`,
		"[agents.local]",
		`harness = "openai"`,
		`model = "user-model"`,
		`base_url = "http://127.0.0.1:11434/v1"`,
		`tools = ["read_file", "exec"]`,
		"[agents.local.env]",
		`A = "user-a"`,
		`B = "user-b"`,
		"[agents.mine]",
		`harness = "anthropic"`,
		"[engine]",
		"workers = 2",
		`stuck_after = "1m"`,
		"[keys]",
		`quit = "ctrl+q"`,
	))
	f.writeWorkspace(lines(
		"[agents.local]",
		`model = "ws-model"`,
		`tools = ["grep"]`,
		"[agents.local.env]",
		`B = "ws-b"`,
		"[engine]",
		`stuck_after = "10m"`,
		"[keys]",
		`help = "f1"`,
	))
	f.trust()
	cfg := f.load()

	local, ok := cfg.Agent("local")
	if !ok {
		t.Fatal("agent local missing")
	}
	if local.Model != "ws-model" || local.Harness != HarnessOpenAI || local.BaseURL != "http://127.0.0.1:11434/v1" {
		t.Errorf("local = %+v: want the workspace's model over the user's harness and base_url", local)
	}
	if !slices.Equal(local.Tools, []string{"grep"}) {
		t.Errorf("tools %v: a list is one value, the workspace's replaces the user's", local.Tools)
	}
	if local.Env["A"] != "user-a" || local.Env["B"] != "ws-b" {
		t.Errorf("env %v: want A from the user, B from the workspace", local.Env)
	}
	if cfg.Engine.Workers != 2 || cfg.Engine.StuckAfter != 10*time.Minute {
		t.Errorf("engine %+v: want workers from the user, stuck_after from the workspace", cfg.Engine)
	}
	if cfg.Keys["quit"] != "ctrl+q" || cfg.Keys["help"] != "f1" {
		t.Errorf("keys %v: want both files' bindings", cfg.Keys)
	}
	if _, ok := cfg.Agent("mine"); !ok || cfg.DefaultAgent() != "local" {
		t.Errorf("user-only settings lost")
	}

	sources := []struct {
		key  string
		file string
		line int
	}{
		{"default_agent", f.user, 1},
		{"agents.local", f.wsFile(), 1},
		{"agents.local.harness", f.user, 3},
		{"agents.local.model", f.wsFile(), 2},
		{"agents.local.base_url", f.user, 5},
		{"agents.local.tools", f.wsFile(), 3},
		{"agents.local.env.A", f.user, 8},
		{"agents.local.env.B", f.wsFile(), 5},
		{"agents.mine.harness", f.user, 11},
		{"engine.workers", f.user, 13},
		{"engine.stuck_after", f.wsFile(), 7},
		{"keys.quit", f.user, 16},
		{"keys.help", f.wsFile(), 9},
		{"agents.local.approval", "", 0},
		{"no.such.key", "", 0},
	}
	for _, s := range sources {
		file, line := cfg.Source(s.key)
		if file != s.file || line != s.line {
			t.Errorf("Source(%q) = %s:%d, want %s:%d", s.key, file, line, s.file, s.line)
		}
	}
}

func TestMergeCrossChecksSeeBothFiles(t *testing.T) {
	f := newFixture(t)
	f.writeUser(lines("[agents.box]", `harness = "openai"`, `execution = "docker"`))
	f.writeWorkspace(lines("[agents.box]", `image = "golang:1.26"`))
	f.trust()
	box, _ := f.load().Agent("box")
	if box.Execution != ExecutionDocker || box.Image != "golang:1.26" {
		t.Errorf("box = %+v: the workspace's image completes the user's docker agent", box)
	}

	f.writeWorkspace(lines("[agents.box]", `execution = "docker"`, `model = "m"`))
	f.trust()
	p := f.loadErr().Problems[0]
	if p.File != f.wsFile() || p.Line != 2 || p.Key != "agents.box.execution" {
		t.Errorf("got %v, want the workspace's execution key blamed", p)
	}
}

func TestAgentNamedAfterHarness(t *testing.T) {
	f := newFixture(t)
	f.writeUser(lines(`default_agent = "codex"`, "[agents.claude]", `model = "opus"`, `command = ["/opt/claude"]`))
	cfg := f.load()
	a, ok := cfg.Agent("claude")
	if !ok || a.Harness != HarnessClaude || !slices.Equal(a.Command, []string{"/opt/claude"}) {
		t.Errorf("claude = %+v, want harness claude from its name", a)
	}
	if cfg.DefaultAgent() != "codex" {
		t.Errorf("default_agent may name a detected agent, got %q", cfg.DefaultAgent())
	}
	if _, ok := cfg.Agent("codex"); ok {
		t.Errorf("detected agents are not the config's")
	}
}

func TestAgentsSortedAndCopied(t *testing.T) {
	f := newFixture(t)
	f.writeUser(lines("[agents.zed]", `harness = "demo"`, "[agents.alpha]", `harness = "demo"`))
	cfg := f.load()
	var names []string
	for _, a := range cfg.Agents() {
		names = append(names, a.Name)
	}
	if !slices.Equal(names, []string{"alpha", "demo", "zed"}) {
		t.Errorf("agents %v, want sorted", names)
	}
	a, _ := cfg.Agent("alpha")
	a.Tools[0] = "changed"
	if b, _ := cfg.Agent("alpha"); b.Tools[0] != ToolReadFile {
		t.Errorf("changing a returned agent changed the config")
	}
}

func TestValuesAreTyped(t *testing.T) {
	f := newFixture(t)
	f.writeUser(lines(
		"[history]",
		`max_file_size = "1.5MiB"`,
		"[docker]",
		`memory = "512m"`,
		"cpus = 1.5",
		"[agents.a]",
		`harness = "openai"`,
		"max_turns = 12",
		"rules = [{tool = \"exec\", action = \"deny\"}]",
	))
	cfg := f.load()
	if cfg.History.MaxFileSize != 3<<19 || cfg.Docker.Memory != 512<<20 || cfg.Docker.CPUs != 1.5 {
		t.Errorf("sizes: history %d docker %d cpus %v", cfg.History.MaxFileSize, cfg.Docker.Memory, cfg.Docker.CPUs)
	}
	a, _ := cfg.Agent("a")
	if a.MaxTurns != 12 || len(a.Rules) != 1 || a.Rules[0] != (Rule{Tool: "exec", Pattern: "*", Action: ActionDeny}) {
		t.Errorf("agent a = %+v", a)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{
		"4096": 4096, "10MiB": 10 << 20, "10 mib": 10 << 20, "1GB": 1e9, "2k": 2048, "1.5KiB": 1536, "3b": 3,
	} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "MiB", "1..2MB", "10 parsecs", "-1", "1e400GiB"} {
		if _, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) succeeded", in)
		}
	}
}
