package config

import (
	"slices"
	"sort"
	"time"
)

// Config is Atelier's configuration: the user's file with the workspace's
// file over it, key by key, validated and with defaults filled in. It is
// built once by Load and never changes after, so any goroutine may read it;
// callers must not modify its maps and slices either.
type Config struct {
	UI      UI
	Keys    map[string]string // action name → key, overriding the studio's keymap
	History History
	Engine  Engine
	Docker  Docker
	// Instances configure the workspace's instances (isolated copies and
	// worktrees sessions work in).
	Instances Instances
	Notify    Notify
	// Triggers are the workspace's triggers (triggers.go): those the
	// user's file keeps for it, then its trusted .atelier.toml's.
	Triggers []Trigger

	// Notices are things the user must see (an untrusted workspace file).
	// They are not errors: the configuration is usable as it is.
	Notices []Notice

	// UserFile is the user config path consulted (it may not exist).
	UserFile string
	// WorkspaceFile is the workspace's .atelier.toml path, "" without a
	// workspace; WorkspaceTrust says whether it exists and was obeyed.
	WorkspaceFile  string
	WorkspaceTrust TrustState

	defaultAgent string
	agents       map[string]Agent
	sources      layer
	env          func(string) string
}

// UI holds the studio's look and signalling.
type UI struct {
	Theme         string // auto, dark, light or high-contrast; "" when ThemeFile is set
	ThemeFile     string // absolute path of a user theme file
	Notifications string // auto, bell, osc or none
}

// History holds what the workspace history leaves out.
type History struct {
	MaxFileSize    int64    // bytes; larger files are not committed
	SecretPatterns []string // globs left out on top of the built-in secret patterns
}

// Engine holds the session engine's knobs.
type Engine struct {
	Workers    int           // sessions running a step at once
	StuckAfter time.Duration // an active session silent this long is reported stuck
	// IdleExit is how long `atelier serve` stays with nothing running and
	// no client attached before it exits; zero means never.
	IdleExit time.Duration
}

// Notify holds the channels through which the engine host tells the
// operator of what waits on them while no studio is attached: a new
// approval, a new question, a session reported stuck.
type Notify struct {
	// Command, when set, is run once per notification with the event as
	// JSON on its standard input (argv, the program first). Only the
	// user's own config.toml sets it: a workspace's file never runs a
	// program on the operator's machine.
	Command []string
	// Desktop is "auto" (notify-send when it is on PATH and a desktop
	// session is there), "on" (notify-send, a failure is logged) or "off".
	Desktop string
	// Events are the kinds notified, in the order of NotifyEvents.
	Events []string
	// Timeout bounds one run of Command or notify-send.
	Timeout time.Duration
}

// NotifyEvents are the kinds of event the notification channels carry.
func NotifyEvents() []string { return []string{"approval", "question", "stuck"} }

// Instances configure where instances live and what they carry.
type Instances struct {
	// Root is the folder holding the instances; "" is the default
	// ($XDG_DATA_HOME/atelier/instances).
	Root string
	// Include lists ignored files an instance carries anyway (.gitignore
	// patterns, ".env").
	Include []string
	// Omit names the heavy folders a copy leaves out; nil is the default
	// (node_modules, .venv, target, dist).
	Omit []string
	// Setup is a shell command run in a new instance before its first
	// session's first turn ("npm ci").
	Setup string
	// WarnSize is the size over which making a copy asks first.
	WarnSize int64
}

// DefaultWarnSize is [instances] warn_size's default: 1 GiB.
const DefaultWarnSize = 1 << 30

// Docker holds the limits of the containers sessions run in.
type Docker struct {
	Network string  // "none" (the default), "bridge", or a network name
	Memory  int64   // bytes; 0 is no limit
	CPUs    float64 // 0 is no limit
}

// Defaults of the studio keys, used when no file sets them.
const (
	DefaultAgentName   = "demo"
	DefaultMaxFileSize = 10 << 20
	DefaultWorkers     = 4
	DefaultStuckAfter  = 5 * time.Minute
	DefaultIdleExit    = 10 * time.Minute
	DefaultNetwork     = "none"
	DefaultNotifyAfter = 10 * time.Second // Notify.Timeout
)

// NoticeKind says why a Notice was raised, so the studio can offer the
// matching action (trust the file).
type NoticeKind string

// The kinds of Notice.
const (
	NoticeUntrusted   NoticeKind = "untrusted"    // the workspace file was never trusted
	NoticeChanged     NoticeKind = "changed"      // it changed since it was trusted
	NoticeTrustUnread NoticeKind = "trust-unread" // the trust file could not be read
	NoticeUserOnly    NoticeKind = "user-only"    // a trusted workspace file set a key only the user's file may set
)

// Notice is a message about the configuration for the user to see.
type Notice struct {
	Kind NoticeKind
	File string
	Text string
}

// String returns the notice's text.
func (n Notice) String() string { return n.Text }

// Agents returns the configured agents sorted by name; the built-in demo
// agent is always among them.
func (c *Config) Agents() []Agent {
	out := make([]Agent, 0, len(c.agents))
	for _, a := range c.agents {
		out = append(out, cloneAgent(a))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Agent returns the configured agent called name. Agents the engine detects
// without configuration (a claude CLI on PATH) are not here.
func (c *Config) Agent(name string) (Agent, bool) {
	a, ok := c.agents[name]
	return cloneAgent(a), ok
}

// DefaultAgent names the agent used when none is chosen: default_agent, or
// "demo". It may name a detected agent ("claude") that Agent does not know.
func (c *Config) DefaultAgent() string { return c.defaultAgent }

// Source tells which file set key ("agents.local.model", "ui.theme",
// "agents.local.env.GOFLAGS") and on which line. A key no file set (a
// default) gives ("", 0).
func (c *Config) Source(key string) (file string, line int) {
	s, ok := c.sources[key]
	if !ok {
		return "", 0
	}
	return s.file, s.at.Line
}

// cloneAgent copies an agent so callers cannot change the Config's.
func cloneAgent(a Agent) Agent {
	a.Tools = slices.Clone(a.Tools)
	a.Rules = slices.Clone(a.Rules)
	a.Command = slices.Clone(a.Command)
	if a.Env != nil {
		env := make(map[string]string, len(a.Env))
		for k, v := range a.Env {
			env[k] = v
		}
		a.Env = env
	}
	return a
}
