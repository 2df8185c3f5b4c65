package core

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/sessions"
)

func TestGlobMatch(t *testing.T) {
	cases := []struct {
		pat, name string
		want      bool
	}{
		{"**/*.go", "main.go", true},
		{"**/*.go", "a/b/c.go", true},
		{"core/*.go", "core/x.go", true},
		{"core/*.go", "core/sub/x.go", false},
		{"core/**/x.go", "core/x.go", true},
		{"**/*.md", "a/b.mdx", false},
	}
	for _, c := range cases {
		if got := globMatch(c.pat, c.name); got != c.want {
			t.Errorf("globMatch(%q, %q) = %v", c.pat, c.name, got)
		}
	}
}

func TestGlobAndGrepTools(t *testing.T) {
	m := &scripted.Model{Script: []scripted.Step{{Calls: []harness.ToolCall{
		toolCall("g1", "glob", map[string]any{"pattern": "*.go"}),
		toolCall("g2", "grep", map[string]any{"pattern": "TODO", "glob": "*.go"}),
		toolCall("g3", "grep", map[string]any{"pattern": "("}),
	}}}}
	r := newRig(t, MapResolver{"a": m})
	for p, c := range map[string]string{
		"main.go":           "package main\n// TODO: fix\n",
		"pkg/x.go":          "package pkg\n",
		"gen/out.go":        "// TODO: generated\n",
		".gitignore":        "gen/\n",
		"README.md":         "TODO in prose\n",
		"node_modules/m.go": "// TODO\n",
	} {
		os.MkdirAll(filepath.Join(r.ws, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(r.ws, p), []byte(c), 0o644)
	}
	id := r.create(CreateOptions{Agent: "a", AutoStart: true}).ID
	r.status(id, sessions.Ended)
	msgs, _, _ := r.e.Transcript(id)
	ts := tools(msgs)
	if ts[0].Output != "main.go\npkg/x.go" {
		t.Errorf("glob: %q", ts[0].Output)
	}
	if ts[1].Output != "main.go:2: // TODO: fix" {
		t.Errorf("grep: %q", ts[1].Output)
	}
	if ts[2].State != sessions.ToolError || !strings.Contains(ts[2].Output, "bad pattern") {
		t.Errorf("bad regexp: %+v", ts[2])
	}
}
