package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/internal/golden"
	"github.com/atelier-studio/atelier/tui/badge"
	"github.com/atelier-studio/atelier/tui/keys"
)

// TestNoSharedKeysInAScope checks every keymap for a key bound twice, and
// that no pane binds a key the global keys take first.
func TestNoSharedKeysInAScope(t *testing.T) {
	scopes := Scopes()
	global := scopes[0]
	for _, s := range scopes {
		if c := s.Conflicts(); len(c) > 0 {
			t.Errorf("%s binds a key twice: %q", s.Name, c)
		}
		if s.Name == global.Name || s.TakesKeys {
			continue // dialogs take every key before the global ones
		}
		if sh := s.Shadowed(global); len(sh) > 0 {
			t.Errorf("%s: the global keys take these first: %q", s.Name, sh)
		}
	}
}

func TestEveryBindingHasHelp(t *testing.T) {
	for _, s := range Scopes() {
		for _, b := range s.Bindings {
			if b.Help().Key == "" || b.Help().Desc == "" || len(b.Keys()) == 0 {
				t.Errorf("%s: a binding without keys or help: %+v", s.Name, b.Help())
			}
		}
	}
}

// TestKeybindingsDoc fails when docs/keybindings.md is not what the
// keymaps generate; -update rewrites it.
func TestKeybindingsDoc(t *testing.T) {
	path := filepath.Join("..", "docs", "keybindings.md")
	want := keys.Markdown(Scopes())
	if golden.Updating() {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v: generate it with go test ./tui -run TestKeybindingsDoc -update", err)
	}
	if string(got) != want {
		t.Fatal("docs/keybindings.md is stale: regenerate it with go test ./tui -run TestKeybindingsDoc -update")
	}
}

// TestBadgesDoc fails when the guide's table of the session list's glyphs
// is not what the badge table generates; -update rewrites it.
func TestBadgesDoc(t *testing.T) {
	path := filepath.Join("..", "docs", "guide.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "<!-- badges:start")
	end := strings.Index(doc, "<!-- badges:end -->")
	if start < 0 || end < start {
		t.Fatal("docs/guide.md lacks the badges:start and badges:end markers")
	}
	head := doc[:start] + doc[start:start+strings.Index(doc[start:], "-->")+3] + "\n"
	want := head + badge.Markdown() + doc[end:]
	if golden.Updating() {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if doc != want {
		t.Fatal("the glyphs in docs/guide.md are stale: regenerate them with go test ./tui -run TestBadgesDoc -update")
	}
}
