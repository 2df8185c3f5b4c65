package claude

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"

	"github.com/atelier-studio/atelier/harness"
)

// Claude Code's configuration may name environment variables it reads
// from its own environment at run time:
//
//   - its settings' helper commands (apiKeyHelper, awsCredentialExport,
//     awsAuthRefresh, gcpAuthRefresh, proxyAuthHelper), which it runs
//     through a shell with its environment: "$NAME" and "${NAME}" there;
//   - its MCP servers, whose definitions it expands "${NAME}" and
//     "${NAME:-default}" in (command, args, env, url, headers).
//
// Those variables pass to the CLI, the user's own declaration that it
// needs them; the commands of its Bash tool do not get them (scrubbed).
// The settings' env table needs nothing of ours: Claude Code sets those
// variables itself, its values winning over the environment's.
//
// Only the user's files count: settings.json in the configuration folder
// (CLAUDE_CONFIG_DIR, else ~/.claude) and the MCP servers of .claude.json
// (CLAUDE_CONFIG_DIR/.claude.json, else ~/.claude.json), those of the
// user scope and of the workspace's local scope. A project's
// .claude/settings.json, .claude/settings.local.json and .mcp.json are in
// the workspace, the repository's (or the agent's) to write, and would
// otherwise let it name any variable of the operator's (GITHUB_TOKEN) and
// have it handed to the agent; for those, the agent's env in Atelier's
// configuration ("${NAME}") names what passes.

// helperKeys are the settings whose values are shell commands Claude Code
// runs with its environment.
var helperKeys = []string{"apiKeyHelper", "awsCredentialExport", "awsAuthRefresh", "gcpAuthRefresh", "proxyAuthHelper"}

// shellRef finds the variables a shell command reads: $NAME and ${NAME...}.
var shellRef = regexp.MustCompile(`\$\{?([A-Za-z_][A-Za-z0-9_]*)`)

// mcpRef finds the variables Claude Code expands in an MCP server's
// definition: ${NAME} and ${NAME:-default}.
var mcpRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}`)

// configDirs are the folder holding settings.json and the path of the
// .claude.json Claude Code uses with env (what it gets on top of the base
// variables) started from environ; "" when neither HOME nor
// CLAUDE_CONFIG_DIR is known. As Claude Code does, a .config.json in the
// settings folder (an older release's name) is used in place of
// .claude.json.
func configDirs(env, environ []string) (settingsDir, state string) {
	h := harness.Lookup(env, "HOME")
	if h == "" {
		h = harness.Lookup(environ, "HOME")
	}
	settingsDir, stateDir := harness.Lookup(env, "CLAUDE_CONFIG_DIR"), h
	if settingsDir == "" {
		if h == "" {
			return "", ""
		}
		settingsDir = filepath.Join(h, ".claude")
	} else {
		stateDir = settingsDir
	}
	if legacy := filepath.Join(settingsDir, ".config.json"); fileExists(legacy) {
		return settingsDir, legacy
	}
	return settingsDir, filepath.Join(stateDir, ".claude.json")
}

// fileExists reports whether path names something that exists; one that
// cannot be looked at is taken as missing, and the file Claude Code falls
// back to is read instead.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// configNames returns the variables the user's configuration names (see
// above), sorted: of settings.json in settingsDir and the MCP servers in
// the state file (those of the user scope, and of workspace's local
// scope). A file that is missing names none; one that cannot be read or
// is not JSON is an error naming it.
func configNames(settingsDir, state, workspace string) ([]string, error) {
	var names []string
	add := func(re *regexp.Regexp, s string) {
		for _, m := range re.FindAllStringSubmatch(s, -1) {
			if !slices.Contains(names, m[1]) {
				names = append(names, m[1])
			}
		}
	}
	var settings map[string]any
	if settingsDir != "" {
		if err := readJSON(filepath.Join(settingsDir, "settings.json"), &settings); err != nil {
			return nil, err
		}
	}
	for _, k := range helperKeys {
		if cmd, ok := settings[k].(string); ok {
			add(shellRef, cmd)
		}
	}
	var st struct {
		MCPServers map[string]any `json:"mcpServers"`
		Projects   map[string]struct {
			MCPServers map[string]any `json:"mcpServers"`
		} `json:"projects"`
	}
	if state != "" {
		if err := readJSON(state, &st); err != nil {
			return nil, err
		}
	}
	servers := []map[string]any{st.MCPServers}
	if p, ok := st.Projects[workspace]; ok && workspace != "" {
		servers = append(servers, p.MCPServers)
	}
	for _, group := range servers {
		for _, def := range group {
			eachString(def, func(s string) { add(mcpRef, s) })
		}
	}
	sort.Strings(names)
	return names, nil
}

// readJSON decodes the JSON file at path into v; a missing file leaves v
// alone.
func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read claude configuration: %w", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("claude configuration %s: %w", path, err)
	}
	return nil
}

// eachString calls fn with every string in a decoded JSON value.
func eachString(v any, fn func(string)) {
	switch x := v.(type) {
	case string:
		fn(x)
	case []any:
		for _, e := range x {
			eachString(e, fn)
		}
	case map[string]any:
		for _, e := range x {
			eachString(e, fn)
		}
	}
}
