package codex

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/atelier-studio/atelier/harness"
)

// Codex's configuration may name environment variables Codex reads at run
// time, as its documentation shows for Azure, OpenRouter, Ollama and other
// providers: a provider's key (model_providers.<id>.env_key), its headers
// (model_providers.<id>.env_http_headers, header = variable), and for MCP
// servers the variables forwarded to them (mcp_servers.<id>.env_vars), a
// bearer token (bearer_token_env_var) and headers (env_http_headers). Those
// names are the user's own declaration that Codex needs the variables, so
// they pass to Codex like OPENAI_*; any other variable still stays out.
//
// Only the user's configuration counts: config.toml in the Codex home and
// the `-c` overrides of Atelier's configuration (Settings.Config). A
// project's .codex/config.toml is the repository's to write (or the
// agent's), and would otherwise let it name any variable of the operator's
// (GITHUB_TOKEN) and have it handed to the agent.

// configFile is the name of Codex's configuration in its home.
const configFile = "config.toml"

// home is the Codex home the CLI will use with env (what it gets on top of
// the base variables) started from environ: CODEX_HOME as env sets it,
// else ~/.codex under HOME; "" when neither is known.
func home(env, environ []string) string {
	if h := harness.Lookup(env, "CODEX_HOME"); h != "" {
		return h
	}
	h := harness.Lookup(env, "HOME")
	if h == "" {
		h = harness.Lookup(environ, "HOME")
	}
	if h == "" {
		return ""
	}
	return filepath.Join(h, ".codex")
}

// configNames returns the variables Codex's configuration names (see
// above): those of config.toml in home (none when home is "" or the file
// does not exist) with the overrides (key=value, as `codex -c` takes them)
// on top, sorted. A configuration file that cannot be read or parsed is an
// error, naming the file, as Codex itself would refuse to start on it.
func configNames(home string, overrides []string) ([]string, error) {
	cfg := map[string]any{}
	if home != "" {
		path := filepath.Join(home, configFile)
		b, err := os.ReadFile(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, fmt.Errorf("read codex configuration: %w", err)
		default:
			if err := toml.Unmarshal(b, &cfg); err != nil {
				return nil, fmt.Errorf("codex configuration %s: %w", path, err)
			}
		}
	}
	for _, kv := range overrides {
		applyOverride(cfg, kv)
	}
	var names []string
	add := func(v any) {
		if s, ok := v.(string); ok && s != "" && !slices.Contains(names, s) {
			names = append(names, s)
		}
	}
	addValues := func(v any) {
		m, _ := v.(map[string]any)
		for _, name := range m {
			add(name)
		}
	}
	for _, p := range tables(cfg["model_providers"]) {
		add(p["env_key"])
		addValues(p["env_http_headers"])
	}
	for _, s := range tables(cfg["mcp_servers"]) {
		add(s["bearer_token_env_var"])
		addValues(s["env_http_headers"])
		vars, _ := s["env_vars"].([]any)
		for _, v := range vars {
			if t, ok := v.(map[string]any); ok {
				v = t["name"] // the long form: { name = "X", source = ... }
			}
			add(v)
		}
	}
	sort.Strings(names)
	return names, nil
}

// tables returns the tables inside a table of tables (the providers, the
// MCP servers); anything else in it is not Codex's to run with.
func tables(v any) []map[string]any {
	m, _ := v.(map[string]any)
	var out []map[string]any
	for _, t := range m {
		if t, ok := t.(map[string]any); ok {
			out = append(out, t)
		}
	}
	return out
}

// applyOverride sets one `-c key=value` override in cfg as Codex does: the
// key is a dotted path, the value TOML, or else the literal string. One
// without "=" sets nothing (Codex refuses it at start).
func applyOverride(cfg map[string]any, kv string) {
	key, raw, ok := strings.Cut(kv, "=")
	key = strings.TrimSpace(key)
	if !ok || key == "" {
		return
	}
	var doc struct{ V any }
	var v any = strings.TrimSpace(raw)
	if _, err := toml.Decode("V = "+raw, &doc); err == nil {
		v = doc.V
	}
	parts := strings.Split(key, ".")
	t := cfg
	for _, p := range parts[:len(parts)-1] {
		next, ok := t[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			t[p] = next
		}
		t = next
	}
	t[parts[len(parts)-1]] = v
}
