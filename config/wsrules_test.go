package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Workspace rules are kept per workspace, exactly, once each; removing
// one leaves the others; a file that cannot be read is an error and is
// left as it is.
func TestWorkspaceRules(t *testing.T) {
	s := NewRulesStore(filepath.Join(t.TempDir(), "atelier", RulesFileName))
	now := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	for _, r := range []WorkspaceRule{{"exec", "go test ./...", now}, {"write_file", "docs/notes.md", now}, {"exec", "go test ./...", now}} {
		if err := s.Add("/ws/a", r); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Add("/ws/b", WorkspaceRule{"exec", "make", now}); err != nil {
		t.Fatal(err)
	}
	rules, err := s.Rules("/ws/a")
	if err != nil || len(rules) != 2 || rules[0].String() != "exec `go test ./...`" {
		t.Fatalf("rules of a: %+v, %v", rules, err)
	}
	for _, c := range []struct {
		ws, tool, subject string
		want              bool
	}{
		{"/ws/a", "exec", "go test ./...", true},
		{"/ws/a", "exec", "go test ./... && rm -rf /", false},
		{"/ws/a", "exec", "make", false},
		{"/ws/b", "exec", "make", true},
		{"/ws/a", "write_file", "docs/notes.md", true},
		{"/ws/a", "edit_file", "docs/notes.md", false},
	} {
		if _, ok, err := s.Allows(c.ws, c.tool, c.subject); err != nil || ok != c.want {
			t.Errorf("Allows(%s, %s, %q) = %v, %v; want %v", c.ws, c.tool, c.subject, ok, err, c.want)
		}
	}
	if err := s.Remove("/ws/a", "exec", "go test ./..."); err != nil {
		t.Fatal(err)
	}
	if rules, _ := s.Rules("/ws/a"); len(rules) != 1 || rules[0].Tool != "write_file" {
		t.Fatalf("after the removal: %+v", rules)
	}
	if err := os.WriteFile(s.Path(), []byte("{broken"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Rules("/ws/a"); err == nil || !strings.Contains(err.Error(), s.Path()) {
		t.Fatalf("a broken file: %v", err)
	}
	if err := s.Add("/ws/a", WorkspaceRule{"exec", "ls", now}); err == nil {
		t.Fatal("a broken file was overwritten")
	}
	if b, _ := os.ReadFile(s.Path()); string(b) != "{broken" {
		t.Fatalf("the broken file changed: %q", b)
	}
}
