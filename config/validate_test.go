package config

import (
	"fmt"
	"strings"
	"testing"
)

func TestValidationErrors(t *testing.T) {
	agent := func(ls ...string) string {
		return lines(append([]string{"[agents.local]", `harness = "openai"`}, ls...)...)
	}
	tests := []struct {
		name    string
		content string
		line    int
		key     string
		kind    Kind
		msg     string // part of the message
	}{
		// Wrong types.
		{"int as string", lines("[engine]", `workers = "four"`), 2, "engine.workers", KindType, "must be an integer (got string)"},
		{"section as string", lines(`ui = "dark"`), 1, "ui", KindType, "must be a table"},
		{"float as int", agent("max_turns = 1.5"), 3, "agents.local.max_turns", KindType, "must be an integer (got float)"},
		{"string as int", agent("model = 7"), 3, "agents.local.model", KindType, "must be a string (got integer)"},
		{"list as string", agent(`tools = "exec"`), 3, "agents.local.tools", KindType, "must be an array of strings (got string)"},
		{"list element", agent(`tools = ["exec", 3]`), 3, "agents.local.tools[1]", KindType, "must be a string (got integer)"},
		{"agent as string", lines(`agents = "x"`), 1, "agents", KindType, "a table of agents"},
		{"agent body as int", lines("[agents]", "local = 1"), 2, "agents.local", KindType, "must be a table"},
		{"env as list", agent(`env = ["A=1"]`), 3, "agents.local.env", KindType, "must be a table"},
		{"env value", agent("[agents.local.env]", "DEBUG = 1"), 4, "agents.local.env.DEBUG", KindType, "must be a string (got integer)"},
		{"duration as int", lines("[engine]", "stuck_after = 300"), 2, "engine.stuck_after", KindType, "duration string"},
		{"cpus as string", lines("[docker]", `cpus = "2"`), 2, "docker.cpus", KindType, "must be a number"},
		{"size as bool", lines("[history]", "max_file_size = true"), 2, "history.max_file_size", KindType, "must be a size"},
		{"rules as table", agent("[agents.local.rules]", `tool = "exec"`), 3, "agents.local.rules", KindType, "array of tables"},
		{"default_agent as int", lines("default_agent = 3"), 1, "default_agent", KindType, "must be a string"},

		// Unknown keys.
		{"unknown top key", lines(`theme = "dark"`), 1, "theme", KindUnknown, "unknown key"},
		{"unknown section", lines("", "[enginee]", "workers = 2"), 2, "enginee", KindUnknown, `did you mean "engine"`},
		{"unknown agent key", agent(`modle = "x"`), 3, "agents.local.modle", KindUnknown, `unknown key (did you mean "model"?)`},
		{"unknown section key", lines("[docker]", `netwrok = "host"`), 2, "docker.netwrok", KindUnknown, `did you mean "network"`},
		{"unknown rule key", agent("[[agents.local.rules]]", `tool = "exec"`, `action = "allow"`, `patern = "x"`), 6, "agents.local.rules[0].patern", KindUnknown, "unknown key"},
		{"unknown in inline table", lines(`ui = { theme = "dark", colour = "red" }`), 1, "ui.colour", KindUnknown, "unknown key"},

		// Bad enums and values.
		{"approval", agent(`approval = "yes"`), 3, "agents.local.approval", KindValue, `must be one of ask, auto, read-only (got "yes")`},
		{"harness", lines("[agents.x]", `harness = "gpt"`), 2, "agents.x.harness", KindValue, "must be one of demo, claude, codex, acp, openai, anthropic"},
		{"execution", agent(`execution = "vm"`), 3, "agents.local.execution", KindValue, "must be one of local, docker"},
		{"notifications", lines("[ui]", `notifications = "loud"`), 2, "ui.notifications", KindValue, "bell, osc, none"},
		{"rule action", agent("[[agents.local.rules]]", `tool = "exec"`, `action = "maybe"`), 5, "agents.local.rules[0].action", KindValue, "allow, ask, deny"},
		{"rule tool", agent("[[agents.local.rules]]", `tool = "bash"`, `action = "allow"`), 4, "agents.local.rules[0].tool", KindValue, "must be one of *, read_file"},
		{"rule without action", agent("[[agents.local.rules]]", `tool = "exec"`), 3, "agents.local.rules[0]", KindValue, "needs action"},
		{"second rule without tool", agent("[[agents.local.rules]]", `tool = "exec"`, `action = "ask"`, "[[agents.local.rules]]", `action = "ask"`), 6, "agents.local.rules[1]", KindValue, "needs tool"},
		{"unknown tool", agent(`tools = ["read_file", "rm"]`), 3, "agents.local.tools[1]", KindValue, `unknown tool "rm"`},
		{"tool twice", agent(`tools = ["exec", "exec"]`), 3, "agents.local.tools[1]", KindValue, "listed twice"},
		{"empty command", lines("[agents.g]", `harness = "acp"`, "command = []"), 3, "agents.g.command", KindValue, "must name a program"},
		{"max_turns zero", agent("max_turns = 0"), 3, "agents.local.max_turns", KindValue, "between 1 and"},
		{"workers zero", lines("[engine]", "workers = 0"), 2, "engine.workers", KindValue, "between 1 and 256"},
		{"bad duration", lines("[engine]", `stuck_after = "5 minutes"`), 2, "engine.stuck_after", KindValue, "positive duration"},
		{"notify desktop", lines("[notify]", `desktop = "yes"`), 2, "notify.desktop", KindValue, `true, false or "auto"`},
		{"notify desktop type", lines("[notify]", "desktop = 1"), 2, "notify.desktop", KindType, `true, false or "auto"`},
		{"notify event", lines("[notify]", `events = ["approval", "done"]`), 2, "notify.events[1]", KindValue, `unknown event "done"`},
		{"notify event twice", lines("[notify]", `events = ["stuck", "stuck"]`), 2, "notify.events[1]", KindValue, "listed twice"},
		{"notify empty command", lines("[notify]", "command = []"), 2, "notify.command", KindValue, "must name a program"},
		{"notify timeout", lines("[notify]", `timeout = "0s"`), 2, "notify.timeout", KindValue, "positive duration"},
		{"negative duration", lines("[engine]", `stuck_after = "-5m"`), 2, "engine.stuck_after", KindValue, "positive duration"},
		{"bad size", lines("[history]", `max_file_size = "10 parsecs"`), 2, "history.max_file_size", KindValue, `"10MiB"`},
		{"zero size", lines("[history]", "max_file_size = 0"), 2, "history.max_file_size", KindValue, "more than 0"},
		{"zero cpus", lines("[docker]", "cpus = 0"), 2, "docker.cpus", KindValue, "above 0"},
		{"isolation", agent(`isolation = "vm"`), 3, "agents.local.isolation", KindValue, "in-place, worktree, copy"},
		{"warn size", lines("[instances]", `warn_size = "big"`), 2, "instances.warn_size", KindValue, `"1GB"`},
		{"empty omit", lines("[instances]", `omit = [""]`), 2, "instances.omit[0]", KindValue, "must not be empty"},
		{"bad glob", lines("[history]", `secret_patterns = ["ok/*", "[bad"]`), 2, "history.secret_patterns[1]", KindValue, "glob pattern"},
		{"bad url", agent(`base_url = "localhost:11434"`), 3, "agents.local.base_url", KindValue, "http:// or https://"},
		{"bad env var name", agent(`api_key_env = "MY KEY"`), 3, "agents.local.api_key_env", KindValue, "must name an environment variable"},
		{"bad agent name", lines(`[agents."my agent"]`, `harness = "demo"`), 1, `agents.my agent`, KindValue, "agent names are"},
		{"bad default_agent name", lines(`default_agent = "a b"`), 1, "default_agent", KindValue, "must be an agent name"},
		{"empty key binding", lines("[keys]", `quit = ""`), 2, "keys.quit", KindValue, "must not be empty"},
		{"empty model", agent(`model = "  "`), 3, "agents.local.model", KindValue, "must not be empty"},
		{"missing theme file", lines("[ui]", `theme = "solarized.toml"`), 2, "ui.theme", KindValue, "no file at"},

		// Keys that depend on each other (checked after merging).
		{"docker without image", agent(`execution = "docker"`), 3, "agents.local.execution", KindValue, "docker execution needs an image"},
		{"acp without command", lines("[agents.g]", `harness = "acp"`), 2, "agents.g.command", KindValue, `required with harness = "acp"`},
		{"command on openai", agent(`command = ["x"]`), 3, "agents.local.command", KindValue, "only used by the acp, claude and codex"},
		{"base_url on acp", lines("[agents.g]", `harness = "acp"`, `command = ["g"]`, `base_url = "http://x"`), 4, "agents.g.base_url", KindValue, "only used by the openai, anthropic, claude and codex"},
		{"api_key_env on demo", lines("[agents.d]", `harness = "demo"`, `api_key_env = "K"`), 3, "agents.d.api_key_env", KindValue, "only used by the openai, anthropic, claude and codex"},
		{"no harness", lines("", "[agents.mine]", `model = "x"`), 2, "agents.mine.harness", KindValue, "required: one of demo"},
		{"unknown default agent", lines(`default_agent = "ghost"`), 1, "default_agent", KindValue, `no agent named "ghost"`},

		// Secrets written in the file.
		{"api_key value", agent(`api_key = "sk-proj-abcdefghijklmnopqrstuvwx"`), 3, "agents.local.api_key", KindSecret, "set api_key_env"},
		{"token key", lines("[agents.local]", `harness = "openai"`, `token = "whatever"`), 3, "agents.local.token", KindSecret, "never hold secrets"},
		{"top-level password", lines(`password = "hunter2"`), 1, "password", KindSecret, "never hold secrets"},
		{"key in api_key_env", agent(`api_key_env = "sk-ant-abcdefghijklmnopqrstuvwx"`), 3, "agents.local.api_key_env", KindSecret, "looks like a secret"},
		{"key in instructions", agent(`instructions = "use ghp_abcdefghijklmnopqrstuvwxyz0123456789"`), 3, "agents.local.instructions", KindSecret, "looks like a secret"},
		{"key in command", lines("[agents.g]", `harness = "acp"`, `command = ["agent", "--key=sk-abcdefghijklmnopqrstuvwx"]`), 3, "agents.g.command", KindSecret, "looks like a secret"},
		{"password in url", agent(`base_url = "https://me:hunter2@example.com/v1"`), 3, "agents.local.base_url", KindSecret, "looks like a secret"},
		{"secret env literal", agent("[agents.local.env]", `GITHUB_TOKEN = "abc"`), 4, "agents.local.env.GITHUB_TOKEN", KindSecret, `write "${GITHUB_TOKEN}"`},
		{"secret value in env", agent("[agents.local.env]", `OTHER = "AKIAABCDEFGHIJKLMNOP"`), 4, "agents.local.env.OTHER", KindSecret, "looks like a secret"},
		{"private key", lines("[keys]", `quit = "-----BEGIN RSA PRIVATE KEY-----"`), 2, "keys.quit", KindSecret, "looks like a secret"},

		// Not TOML.
		{"unclosed header", lines("[agents.x", `harness = "openai"`), 1, "", KindSyntax, "invalid TOML"},
		{"no value", lines("", "", "model ="), 3, "", KindSyntax, "invalid TOML"},
		{"duplicate key", lines("[ui]", `theme = "dark"`, `theme = "light"`), 3, "", KindSyntax, "invalid TOML"},
		{"unterminated string", lines("[ui]", `theme = "dark`), 2, "", KindSyntax, "invalid TOML"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.writeUser(tt.content)
			ce := f.loadErr()
			if len(ce.Problems) != 1 {
				t.Fatalf("got %d problems, want 1:\n%v", len(ce.Problems), ce)
			}
			p := ce.Problems[0]
			if p.File != f.user || p.Line != tt.line || p.Key != tt.key || p.Kind != tt.kind {
				t.Errorf("problem at %s:%d key %q kind %s; want %s:%d key %q kind %s",
					p.File, p.Line, p.Key, p.Kind, f.user, tt.line, tt.key, tt.kind)
			}
			msg := ce.Error()
			prefix := fmt.Sprintf("%s:%d:", f.user, tt.line)
			if !strings.HasPrefix(msg, prefix) {
				t.Errorf("message %q does not start with %q", msg, prefix)
			}
			if tt.key != "" && !strings.Contains(msg, " "+tt.key+": ") {
				t.Errorf("message %q does not name key %q", msg, tt.key)
			}
			if !strings.Contains(msg, tt.msg) {
				t.Errorf("message %q does not contain %q", msg, tt.msg)
			}
			if strings.Contains(msg, "sk-") || strings.Contains(msg, "ghp_") || strings.Contains(msg, "hunter2") {
				t.Errorf("message %q echoes a secret", msg)
			}
		})
	}
}

