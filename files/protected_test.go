package files

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// hostileWorkspace lays out a workspace with every protected path and the
// symlinks a hostile repository would ship to reach them.
func hostileWorkspace(t *testing.T) (*Workspace, string) {
	t.Helper()
	ws, root := newWorkspace(t)
	for _, d := range []string{".state/sessions", ".state/inner", ".git/hooks", ".atelier/workflows", "sub/inner", "vendor/lib/.git"} {
		must(t, os.MkdirAll(filepath.Join(root, d), 0o755))
	}
	for _, f := range []string{".atelier.toml", ".git/config", "main.go", "sub/x.txt"} {
		must(t, os.WriteFile(filepath.Join(root, f), []byte("x"), 0o644))
	}
	links := map[string]string{
		"link":      ".atelier.toml",
		"dir":       ".state",
		"hooks":     ".git/hooks",
		"gitcfg":    ".git/config",
		"workflow":  ".atelier/workflows/x.toml", // dangling: the write creates it
		"abs":       filepath.Join(root, ".state"),
		"sub/up":    "..",
		"deep":      "sub/inner",
		"intostate": ".state/inner",
		"chain":     "link",
		"plain":     "main.go",
	}
	for name, to := range links {
		must(t, os.Symlink(to, filepath.Join(root, name)))
	}
	return ws, root
}

// TestProtectedPath: every way a hostile workspace or agent can name a
// protected path is caught, each ordinary path is not, and rel is where the
// workspace's own write would land.
func TestProtectedPath(t *testing.T) {
	ws, root := hostileWorkspace(t)
	cases := []struct {
		name, path string
		protected  bool
		rel        string
	}{
		{"config", ".atelier.toml", true, ".atelier.toml"},
		{"state file", ".state/x", true, ".state/x"},
		{"state folder", ".state", true, ".state"},
		{"absolute config", filepath.Join(root, ".atelier.toml"), true, ".atelier.toml"},
		{"absolute state", filepath.Join(root, ".state/x"), true, ".state/x"},
		{"dot-dot into state", "sub/../.state/x", true, ".state/x"},
		{"dot-slash config", ".//.atelier.toml", true, ".atelier.toml"},
		{"symlink to config", "link", true, ".atelier.toml"},
		{"symlink chain to config", "chain", true, ".atelier.toml"},
		{"symlink to state", "dir/x", true, ".state/x"},
		{"absolute symlink to state", "abs/new/file", true, ".state/new/file"},
		{"symlink to git hooks", "hooks/pre-commit", true, ".git/hooks/pre-commit"},
		{"symlink to git config", "gitcfg", true, ".git/config"},
		{"git hooks", ".git/hooks/pre-commit", true, ".git/hooks/pre-commit"},
		{"nested git", "vendor/lib/.git/config", true, "vendor/lib/.git/config"},
		{"dangling symlink to a workflow", "workflow", true, ".atelier/workflows/x.toml"},
		{"workflow", ".atelier/workflows/x.toml", true, ".atelier/workflows/x.toml"},
		{"symlink to the root", "sub/up/.state/x", true, ".state/x"},
		{"missing folder then dot-dot", "nothere/../dir/x", true, ".state/x"},
		{"missing folders", ".state/a/b/c", true, ".state/a/b/c"},
		{"through a link then dot-dot", "intostate/../x", true, ".state/x"},
		{"absolute through a link then dot-dot", root + "/intostate/../x", true, "x"},
		{"lexically protected only", "deep/../.state/x", true, "sub/.state/x"},
		{"plain file", "main.go", false, "main.go"},
		{"new file", "sub/new.go", false, "sub/new.go"},
		{"absolute plain", filepath.Join(root, "sub/x.txt"), false, "sub/x.txt"},
		{"symlink to a plain file", "plain", false, "main.go"},
		{"state elsewhere", "sub/.state/x", false, "sub/.state/x"},
		{"look-alike names", ".statefile", false, ".statefile"},
		{"gitignore", ".gitignore", false, ".gitignore"},
		{"github folder", ".github/workflows/ci.yml", false, ".github/workflows/ci.yml"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rel, protected, err := ws.ProtectedPath(c.path)
			if err != nil {
				t.Fatalf("ProtectedPath(%q): %v", c.path, err)
			}
			if protected != c.protected || rel != c.rel {
				t.Errorf("ProtectedPath(%q) = %q, %v; want %q, %v", c.path, rel, protected, c.rel, c.protected)
			}
		})
	}
}

// TestProtectedPathOutside: a path the workspace refuses to write is not
// protected, unless the operating system's reading of it lands on one (an
// agent CLI writes through it), and the workspace opened through a symlink
// knows its absolute paths under both names.
func TestProtectedPathOutside(t *testing.T) {
	ws, root := hostileWorkspace(t)
	for _, p := range []string{"../elsewhere", "/etc/passwd"} {
		if _, protected, err := ws.ProtectedPath(p); protected || !errors.Is(err, ErrOutsideWorkspace) {
			t.Errorf("ProtectedPath(%q): protected %v, err %v", p, protected, err)
		}
	}
	back := "../" + filepath.Base(root) + "/.state/x"
	if _, protected, _ := ws.ProtectedPath(back); !protected {
		t.Errorf("%s leaves and comes back into .state/, not protected", back)
	}
	alias := filepath.Join(t.TempDir(), "alias")
	must(t, os.Symlink(root, alias))
	via, err := Open(alias, nil)
	must(t, err)
	defer closeOK(t, via)
	for _, p := range []string{filepath.Join(alias, ".state/x"), filepath.Join(alias, "link")} {
		if _, protected, err := via.ProtectedPath(p); !protected || err != nil {
			t.Errorf("ProtectedPath(%q) through the alias: protected %v, err %v", p, protected, err)
		}
		// The workspace opened under its real name does not know the
		// alias, which still leads into it.
		if _, protected, _ := ws.ProtectedPath(p); !protected {
			t.Errorf("ProtectedPath(%q) by an unknown alias: not protected", p)
		}
	}
}

// TestReaches: the readings of a path, for matchers other than the
// protected set (secret files).
func TestReaches(t *testing.T) {
	ws, root := hostileWorkspace(t)
	must(t, os.WriteFile(filepath.Join(root, ".env"), []byte("KEY=x"), 0o600))
	must(t, os.Symlink(".env", filepath.Join(root, "notes.txt")))
	got, err := ws.Reaches("notes.txt")
	must(t, err)
	if len(got) != 2 || got[0] != ".env" || got[1] != "notes.txt" {
		t.Errorf("Reaches(notes.txt) = %q", got)
	}
	got, err = ws.Reaches(root + "/sub/../.env")
	must(t, err)
	if len(got) != 1 || got[0] != ".env" {
		t.Errorf("Reaches(abs sub/../.env) = %q", got)
	}
}
