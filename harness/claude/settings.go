package claude

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/atelier-studio/atelier/harness"
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
	// Environ is the environment the CLI's own variables (DeclaredEnv) are
	// inherited from, as KEY=VALUE; nil means this process's
	// (os.Environ()). An engine host serving a client passes the client's.
	Environ []string
}

// declared are the variables Claude Code reads for its configuration and
// login: its own, and those of the Bedrock and Vertex back-ends it can use.
var declared = harness.EnvSpec{
	Prefixes: []string{"ANTHROPIC_", "CLAUDE_CODE_", "VERTEX_REGION_"},
	Names: []string{"CLAUDE_CONFIG_DIR",
		"AWS_REGION", "AWS_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_BEARER_TOKEN_BEDROCK",
		"CLOUD_ML_REGION", "GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_CLOUD_PROJECT"},
	Credentials: []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"},
}

// DeclaredEnv returns the entries of environ (KEY=VALUE, as os.Environ
// gives them) that Claude Code reads for its own configuration and login:
// ANTHROPIC_*, CLAUDE_CODE_*, CLAUDE_CONFIG_DIR, the Bedrock and Vertex
// variables, and those the user's configuration (as environ locates it)
// names for its helper commands and MCP servers (configNames; the
// workspace's local-scope servers are not known here). The adapter passes
// these from Settings.Environ to the CLI; no other variable of the
// operator's environment reaches it.
func DeclaredEnv(environ []string) []string {
	dir, state := configDirs(declared.Pick(environ), environ)
	names, err := configNames(dir, state, "")
	if err != nil {
		// Unreadable, it names nothing here; the turn fails on it with
		// the reason (Settings.env).
		names = nil
	}
	return declared.With(names...).Pick(environ)
}

// quiet turns off what the CLI would send beyond the model API.
var quiet = []string{
	"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
	"DISABLE_TELEMETRY=1",
	"DISABLE_AUTOUPDATER=1",
	"DISABLE_ERROR_REPORTING=1",
	"DISABLE_BUG_COMMAND=1",
}

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

// env is what the CLI gets on top of the base variables every agent keeps:
// its own variables inherited from Environ, then ours (explicit settings
// win over inherited ones), then Env. With a BaseURL the inherited
// credentials stay out: the configured server gets APIKey or nothing.
// Inherited too are the variables the user's configuration names
// (configNames), which configured returns for the Bash tool to go without;
// with Bare the CLI reads no such configuration, and none are. workspace
// is where the CLI runs (its local-scope MCP servers). A configuration
// file that cannot be read is an error.
func (s Settings) env(workspace string) (env, configured []string, err error) {
	environ := s.Environ
	if environ == nil {
		environ = os.Environ()
	}
	own := append([]string(nil), quiet...)
	if s.Home != "" {
		own = append(own, "HOME="+s.Home)
	}
	if s.Path != "" {
		own = append(own, "PATH="+s.Path)
	}
	if s.BaseURL != "" {
		own = append(own, "ANTHROPIC_BASE_URL="+s.BaseURL)
	}
	if s.APIKey != "" {
		own = append(own, "ANTHROPIC_API_KEY="+s.APIKey)
	}
	spec := declared
	if !s.Bare {
		// The files Claude Code will read are those this environment
		// points it to.
		dir, state := configDirs(harness.MergeEnv(declared.Pick(environ), own, s.Env), environ)
		if configured, err = configNames(dir, state, workspace); err != nil {
			return nil, nil, err
		}
		spec = declared.With(configured...)
	}
	inherited := spec.Pick(environ)
	if s.BaseURL != "" {
		inherited = spec.WithoutCredentials(inherited)
	}
	return harness.MergeEnv(inherited, own, s.Env), configured, nil
}

// credentials are the variables holding the keys and tokens Claude Code
// reads for itself (its own, and those of the Bedrock, Vertex, Foundry and
// Azure back-ends). Its Bash tool never needs them.
var credentials = []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN",
	"ANTHROPIC_FOUNDRY_API_KEY", "ANTHROPIC_AWS_API_KEY", "ANTHROPIC_BEDROCK_MANTLE_API_KEY", "ANTHROPIC_CUSTOM_HEADERS",
	"AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_BEARER_TOKEN_BEDROCK", "AZURE_CLIENT_SECRET"}

// scrubbed wraps the CLI so that the commands its Bash tool runs do not
// see its credentials, nor the variables its configuration names for
// itself (extra: names, checked here as they go into a script). Claude Code
// runs the script CLAUDE_ENV_FILE names before each Bash command; this one
// unsets them, while the CLI keeps them for its own requests. (Claude
// Code's own switch, CLAUDE_CODE_SUBPROCESS_ENV_SCRUB, needs bubblewrap on
// Linux and makes package.json, scripts/, .github/, .git/hooks and more
// read-only to the agent: a hardening mode for CI, not one for a coding
// agent.) The script file holds no secret; it is made where the CLI runs
// (on the host or in the session's container), private to the user, and
// removed when the CLI exits. Where no file can be made the CLI runs
// without it. Hooks and MCP servers the CLI starts still inherit its
// environment, and a determined command can read the CLI's own (/proc):
// the transcript's redaction is the line behind this one.
func scrubbed(command, extra []string) []string {
	names := slices.Clone(credentials)
	for _, n := range extra {
		if harness.EnvName(n) && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	unset := "unset " + strings.Join(names, " ")
	script := `f=$(mktemp 2>/dev/null) && printf '%s\n' '` + unset + `' >"$f" || { rm -f "$f" 2>/dev/null; exec "$@"; }
CLAUDE_ENV_FILE=$f "$@"; rc=$?; rm -f "$f"; exit $rc`
	name := "claude"
	if len(command) > 0 {
		name = command[0]
	}
	return append([]string{"sh", "-c", script, name}, command...)
}

// argv builds the command line: the CLI wrapped so that it sees only the
// base variables, its own and those of env (harness.EnvSpec.Isolate), so
// the agent never sees the operator's other keys, and so that its Bash
// tool does not see its own nor the configured ones (scrubbed).
func (s Settings) argv(env, configured []string, model, instructions, resume string) []string {
	args := declared.Isolate(scrubbed(s.Command, configured), env)
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
