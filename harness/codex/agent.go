package codex

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/procpool"
)

// Version is the codex-cli release this adapter was written and tested
// against; its app-server schema is the one the structs follow.
const Version = "0.171.0"

// ProviderName is the model provider this adapter defines when Settings has
// a BaseURL (Codex ignores OPENAI_BASE_URL, so a custom provider is the way
// to point it at another server).
const ProviderName = "atelier"

// keyEnv is the variable the custom provider reads its API key from.
const keyEnv = "ATELIER_CODEX_API_KEY"

// Settings configure the adapter; the lead wires them from config.Agent.
type Settings struct {
	// Command is the program and its leading arguments; empty means
	// "codex". "app-server" and the config overrides are appended.
	Command []string
	// Model is the default model, "" for Codex's own default; a turn's
	// TurnRequest.Model wins over it.
	Model string
	// BaseURL points Codex at an OpenAI Responses-compatible server (it
	// POSTs {BaseURL}/responses), through a custom provider; "" keeps
	// Codex's configured provider and login.
	BaseURL string
	// APIKey is the key's value (not the name of a variable). With BaseURL
	// it is the custom provider's key; without, it is passed as
	// OPENAI_API_KEY and CODEX_API_KEY.
	APIKey string
	// Home is CODEX_HOME, where Codex keeps its config, login and thread
	// rollouts (which thread/resume reads); "" leaves Codex's default,
	// ~/.codex.
	Home string
	// Sandbox is the thread's sandbox: read-only, workspace-write (the
	// default) or danger-full-access.
	Sandbox string
	// ApprovalPolicy is when Codex asks: untrusted (the default: anything
	// but known-safe reads), on-request or never.
	ApprovalPolicy string
	// Config holds extra `-c key=value` overrides (values in TOML).
	Config []string
	// Env holds extra KEY=VALUE variables for the CLI.
	Env []string
	// StartTimeout bounds the start-up handshake; zero means a minute.
	StartTimeout time.Duration
	// Environ is the environment Codex's own variables (DeclaredEnv) are
	// inherited from, as KEY=VALUE; nil means this process's
	// (os.Environ()). An engine host serving a client passes the client's.
	Environ []string
}

// declared are the variables Codex reads for its configuration and login:
// its own, OpenAI's and Azure OpenAI's.
var declared = harness.EnvSpec{
	Prefixes:    []string{"OPENAI_", "CODEX_", "AZURE_OPENAI_"},
	Credentials: []string{"OPENAI_API_KEY", "CODEX_API_KEY"},
}

// DeclaredEnv returns the entries of environ (KEY=VALUE, as os.Environ
// gives them) that Codex reads for its own configuration and login:
// OPENAI_*, CODEX_*, AZURE_OPENAI_*, and those its config.toml (in
// CODEX_HOME, else ~/.codex, as environ sets them) names for its providers
// and MCP servers (configNames). The adapter passes these from
// Settings.Environ to the CLI; no other variable of the operator's
// environment reaches it.
func DeclaredEnv(environ []string) []string {
	names, err := configNames(home(declared.Pick(environ), environ), nil)
	if err != nil {
		// Unreadable, it names nothing here; the turn fails on it with
		// the reason (Agent.env), as Codex would.
		names = nil
	}
	return declared.With(names...).Pick(environ)
}

// Agent is the codex harness: one app-server process per session, kept
// between turns. Safe for concurrent use by many sessions.
type Agent struct {
	s     Settings
	procs *procpool.Pool[*proc] // by Atelier session id
}

var (
	_ harness.Agent   = (*Agent)(nil)
	_ harness.Steerer = (*Agent)(nil)
	_ harness.Closer  = (*Agent)(nil)
)

// New returns the codex harness with its settings. It starts nothing: the
// CLI starts at a session's first turn.
func New(s Settings) *Agent {
	return &Agent{s: s, procs: procpool.New((*proc).alive, (*proc).kill)}
}

// Name implements harness.Harness.
func (a *Agent) Name() string { return "codex" }

// Caps implements harness.Harness: steers go in mid-turn with turn/steer,
// the thread resumes after a restart, and Codex's own tools write without
// asking per file, so the engine holds the write lease for the whole turn.
func (a *Agent) Caps() harness.Caps {
	return harness.Caps{Boundary: harness.TurnBoundary, SteerMidTurn: true, Resume: true, TurnLease: true}
}

func (a *Agent) sandbox() string { return firstNonEmpty(a.s.Sandbox, "workspace-write") }
func (a *Agent) policy() string  { return firstNonEmpty(a.s.ApprovalPolicy, "untrusted") }

func (a *Agent) startTimeout() time.Duration {
	if a.s.StartTimeout > 0 {
		return a.s.StartTimeout
	}
	return time.Minute
}

// argv is the command line of the app-server.
func (a *Agent) argv() ([]string, error) {
	argv := append([]string(nil), a.s.Command...)
	if len(argv) == 0 {
		argv = []string{"codex"}
	}
	if argv[0] == "" {
		return nil, ErrNoCommand
	}
	argv = append(argv, "app-server")
	set := func(k, v string) { argv = append(argv, "-c", k+"="+v) }
	set("analytics.enabled", "false")
	// The commands Codex runs do not get its key: Codex's own default
	// excludes drop every variable whose name holds KEY, SECRET or TOKEN
	// from their environment (OPENAI_API_KEY, CODEX_API_KEY, the custom
	// provider's ATELIER_CODEX_API_KEY), while Codex keeps them for its
	// requests. A flag rather than an exclude list, so that it never
	// clashes with the user's own shell_environment_policy (Codex refuses
	// a mix of its list forms, and an override would replace the user's).
	set("shell_environment_policy.ignore_default_excludes", "false")
	if a.s.BaseURL != "" {
		p := "model_providers." + ProviderName + "."
		set("model_provider", tomlString(ProviderName))
		set(p+"name", tomlString("Atelier"))
		set(p+"base_url", tomlString(strings.TrimRight(a.s.BaseURL, "/")))
		set(p+"wire_api", tomlString("responses"))
		if a.s.APIKey != "" {
			set(p+"env_key", tomlString(keyEnv))
		}
	}
	for _, kv := range a.s.Config {
		argv = append(argv, "-c", kv)
	}
	return argv, nil
}

// env is what the CLI gets on top of the base variables every agent keeps:
// its own variables inherited from Environ (those it always reads and
// those its configuration names, configNames), then ours (explicit
// settings win over inherited ones), then Env. With a BaseURL the
// inherited credentials stay out: the configured server gets APIKey or
// nothing. A configuration that cannot be read is an error.
func (a *Agent) env() ([]string, error) {
	environ := a.s.Environ
	if environ == nil {
		environ = os.Environ()
	}
	var own []string
	if a.s.Home != "" {
		own = append(own, "CODEX_HOME="+a.s.Home)
	}
	if a.s.APIKey != "" {
		if a.s.BaseURL != "" {
			own = append(own, keyEnv+"="+a.s.APIKey)
		} else {
			own = append(own, "OPENAI_API_KEY="+a.s.APIKey, "CODEX_API_KEY="+a.s.APIKey)
		}
	}
	// The home Codex will read is the one this environment gives it.
	at := home(harness.MergeEnv(declared.Pick(environ), own, a.s.Env), environ)
	names, err := configNames(at, a.s.Config)
	if err != nil {
		return nil, err
	}
	spec := declared.With(names...)
	inherited := spec.Pick(environ)
	if a.s.BaseURL != "" {
		inherited = spec.WithoutCredentials(inherited)
	}
	return harness.MergeEnv(inherited, own, a.s.Env), nil
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
