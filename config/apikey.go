package config

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"sort"
	"strings"
)

// EnvError says that an environment variable the configuration names is not
// set. It matches ErrEnvUnset with errors.Is.
type EnvError struct {
	Agent string
	Var   string // the variable's name
	Key   string // the config key that names it, "" for a harness's usual variable
	File  string // where Key was set, "" if nowhere
	Line  int
}

// Error names the agent and the variable, and where the variable was named.
func (e *EnvError) Error() string {
	msg := fmt.Sprintf("agent %s: environment variable %s is not set", e.Agent, e.Var)
	switch {
	case e.File != "":
		msg += fmt.Sprintf(" (named by %s at %s:%d)", e.Key, e.File, e.Line)
	case e.Key == "":
		msg += " (set it, or name another variable with api_key_env)"
	}
	return msg
}

// Unwrap makes errors.Is(err, ErrEnvUnset) true.
func (e *EnvError) Unwrap() error { return ErrEnvUnset }

// usualKeyEnv is the variable a harness's SDK reads when api_key_env is
// not set.
func usualKeyEnv(h Harness) string {
	switch h {
	case HarnessOpenAI:
		return "OPENAI_API_KEY"
	case HarnessAnthropic:
		return "ANTHROPIC_API_KEY"
	}
	return ""
}

// officialKeyEnv is the variable holding the key of the official API the
// harness talks to by default (the claude and codex CLIs read it
// themselves).
func officialKeyEnv(h Harness) string {
	switch h {
	case HarnessOpenAI, HarnessCodex:
		return "OPENAI_API_KEY"
	case HarnessAnthropic, HarnessClaude:
		return "ANTHROPIC_API_KEY"
	}
	return ""
}

// APIKey returns the agent's API key from the environment variable its
// api_key_env names. Without one, openai and anthropic agents of the
// official APIs read the usual OPENAI_API_KEY or ANTHROPIC_API_KEY; with
// another base_url they get no key on a local server and ErrNoAPIKeyEnv on
// a remote one, so the official key never goes to another server. An unset variable is an
// *EnvError, except for a server on this machine or the local network
// (Ollama, LM Studio...), which usually needs no key: then the key is "".
// Agents that log in by themselves (claude, codex, acp) get "" when they
// name no variable (the CLIs find their own login and keys); claude and
// codex agents with a remote base_url must name one, as the model agents
// must.
func (c *Config) APIKey(a Agent) (string, error) {
	name, key := a.APIKeyEnv, "agents."+a.Name+".api_key_env"
	if name == "" {
		if official := officialKeyEnv(a.Harness); official != "" && a.BaseURL != "" {
			// The official API's key is never sent to another server unasked.
			if localURL(a.BaseURL) {
				return "", nil
			}
			return "", fmt.Errorf("agent %s: %w: set api_key_env to the variable holding the key for %s (%s is only sent to the official API)",
				a.Name, ErrNoAPIKeyEnv, a.BaseURL, official)
		}
		name, key = usualKeyEnv(a.Harness), ""
	}
	if name == "" {
		return "", nil
	}
	if v := c.env(name); v != "" {
		return v, nil
	}
	if localURL(a.BaseURL) {
		return "", nil
	}
	e := &EnvError{Agent: a.Name, Var: name, Key: key}
	if key != "" {
		e.File, e.Line = c.Source(key)
	}
	return "", e
}

// AgentEnv returns the agent's extra environment as NAME=value pairs,
// sorted, with "${NAME}" values taken from our environment. A referenced
// variable that is unset is an *EnvError.
func (c *Config) AgentEnv(a Agent) ([]string, error) {
	out := make([]string, 0, len(a.Env))
	for name, v := range a.Env {
		if m := envRefPattern.FindStringSubmatch(v); m != nil {
			key := "agents." + a.Name + ".env." + name
			if v = c.env(m[1]); v == "" {
				file, line := c.Source(key)
				return nil, &EnvError{Agent: a.Name, Var: m[1], Key: key, File: file, Line: line}
			}
		}
		out = append(out, name+"="+v)
	}
	sort.Strings(out)
	return out, nil
}

// localURL reports whether a base URL points at this machine or the local
// network, where model servers run without keys.
func localURL(raw string) bool {
	if raw == "" {
		return false
	}
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	host := strings.ToLower(u.Hostname())
	switch {
	case host == "localhost", strings.HasSuffix(host, ".localhost"),
		strings.HasSuffix(host, ".local"), host == "host.docker.internal":
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast())
}

// WithEnv returns the configuration reading the variables of env before
// its own environment: an engine host resolves a session's agent with the
// variables its client handed over (the client's shell, not the host's).
// The copy shares everything else with c.
func (c *Config) WithEnv(env map[string]string) *Config {
	if len(env) == 0 {
		return c
	}
	cp := *c
	base := c.env
	cp.env = func(name string) string {
		if v, ok := env[name]; ok {
			return v
		}
		return base(name)
	}
	return &cp
}

// EnvRefs returns the names of the variables the configuration of agent a
// reads from the environment, sorted: its key's (api_key_env, or the
// harness's usual variable) and those its env entries name as "${NAME}".
// These, with what the agent's CLI reads itself, are what a client hands
// to the engine host with a create or a send.
func (c *Config) EnvRefs(a Agent) []string {
	var out []string
	switch {
	case a.APIKeyEnv != "":
		out = append(out, a.APIKeyEnv)
	case a.BaseURL == "": // with another server and no api_key_env, no key is read
		if name := usualKeyEnv(a.Harness); name != "" {
			out = append(out, name)
		}
	}
	for _, v := range a.Env {
		if m := envRefPattern.FindStringSubmatch(v); m != nil && !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	sort.Strings(out)
	return out
}
