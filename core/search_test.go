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
		{"core/**/x.go", "core/a/b/x.go", true},
		{"core/**/x.go", "core/a/b/y.go", false},
		{"**/*.md", "a/b.mdx", false},
		{"**/*.{go,md}", "a/b.md", true},
		{"**/[a-c].go", "x/b.go", true},
		{"**/[a-c].go", "x/d.go", false},
		{"src/**", "src/a/b.go", true},
		{"**/**/x", "x", true},
	}
	for _, c := range cases {
		if got := globMatch(c.pat, c.name); got != c.want {
			t.Errorf("globMatch(%q, %q) = %v", c.pat, c.name, got)
		}
	}
}

// TestGlobManyDoublestars matches patterns with many "**" against deep
// paths. The matcher before this one tried every way to share the folders
// among the "**": for twelve of them against thirty folders that is
// billions of tries, and this test did not finish.
func TestGlobManyDoublestars(t *testing.T) {
	deep := strings.Repeat("d/", 30)
	stars := strings.Repeat("**/", 12)
	cases := []struct {
		pat, name string
		want      bool
	}{
		{stars + "x", deep + "y", false},
		{stars + "x", deep + "x", true},
		{stars + "d/" + stars + "x", deep + "y", false},
		{stars + "e/" + stars + "x", deep + "x", false},
		{stars + "*.go", deep + "a.go", true},
	}
	for _, c := range cases {
		if got := globMatch(c.pat, c.name); got != c.want {
			t.Errorf("globMatch(%q, %q) = %v", c.pat, c.name, got)
		}
	}
}

// BenchmarkGlobManyDoublestars is a pattern with twelve "**" that does not
// match a path thirty folders deep.
func BenchmarkGlobManyDoublestars(b *testing.B) {
	pat, name := strings.Repeat("**/", 12)+"x", strings.Repeat("d/", 30)+"y"
	for b.Loop() {
		if globMatch(pat, name) {
			b.Fatal("matched")
		}
	}
}

func TestCheckGlob(t *testing.T) {
	cases := []struct{ in, want, err string }{
		{"*.go", "**/*.go", ""},
		{"core/*.go", "core/*.go", ""},
		{"[a-", "", "bad pattern"},
		{"{a,b", "", "bad pattern"},
	}
	for _, c := range cases {
		got, err := checkGlob(c.in)
		if got != c.want || (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("checkGlob(%q) = %q, %v", c.in, got, err)
		}
	}
}

func TestGlobAndGrepTools(t *testing.T) {
	m := &scripted.Model{Script: []scripted.Step{{Calls: []harness.ToolCall{
		toolCall("g1", "glob", map[string]any{"pattern": "*.go"}),
		toolCall("g2", "grep", map[string]any{"pattern": "TODO", "glob": "*.go"}),
		toolCall("g3", "grep", map[string]any{"pattern": "("}),
		toolCall("g4", "grep", map[string]any{"pattern": "TODO", "glob": "[a-"}),
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
		if err := os.MkdirAll(filepath.Join(r.ws, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(r.ws, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
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
	if ts[3].State != sessions.ToolError || !strings.Contains(ts[3].Output, `bad pattern "[a-"`) {
		t.Errorf("bad glob: %+v", ts[3])
	}

}

// TestSearchNamesFoldersNotSearched checks that a folder whose ignore
// rules cannot be read (its .gitignore is a folder) is left out of glob
// and grep, and that their output says so.
func TestSearchNamesFoldersNotSearched(t *testing.T) {
	m := &scripted.Model{Script: []scripted.Step{{Calls: []harness.ToolCall{
		toolCall("g1", "glob", map[string]any{"pattern": "*.txt"}),
		toolCall("g2", "grep", map[string]any{"pattern": "TODO"}),
	}}}}
	r := newRig(t, MapResolver{"a": m})
	for _, p := range []string{"a.txt", "odd/b.txt"} {
		if err := os.MkdirAll(filepath.Join(r.ws, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(r.ws, p), []byte("TODO\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(r.ws, "odd", ".gitignore"), 0o755); err != nil {
		t.Fatal(err)
	}
	id := r.create(CreateOptions{Agent: "a", AutoStart: true}).ID
	r.status(id, sessions.Ended)
	msgs, _, _ := r.e.Transcript(id)
	ts := tools(msgs)
	for i, want := range []string{"a.txt\n[not searched: odd (its .gitignore: ", "a.txt:1: TODO\n[not searched: odd (its .gitignore: "} {
		if ts[i].State != sessions.ToolDone || !strings.HasPrefix(ts[i].Output, want) {
			t.Errorf("%s: %+v", ts[i].Name, ts[i])
		}
	}
}

// TestGrepLeavesSecretFilesOut: grep never prints a secret file's lines
// (a read of one asks the operator; grep does not ask), and says so.
func TestGrepLeavesSecretFilesOut(t *testing.T) {
	m := &scripted.Model{Script: []scripted.Step{{Calls: []harness.ToolCall{
		toolCall("g1", "grep", map[string]any{"pattern": "TOKEN"}),
	}}}}
	r := newRig(t, MapResolver{"a": m})
	for p, c := range map[string]string{".env": "API_TOKEN=s3cr3t-value\n", "notes.txt": "TOKEN goes in .env\n"} {
		if err := os.WriteFile(filepath.Join(r.ws, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Approval: PolicyAuto}).ID
	r.status(id, sessions.Ended)
	msgs, _, _ := r.e.Transcript(id)
	out := tools(msgs)[0].Output
	if strings.Contains(out, "s3cr3t") || !strings.Contains(out, "notes.txt:1:") || !strings.Contains(out, "[not searched: .env (a secret file") {
		t.Fatalf("grep printed:\n%s", out)
	}
}
