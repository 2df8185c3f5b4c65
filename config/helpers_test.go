package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixture is a user config directory and a workspace in a temporary
// directory, with an environment of its own.
type fixture struct {
	t    testing.TB
	user string // the user's config.toml
	ws   string // the workspace directory
	env  map[string]string
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	dir := t.TempDir()
	f := &fixture{t: t, user: filepath.Join(dir, "cfg", "atelier", "config.toml"),
		ws: filepath.Join(dir, "ws"), env: map[string]string{"HOME": dir}}
	for _, d := range []string{filepath.Dir(f.user), f.ws} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func (f *fixture) opts() LoadOptions {
	return LoadOptions{Workspace: f.ws, UserConfigPath: f.user, Env: func(k string) string { return f.env[k] }}
}

func (f *fixture) writeUser(content string) { f.t.Helper(); writeFile(f.t, f.user, content) }

func (f *fixture) wsFile() string { return filepath.Join(f.ws, WorkspaceFileName) }

func (f *fixture) writeWorkspace(content string) { f.t.Helper(); writeFile(f.t, f.wsFile(), content) }

func (f *fixture) store() *TrustStore {
	f.t.Helper()
	s, err := f.opts().TrustStore()
	if err != nil {
		f.t.Fatal(err)
	}
	return s
}

func (f *fixture) trust() {
	f.t.Helper()
	if err := f.store().Trust(f.ws); err != nil {
		f.t.Fatalf("trust: %v", err)
	}
}

func (f *fixture) load() *Config {
	f.t.Helper()
	cfg, err := Load(f.opts())
	if err != nil {
		f.t.Fatalf("load: %v", err)
	}
	return cfg
}

// loadErr loads and returns the *Error, failing when Load succeeds.
func (f *fixture) loadErr() *Error {
	f.t.Helper()
	cfg, err := Load(f.opts())
	if err == nil {
		f.t.Fatalf("load succeeded, want an error")
	}
	if cfg != nil {
		f.t.Errorf("load returned a config with its error")
	}
	var ce *Error
	if !errors.As(err, &ce) {
		f.t.Fatalf("load error %T %v, want *Error", err, err)
	}
	return ce
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// lines joins lines with newlines, so positions in test files are easy to
// count.
func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

func osMkdir(path string) error { return os.MkdirAll(path, 0o755) }