func TestValidationMessageFormat(t *testing.T) {
	f := newFixture(t)
	f.writeWorkspace(lines(
		"# workspace agents",
		"[agents.local]",
		`harness = "openai"`,
		"",
		"",
		"",
		"",
		"",
		"",
		"",
		"",
		`approval = "yes"`,
	))
	f.trust()
	ce := f.loadErr()
	want := f.wsFile() + `:12:1: agents.local.approval: must be one of ask, auto, read-only (got "yes")`
	if ce.Error() != want {
		t.Errorf("got  %s\nwant %s", ce.Error(), want)
	}
}

func TestAllProblemsOfAllFilesAreReported(t *testing.T) {
	f := newFixture(t)
	f.writeUser(lines(
		"[engine]",
		`workers = "many"`,
		`stuck_after = "never"`,
		"[agents.a]",
		`harness = "nope"`,
		`max_turns = -1`,
	))
	f.writeWorkspace(lines("[ui]", `theme = 3`, `sound = "on"`))
	f.trust()
	ce := f.loadErr()
	type at struct {
		file string
		line int
		key  string
	}
	want := []at{
		{f.user, 2, "engine.workers"},
		{f.user, 3, "engine.stuck_after"},
		{f.user, 5, "agents.a.harness"},
		{f.user, 6, "agents.a.max_turns"},
		{f.wsFile(), 2, "ui.theme"},
		{f.wsFile(), 3, "ui.sound"},
	}
	if len(ce.Problems) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%v", len(ce.Problems), len(want), ce)
	}
	for i, w := range want {
		p := ce.Problems[i]
		if (at{p.File, p.Line, p.Key}) != w {
			t.Errorf("problem %d = %s:%d %s, want %s:%d %s", i, p.File, p.Line, p.Key, w.file, w.line, w.key)
		}
	}
	if got := strings.Count(ce.Error(), "\n") + 1; got != len(want) {
		t.Errorf("Error() has %d lines, want one per problem", got)
	}
	if !ce.Has(KindUnknown) || !ce.Has(KindType) || ce.Has(KindSecret) {
		t.Errorf("Has reports the wrong kinds for %v", ce)
	}
}

func TestSyntaxErrorHasColumn(t *testing.T) {
	f := newFixture(t)
	f.writeUser(lines("[ui]", `theme = "dark" junk`))
	p := f.loadErr().Problems[0]
	if p.Line != 2 || p.Col == 0 {
		t.Errorf("syntax error at %d:%d, want line 2 with a column", p.Line, p.Col)
	}
}

func TestUnreadableFiles(t *testing.T) {
	f := newFixture(t)
	if err := osMkdir(f.user); err != nil {
		t.Fatal(err)
	}
	ce := f.loadErr()
	if p := ce.Problems[0]; p.Kind != KindRead || p.File != f.user || !strings.Contains(p.Msg, "not a regular file") {
		t.Errorf("got %+v, want a read problem naming the file", p)
	}

	f = newFixture(t)
	f.writeUser("# " + strings.Repeat("x", maxFileSize) + "\n")
	if p := f.loadErr().Problems[0]; p.Kind != KindRead || !strings.Contains(p.Msg, "larger than 1MiB") {
		t.Errorf("got %+v, want a too-large problem", p)
	}
}
