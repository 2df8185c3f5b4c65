// Package config loads Atelier's configuration (DESIGN.md §6) once for every
// part of Atelier: the user's $XDG_CONFIG_HOME/atelier/config.toml with the
// workspace's .atelier.toml over it, key by key, typed, validated and with
// defaults, each value remembering the file and line that set it.
//
// Problems are reported all at once, each with its file, line and key, the
// way compilers report errors. Config files name the environment variables
// that hold API keys and never hold keys themselves: a value that looks
// like a secret is refused.
//
// A workspace file may be written by the agents working in the workspace,
// so it is obeyed only once the operator trusts it (TrustStore), and only
// for the exact content trusted: any change makes it untrusted again, and
// Load reports that in Config.Notices instead of obeying it.
//
// The package imports no other Atelier package; it knows the names of
// harnesses and tools but nothing of how they work. Agents the engine
// detects without configuration (a claude CLI on PATH) are the engine's.
package config
