package claude

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// loginVars are variables that give Claude Code a key, a token or another
// provider's login by themselves.
var loginVars = []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN",
	"CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX"}

// HasLogin tells, without running the CLI or using the network, whether
// Claude Code started with the environment getenv reads would find a login:
// a key or token variable, or the credentials `claude /login` leaves in
// its configuration folder. known is false where it cannot be told: on
// macOS (the login is in the keychain), or when Claude Code's settings may
// provide a key (an apiKeyHelper or env in settings.json, managed
// settings). An unreadable file is reported, not taken for a missing one.
func HasLogin(getenv func(string) string) (has, known bool, err error) {
	for _, v := range loginVars {
		if getenv(v) != "" {
			return true, true, nil
		}
	}
	home := getenv("HOME")
	dir := getenv("CLAUDE_CONFIG_DIR")
	if dir == "" {
		if home == "" {
			return false, false, nil
		}
		dir = filepath.Join(home, ".claude")
	}
	if ok, err := exists(filepath.Join(dir, ".credentials.json")); ok || err != nil {
		return ok, true, err
	}
	state := filepath.Join(dir, ".claude.json")
	if getenv("CLAUDE_CONFIG_DIR") == "" {
		state = filepath.Join(home, ".claude.json")
	}
	if ok, sure, err := loggedInState(state); ok || !sure || err != nil {
		return ok, sure, err
	}
	if runtime.GOOS == "darwin" {
		return false, false, nil
	}
	for _, p := range []string{filepath.Join(dir, "settings.json"), "/etc/claude-code/managed-settings.json"} {
		if ok, err := exists(p); ok || err != nil {
			return false, false, err
		}
	}
	return false, true, nil
}

// loggedInState reports whether Claude Code's state file (~/.claude.json,
// which it writes even without a login) holds an OAuth account or a key
// approved through /login; sure is false when the file does not parse.
func loggedInState(path string) (has, sure bool, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, true, nil
	}
	if err != nil {
		return false, false, err
	}
	var st struct {
		OAuthAccount  json.RawMessage `json:"oauthAccount"`
		PrimaryAPIKey string          `json:"primaryApiKey"`
	}
	if json.Unmarshal(b, &st) != nil {
		return false, false, nil
	}
	return (len(st.OAuthAccount) > 0 && string(st.OAuthAccount) != "null") || st.PrimaryAPIKey != "", true, nil
}

func exists(path string) (bool, error) {
	_, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}
