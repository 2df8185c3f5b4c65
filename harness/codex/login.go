package codex

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// HasLogin tells, without running the CLI or using the network, whether
// Codex started with the environment getenv reads would find a login: a
// key variable, or the auth.json `codex login` leaves in CODEX_HOME
// (~/.codex). known is false where it cannot be told: a config.toml there
// may point Codex at another provider with a key of its own. An unreadable
// file is reported, not taken for a missing one.
func HasLogin(getenv func(string) string) (has, known bool, err error) {
	if getenv("OPENAI_API_KEY") != "" || getenv("CODEX_API_KEY") != "" {
		return true, true, nil
	}
	home := getenv("CODEX_HOME")
	if home == "" {
		if getenv("HOME") == "" {
			return false, false, nil
		}
		home = filepath.Join(getenv("HOME"), ".codex")
	}
	if ok, err := exists(filepath.Join(home, "auth.json")); ok || err != nil {
		return ok, true, err
	}
	if ok, err := exists(filepath.Join(home, "config.toml")); ok || err != nil {
		return false, false, err
	}
	return false, true, nil
}

func exists(path string) (bool, error) {
	_, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}
