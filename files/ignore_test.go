package files

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/internal/testreq"
)

// ignoreFiles are the .gitignore files of a test workspace by folder;
// ignorePaths the verdicts on paths in it (git agrees, see below).
var ignoreFiles = map[string]string{
	"": strings.Join([]string{
		"# comment",
		"*.log",
		"!keep.log",
		"/build",
		"dist/",
		"docs/**/*.tmp",
		"**/cache",
		"out/**",
		"!out/keep.txt", // out/** excludes files, not the folder: this re-includes
		"secret[0-9].txt",
		"\\#hash",
		"\\!bang",
		"trail\\ ",
		"spaces   ",
		"a/*/z",
		"vendor/",
		"!vendor/keep.go", // parent folder excluded: stays ignored
		"[!x]y.c",
	}, "\n"),
	"sub":       "*.gen\n!important.gen\n/local\nnested/deep/\n",
	"sub/inner": "!*.log\n",
}

var ignorePaths = []struct {
	path  string
	isDir bool
	want  bool
}{
	{"app.log", false, true},
	{"keep.log", false, false},
	{"x/y/app.log", false, true},
	{"build", true, true},
	{"build/x.o", false, true},
	{"sub/build", true, false},
	{"dist", true, true},
	{"dist", false, false},
	{"sub/dist/x", false, true},
	{"docs/a.tmp", false, true},
	{"docs/a/b/c.tmp", false, true},
	{"a.tmp", false, false},
	{"cache", true, true},
	{"x/y/cache", false, true},
	{"out", true, false},
	{"out/a.txt", false, true},
	{"out/keep.txt", false, false},
	{"out/d/e.txt", false, true},
	{"secret1.txt", false, true},
	{"secretx.txt", false, false},
	{"#hash", false, true},
	{"!bang", false, true},
	{"trail ", false, true},
	{"spaces", false, true},
	{"a/b/z", false, true},
	{"a/b/c/z", false, false},
	{"vendor/keep.go", false, true},
	{"ay.c", false, true},
	{"xy.c", false, false},
	{"sub/x.gen", false, true},
	{"sub/important.gen", false, false},
	{"sub/deeper/x.gen", false, true},
	{"x.gen", false, false},
	{"sub/local", false, true},
	{"sub/a/local", false, false},
	{"sub/nested/deep", true, true},
	{"sub/x/nested/deep", true, false},
	{"sub/inner/app.log", false, false},
	{"sub/other/app.log", false, true},
	{"main.go", false, false},
}

func newTestIgnore() *Ignore {
	ig := NewIgnore()
	for dir, content := range ignoreFiles {
		ig.Add(dir, []byte(content))
	}
	return ig
}

func TestIgnoreMatch(t *testing.T) {
	ig := newTestIgnore()
	for _, tc := range ignorePaths {
		if got := ig.Match(tc.path, tc.isDir); got != tc.want {
			t.Errorf("Match(%q, dir=%v) = %v, want %v", tc.path, tc.isDir, got, tc.want)
		}
	}
}

// TestIgnoreAgreesWithGit asks real git about the same files and paths.
func TestIgnoreAgreesWithGit(t *testing.T) {
	git := testreq.Binary(t, "git", "git")
	root := t.TempDir()
	run := func(stdin string, args ...string) string {
		cmd := exec.Command(git, args...)
		cmd.Dir = root
		cmd.Stdin = strings.NewReader(stdin)
		out, _ := cmd.Output()
		return string(out)
	}
	run("", "init", "-q")
	for dir, content := range ignoreFiles {
		must(t, os.MkdirAll(filepath.Join(root, dir), 0o755))
		must(t, os.WriteFile(filepath.Join(root, dir, ".gitignore"), []byte(content), 0o644))
	}
	var in strings.Builder
	for _, tc := range ignorePaths {
		p := filepath.Join(root, tc.path)
		if tc.isDir {
			must(t, os.MkdirAll(p, 0o755))
		} else if _, err := os.Stat(p); os.IsNotExist(err) {
			must(t, os.MkdirAll(filepath.Dir(p), 0o755))
			must(t, os.WriteFile(p, nil, 0o644))
		}
		in.WriteString(tc.path + "\n")
	}
	ignored := map[string]bool{}
	for _, l := range strings.Split(run(in.String(), "check-ignore", "--no-index", "--stdin"), "\n") {
		if l != "" {
			ignored[l] = true
		}
	}
	ig := newTestIgnore()
	for _, tc := range ignorePaths {
		if tc.path == "dist" && !tc.isDir {
			continue // the same path cannot be both on disk
		}
		if got := ig.Match(tc.path, tc.isDir); got != ignored[tc.path] {
			t.Errorf("%q: we say %v, git says %v", tc.path, got, ignored[tc.path])
		}
	}
}

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		pat, name string
		want      bool
	}{
		{"*", "anything", true},
		{"*.go", "main.go", true},
		{"*.go", "main.go.bak", false},
		{"a*b*c", "aXXbYYc", true},
		{"a*b*c", "aXXbYY", false},
		{"?.c", "x.c", true},
		{"?.c", "xy.c", false},
		{"[a-c]x", "bx", true},
		{"[a-c]x", "dx", false},
		{"[!a-c]x", "dx", true},
		{"[^a-c]x", "ax", false},
		{"[]]", "]", true},
		{`\*`, "*", true},
		{`\*`, "a", false},
		{"[unclosed", "[unclosed", true},
	}
	for _, tc := range tests {
		if got := globMatch(tc.pat, tc.name); got != tc.want {
			t.Errorf("globMatch(%q, %q) = %v, want %v", tc.pat, tc.name, got, tc.want)
		}
	}
}

func TestIgnoreLoad(t *testing.T) {
	ws, root := newWorkspace(t)
	must(t, os.MkdirAll(filepath.Join(root, ".git", "info"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, ".git", "info", "exclude"), []byte("*.bak\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, ".gitignore"), []byte("*.o\n"), 0o644))
	ig := NewIgnore()
	must(t, ig.Load(ws, ""))
	if !ig.Match("x.o", false) || !ig.Match("x.bak", false) || ig.Match("x.c", false) {
		t.Fatal("rules not loaded")
	}
	must(t, os.Remove(filepath.Join(root, ".gitignore")))
	must(t, ig.Load(ws, ""))
	if ig.Match("x.o", false) {
		t.Fatal("rules of a deleted .gitignore kept")
	}
}
