package claude

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/atelier-studio/atelier/terminal"
)

// Version is the Claude Code release whose protocol this adapter was
// written and tested against (PROTOCOLS.md §1; .ci/setup.d/claude.sh
// installs it).
const Version = "2.1.197"

// Settings configure the adapter; the zero value runs `claude` from PATH
// with its own defaults and the credentials it finds in its HOME.
type Settings struct {
	// Command is the program and leading arguments that start the CLI;
	// empty means ["claude"].
	Command []string
	// Model is the model for new sessions; TurnRequest.Model overrides it.
	Model string
	// BaseURL points the CLI at another Anthropic-compatible endpoint
	// (ANTHROPIC_BASE_URL).
	BaseURL string
	// APIKey is the key's value (the caller reads it from the variable the
	// configuration names); it reaches the CLI as ANTHROPIC_API_KEY.
	APIKey string
	// Env holds extra KEY=VALUE variables for the CLI.
	Env []string
	// Home is the CLI's HOME, where it keeps its state and sessions; empty
	// keeps the environment's own.
	Home string
	// Path is the CLI's PATH; empty keeps the environment's own.
	Path string
	// Bare runs the CLI with --bare: no hooks, plugins, CLAUDE.md or
	// keychain, a small tool set, and auth only through APIKey. Much
	// smaller requests, for local models and tests.
	Bare bool
	// Args are extra command-line arguments (--allowedTools ...).
	Args []string
	// StartTimeout bounds the CLI's start-up handshake; zero means 60s.
	StartTimeout time.Duration
	// InterruptTimeout bounds the wait for the CLI to end a turn after an
	// interrupt before it is killed; zero means 10s.
	InterruptTimeout time.Duration
	// CloseTimeout is how long a closing session's CLI may take to exit
	// after its input ends; zero means 3s.
	CloseTimeout time.Duration
}

// keptEnv are the variables of the execution environment the CLI keeps;
// everything else of the environment it was spawned in is dropped.
var keptEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LC_ALL", "TMPDIR", "TERM", "TZ"}

// quiet turns off what the CLI would send beyond the model API.
var quiet = []string{
	"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
	"DISABLE_TELEMETRY=1",
	"DISABLE_AUTOUPDATER=1",
	"DISABLE_ERROR_REPORTING=1",
	"DISABLE_BUG_COMMAND=1",
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (s Settings) withDefaults() (Settings, error) {
	if len(s.Command) == 0 {
		s.Command = []string{"claude"}
	}
	if s.Command[0] == "" {
		return s, fmt.Errorf("%w: empty command", ErrBadSettings)
	}
	if err := terminal.ValidateEnv(s.Env); err != nil {
		return s, fmt.Errorf("%w: %w", ErrBadSettings, err)
	}
	if s.StartTimeout <= 0 {
		s.StartTimeout = 60 * time.Second
	}
	if s.InterruptTimeout <= 0 {
		s.InterruptTimeout = 10 * time.Second
	}
	if s.CloseTimeout <= 0 {
		s.CloseTimeout = 3 * time.Second
	}
	return s, nil
}

// env is what the CLI gets on top of the kept variables.
func (s Settings) env() []string {
	env := append([]string(nil), quiet...)
	if s.Home != "" {
		env = append(env, "HOME="+s.Home)
	}
	if s.Path != "" {
		env = append(env, "PATH="+s.Path)
	}
	if s.BaseURL != "" {
		env = append(env, "ANTHROPIC_BASE_URL="+s.BaseURL)
	}
	if s.APIKey != "" {
		env = append(env, "ANTHROPIC_API_KEY="+s.APIKey)
	}
	return append(env, s.Env...)
}

// argv builds the command line: the CLI wrapped in a small sh script that
// drops every variable of the environment but the kept ones and those we
// set, so the agent never sees the operator's other keys. Values travel in
// the environment, never on a command line.
func (s Settings) argv(model, instructions, resume string) []string {
	keep := append([]string(nil), keptEnv...)
	for _, kv := range s.env() {
		name, _, _ := strings.Cut(kv, "=")
		if envName.MatchString(name) {
			keep = append(keep, name)
		}
	}
	script := `for v in $(env | sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\)=.*/\1/p'); do case " ` +
		strings.Join(keep, " ") + ` " in *" $v "*) ;; *) unset "$v" 2>/dev/null ;; esac; done; exec "$@"`
	args := []string{"sh", "-c", script, "claude"}
	args = append(args, s.Command...)
	args = append(args, "-p",
		"--input-format", "stream-json",
		"--output-format", "stream-json",
		"--verbose",
		"--include-partial-messages",
		"--replay-user-messages",
		"--permission-prompt-tool", "stdio")
	if s.Bare {
		args = append(args, "--bare")
	}
	if model != "" {
		args = append(args, "--model", model)
	}
	if instructions != "" {
		args = append(args, "--append-system-prompt", instructions)
	}
	if resume != "" {
		args = append(args, "--resume", resume)
	}
	return append(args, s.Args...)
}

// sessionIDPattern is the shape of claude's session ids; --resume with
// anything else is looked up as a session title, which is not what a
// persisted token means.
var sessionIDPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
