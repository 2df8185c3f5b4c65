package config

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestCompare: a reloaded configuration differs from the one in force by
// the keys whose value changed and the triggers added, removed or
// rewritten; a key moved to another line is no change.
func TestCompare(t *testing.T) {
	f := newFixture(t)
	f.writeUser(lines(
		`[agents.x]`,
		`harness = "demo"`,
		`approval = "ask"`,
	))
	f.writeWorkspace(lines(
		`[[triggers]]`,
		`name = "kept"`,
		`on_event = "a"`,
		`prompt = "p"`,
		`[[triggers]]`,
		`name = "changed"`,
		`on_event = "b"`,
		`prompt = "p"`,
		`[[triggers]]`,
		`name = "gone"`,
		`on_event = "c"`,
		`prompt = "p"`,
	))
	f.trust()
	prev := f.load()
	if ch := Compare(prev, prev); !ch.Empty() {
		t.Fatalf("a configuration differs from itself: %+v", ch)
	}

	f.writeUser(lines(
		``,
		`[agents.x]`,
		`harness = "demo"`,
		`approval = "auto"`,
	))
	f.writeWorkspace(lines(
		`[[triggers]]`,
		`name = "new"`,
		`schedule = "@every 1h"`,
		`prompt = "p"`,
		`[[triggers]]`,
		`name = "kept"`,
		`on_event = "a"`,
		`prompt = "p"`,
		`[[triggers]]`,
		`name = "changed"`,
		`on_event = "b2"`,
		`prompt = "p"`,
	))
	f.trust()
	ch := Compare(prev, f.load())
	if !slices.Equal(ch.Keys, []string{"agents.x.approval"}) {
		t.Errorf("keys changed: %q, want agents.x.approval alone", ch.Keys)
	}
	if !slices.Equal(ch.Armed, []string{"new"}) || !slices.Equal(ch.Disarmed, []string{"gone"}) || !slices.Equal(ch.Rearmed, []string{"changed"}) {
		t.Errorf("triggers: armed %q, disarmed %q, rearmed %q", ch.Armed, ch.Disarmed, ch.Rearmed)
	}
	if !ch.TriggersChanged() {
		t.Error("TriggersChanged is false")
	}
}

// TestWatched: the files a host watches are the user's file, the trust
// file beside it and the workspace's file.
func TestWatched(t *testing.T) {
	f := newFixture(t)
	got := f.opts().Watched()
	ws, err := WorkspaceFile(f.ws)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{f.user, filepath.Join(filepath.Dir(f.user), TrustFileName), ws}
	if !slices.Equal(got, want) {
		t.Errorf("watched %q, want %q", got, want)
	}
}
