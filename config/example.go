package config

// Example is a complete, commented configuration that documents every key.
// The documentation embeds it, and a test keeps it loading without errors.
// Every key may appear in the user's file or in a workspace's .atelier.toml;
// the workspace's wins, key by key.
const Example = `# Atelier configuration.
#
# The user's file: $XDG_CONFIG_HOME/atelier/config.toml
#   (~/.config/atelier/config.toml when XDG_CONFIG_HOME is unset).
# A workspace's file: <workspace>/.atelier.toml. It wins over the user's
#   file key by key, but only once you trust it ("atelier trust"), and only
#   as long as it does not change.
#
# Config files never hold API keys or tokens: they name the environment
# variable that holds one. A value that looks like a secret is refused.

# The agent used when none is chosen (--agent). Without it: "demo".
# It may also name an agent Atelier detects by itself, such as "claude" or
# "codex" when those CLIs are on PATH.
default_agent = "local"

# An agent is a named table: [agents.NAME]; run it with --agent NAME.
# Names are letters, digits, "-" and "_".
[agents.local]
# Which adapter drives it: demo | claude | codex | acp | openai | anthropic.
# Required, except for an agent named after a harness ([agents.claude]),
# whose harness is that name.
harness = "openai"
# The model to ask for.
model = "qwen2.5-coder:7b"
# The API endpoint (openai, anthropic, claude and codex agents). openai
# covers every OpenAI-compatible server (Ollama, vLLM, llama.cpp, LM Studio,
# OpenRouter); claude takes an Anthropic-compatible one, codex a Responses
# one.
base_url = "http://127.0.0.1:11434/v1"
# The NAME of the environment variable holding the API key. Without it,
# openai agents read OPENAI_API_KEY and anthropic agents ANTHROPIC_API_KEY;
# claude and codex use their own login or the keys they read themselves.
# A server on this machine or the local network may need no key at all;
# another remote base_url needs one.
api_key_env = "OLLAMA_API_KEY"
# The system instructions given to the model.
instructions = "You are a careful Go developer."
# The engine's tools this agent gets (for openai, anthropic and demo agents;
# CLI agents bring their own). Any of: read_file, write_file, edit_file,
# list, glob, grep, exec, ask_user, wait. Default: all of them.
tools = ["read_file", "edit_file", "list", "grep", "exec", "ask_user"]
# Which actions need an answer: ask (writes and commands ask first),
# auto (nothing asks, except writes to .atelier.toml and .state/),
# read-only (writes and commands are refused). Default: ask.
approval = "ask"
# Where commands run: local (default) or docker.
execution = "docker"
# The container image; required with execution = "docker".
image = "golang:1.26"
# Where the agent's sessions work when a create names nothing else:
# in-place (the workspace folder, the default), worktree (a git worktree
# of their own) or copy (a copy of the workspace of their own). Their
# changes come back only when applied (atelier instances apply).
isolation = "worktree"
# Stop the session for the operator after this many turns / tokens.
# Default: no limit of the configuration's own.
max_turns = 50
max_tokens = 2000000

# Extra environment for the agent's process and commands. A value written
# "${NAME}" is taken from Atelier's own environment; variables named like
# secrets (…_KEY, …_TOKEN, …PASSWORD) may only be passed that way.
[agents.local.env]
GOFLAGS = "-mod=mod"
GITHUB_TOKEN = "${GITHUB_TOKEN}"

# Approval rules refine the approval policy for some calls. tool is a tool
# name or "*"; pattern is matched against the command line (exec) or the
# path (file tools), "*" matching any run of characters; action is
# allow | ask | deny. The first rule that matches a call decides it, so put
# exceptions first. A workspace's rules replace the user's for that agent.
[[agents.local.rules]]
tool = "exec"
pattern = "go test *"
action = "allow"

[[agents.local.rules]]
tool = "exec"
pattern = "rm *"
action = "deny"

[[agents.local.rules]]
tool = "write_file"
pattern = "docs/*"
action = "allow"

# An Agent Client Protocol agent: its command line is required.
[agents.gemini]
harness = "acp"
command = ["gemini", "--acp"]

# Tune a detected agent: this one's harness is "claude" by its name.
# command replaces the claude (or codex) binary and its arguments.
[agents.claude]
model = "opus"
command = ["claude"]
approval = "ask"

[agents.api]
harness = "anthropic"
model = "claude-sonnet-4-5"
api_key_env = "ANTHROPIC_API_KEY"

# The studio's look.
[ui]
# auto | dark | light | high-contrast, or the path of a theme file
# (relative to this file, or starting with "~/"). Default: auto.
theme = "auto"
# How the studio gets your attention when a session needs you:
# auto | bell | osc (a desktop notification through the terminal) | none.
notifications = "auto"

# Key overrides: action name = key, as the studio's help (?) names them.
[keys]
quit = "ctrl+q"
"sessions.new" = "ctrl+n"

# The workspace history (one commit per turn, under .state/git).
[history]
# Files larger than this are not committed: bytes, or a size such as
# "512KiB", "10MiB" or "1GB". Default: "10MiB".
max_file_size = "10MiB"
# Files never committed, on top of the built-in ones (.env*, keys and
# certificates). Glob patterns.
secret_patterns = ["*.tfstate", "secrets/*"]

[engine]
# How many sessions run a step at the same time. Default: 4.
workers = 4
# A session silent this long while it runs is reported stuck. Default: "5m".
stuck_after = "5m"
# atelier serve exits after this long with nothing running, waiting on a
# timer or scheduled, and no client attached; "0s" never. Default: "10m".
idle_exit = "10m"

# Instances: the worktrees and copies sessions work in (isolation).
[instances]
# Where they are made (outside the workspace). Only the user's own file
# sets it. Default: $XDG_DATA_HOME/atelier/instances.
root = "~/.local/share/atelier/instances"
# Ignored files an instance carries anyway (.gitignore patterns); they
# stay ignored there, out of every diff and apply.
include = [".env"]
# The heavy folders a copy leaves out, wherever they are.
# Default: ["node_modules", ".venv", "target", "dist"].
omit = ["node_modules", ".venv", "target", "dist"]
# A shell command run in a new instance before its first session's first
# turn. Only the user's own file sets it.
setup = "npm ci"
# Making a copy larger than this asks first: bytes, or a size such as
# "500MB" or "1GB". Default: "1GiB".
warn_size = "1GB"

# The containers of sessions with execution = "docker".
[docker]
# "none" (the default: no network), "bridge", or a Docker network's name.
network = "none"
# A memory limit, such as "4g" or "2GiB"; default none.
memory = "4GiB"
# A CPU limit, such as 2 or 1.5; default none.
cpus = 2

# How the engine host tells you of a new approval, a new question or a
# session reported stuck while no studio is attached (work left running in
# the background). Once per event; nothing while a studio is open.
[notify]
# A program given the event as JSON on its standard input: kind, workspace,
# session, title, summary, time and the command that reattaches. Only your
# own config.toml may set it (a workspace's .atelier.toml cannot). A path
# with a "/" is relative to this file; a bare name is looked up on PATH.
command = ["~/bin/atelier-notify"]
# A desktop notification with notify-send: true, false, or "auto" (when
# notify-send is on PATH and a desktop session is there). Default: "auto".
desktop = "auto"
# Which events: approval, question, stuck. Default: all three.
events = ["approval", "question", "stuck"]
# How long one run of the command (or of notify-send) may take. Default: "10s".
timeout = "10s"
`
