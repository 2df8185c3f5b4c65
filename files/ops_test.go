package files

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func newWorkspace(t testing.TB) (*Workspace, string) {
	t.Helper()
	root := t.TempDir()
	ws, err := Open(root, nil)
	must(t, err)
	t.Cleanup(func() { closeOK(t, ws) })
	return ws, ws.Root()
}

func TestWriteKeepsModeAndCreatesParents(t *testing.T) {
	ws, root := newWorkspace(t)
	must(t, os.WriteFile(filepath.Join(root, "run.sh"), []byte("old"), 0o751))
	must(t, ws.WriteFile("s1", "run.sh", []byte("new")))
	fi, err := os.Stat(filepath.Join(root, "run.sh"))
	must(t, err)
	if fi.Mode().Perm() != 0o751 {
		t.Fatalf("mode = %v, want 0751", fi.Mode().Perm())
	}
	must(t, ws.WriteFile("s1", "a/b/c.txt", []byte("deep")))
	if b, _ := os.ReadFile(filepath.Join(root, "a/b/c.txt")); string(b) != "deep" {
		t.Fatalf("content = %q", b)
	}
	// A write through an inside symlink replaces the target and keeps the link.
	must(t, os.Symlink("a/b/c.txt", filepath.Join(root, "link")))
	must(t, ws.WriteFile("s1", "link", []byte("via link")))
	if fi, _ := os.Lstat(filepath.Join(root, "link")); fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatal("the symlink was replaced")
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a/b/c.txt")); string(b) != "via link" {
		t.Fatalf("target content = %q", b)
	}
	ents, _ := os.ReadDir(root)
	for _, e := range ents {
		if isTemp(e.Name()) {
			t.Fatalf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestOperations(t *testing.T) {
	tests := []struct {
		name  string
		setup map[string]string // path -> content; a trailing / makes a folder
		op    func(ws *Workspace) error
		err   error
		after map[string]string // path -> content, "" for a folder, "-" for absent
	}{
		{"create new", nil, func(ws *Workspace) error { return ws.CreateFile("op", "n/new.txt", []byte("x")) }, nil,
			map[string]string{"n/new.txt": "x"}},
		{"create existing", map[string]string{"a": "old"}, func(ws *Workspace) error { return ws.CreateFile("op", "a", []byte("x")) }, fs.ErrExist,
			map[string]string{"a": "old"}},
		{"write over folder", map[string]string{"d/": ""}, func(ws *Workspace) error { return ws.WriteFile("op", "d", []byte("x")) }, ErrIsDir,
			map[string]string{"d": ""}},
		{"write root", nil, func(ws *Workspace) error { return ws.WriteFile("op", ".", []byte("x")) }, ErrRoot, nil},
		{"mkdir", nil, func(ws *Workspace) error { return ws.Mkdir("op", "x/y") }, nil, map[string]string{"x/y": ""}},
		{"mkdir existing", map[string]string{"x/": ""}, func(ws *Workspace) error { return ws.Mkdir("op", "x") }, fs.ErrExist, nil},
		{"rename", map[string]string{"a": "A"}, func(ws *Workspace) error { return ws.Rename("op", "a", "m/b") }, nil,
			map[string]string{"a": "-", "m/b": "A"}},
		{"rename folder", map[string]string{"d/f": "F"}, func(ws *Workspace) error { return ws.Rename("op", "d", "e") }, nil,
			map[string]string{"d": "-", "e/f": "F"}},
		{"rename never replaces", map[string]string{"a": "A", "b": "B"}, func(ws *Workspace) error { return ws.Rename("op", "a", "b") }, fs.ErrExist,
			map[string]string{"a": "A", "b": "B"}},
		{"rename missing", nil, func(ws *Workspace) error { return ws.Rename("op", "nope", "b") }, fs.ErrNotExist, nil},
		{"delete file", map[string]string{"a": "A"}, func(ws *Workspace) error { return ws.Delete("op", "a") }, nil, map[string]string{"a": "-"}},
		{"delete folder", map[string]string{"d/e/f": "F", "d/g": "G"}, func(ws *Workspace) error { return ws.Delete("op", "d") }, nil,
			map[string]string{"d": "-"}},
		{"delete missing", nil, func(ws *Workspace) error { return ws.Delete("op", "nope") }, fs.ErrNotExist, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws, root := newWorkspace(t)
			for p, c := range tc.setup {
				full := filepath.Join(root, p)
				if strings.HasSuffix(p, "/") {
					must(t, os.MkdirAll(full, 0o755))
					continue
				}
				must(t, os.MkdirAll(filepath.Dir(full), 0o755))
				must(t, os.WriteFile(full, []byte(c), 0o644))
			}
			err := tc.op(ws)
			if tc.err == nil && err != nil || tc.err != nil && !errors.Is(err, tc.err) {
				t.Fatalf("got %v, want %v", err, tc.err)
			}
			for p, want := range tc.after {
				checkPath(t, filepath.Join(root, p), want)
			}
		})
	}
}

func checkPath(t *testing.T, full, want string) {
	t.Helper()
	fi, err := os.Lstat(full)
	switch {
	case want == "-":
		if !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%s should be absent: %v", full, err)
		}
	case err != nil:
		t.Fatalf("%s: %v", full, err)
	case want == "":
		if !fi.IsDir() {
			t.Fatalf("%s should be a folder", full)
		}
	default:
		b, _ := os.ReadFile(full)
		if string(b) != want {
			t.Fatalf("%s = %q, want %q", full, b, want)
		}
	}
}

func TestReadLimitsAndBinary(t *testing.T) {
	ws, root := newWorkspace(t)
	must(t, os.WriteFile(filepath.Join(root, "big"), bytes.Repeat([]byte("x"), 2000), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "bin"), []byte("PK\x03\x04\x00\x00data"), 0o644))
	must(t, syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644))
	if _, err := ws.ReadFile("s", "big", ReadOptions{MaxBytes: 1000}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("big: %v", err)
	}
	if c, err := ws.ReadFile("s", "big", ReadOptions{MaxBytes: 2000}); err != nil || len(c.Data) != 2000 || c.Binary {
		t.Fatalf("big within limit: %v", err)
	}
	if _, err := ws.ReadFile("s", "bin", ReadOptions{}); !errors.Is(err, ErrBinary) {
		t.Fatalf("bin: %v", err)
	}
	if c, err := ws.ReadFile("s", "bin", ReadOptions{AllowBinary: true}); err != nil || !c.Binary {
		t.Fatalf("bin allowed: %v", err)
	}
	if _, err := ws.ReadFile("s", "fifo", ReadOptions{}); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("fifo: %v", err)
	}
}

func TestUploadDownload(t *testing.T) {
	ws, root := newWorkspace(t)
	host := t.TempDir()
	src := filepath.Join(host, "src")
	must(t, os.MkdirAll(filepath.Join(src, "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(src, "a.txt"), []byte("A"), 0o640))
	must(t, os.WriteFile(filepath.Join(src, "sub", "b.txt"), []byte("BB"), 0o644))
	must(t, os.Symlink("/etc/passwd", filepath.Join(src, "sub", "evil")))

	st, err := ws.Upload("op", src, "up")
	must(t, err)
	if st.Files != 2 || st.Dirs != 2 || st.Bytes != 3 || len(st.Skipped) != 1 {
		t.Fatalf("upload stats = %+v", st)
	}
	checkPath(t, filepath.Join(root, "up/sub/b.txt"), "BB")
	checkPath(t, filepath.Join(root, "up/sub/evil"), "-")
	if _, err := ws.Upload("op", filepath.Join(src, "a.txt"), "up/a.txt"); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("upload over an existing file: %v", err)
	}

	must(t, os.Symlink("/etc", filepath.Join(root, "up", "etc-link")))
	out := filepath.Join(host, "out")
	st, err = ws.Download("op", "up", out)
	must(t, err)
	if st.Files != 2 || st.Dirs != 2 || len(st.Skipped) != 1 {
		t.Fatalf("download stats = %+v", st)
	}
	checkPath(t, filepath.Join(out, "sub/b.txt"), "BB")
	checkPath(t, filepath.Join(out, "etc-link"), "-")
	if _, err := ws.Download("op", "up/a.txt", out); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("download over an existing path: %v", err)
	}
	st, err = ws.Download("op", "up/a.txt", filepath.Join(host, "one.txt"))
	must(t, err)
	checkPath(t, filepath.Join(host, "one.txt"), "A")
}

func TestIsProtected(t *testing.T) {
	tests := map[string]bool{
		".atelier.toml":          true,
		"./.atelier.toml":        true,
		".state":                 true,
		".state/":                true,
		".state/sessions/x.json": true,
		"./.state/x":             true,
		"a/../.state":            true,
		"a/../.state/git/HEAD":   true,
		"/.state/x":              true,
		".State/x":               false,
		".statefile":             false,
		"sub/.state/x":           false,
		"sub/.atelier.toml":      false,
		"main.go":                false,
	}
	for p, want := range tests {
		if got := IsProtected(p); got != want {
			t.Errorf("IsProtected(%q) = %v, want %v", p, got, want)
		}
	}
	ws, root := newWorkspace(t)
	must(t, os.Mkdir(filepath.Join(root, ".state"), 0o755))
	must(t, os.Symlink(".state", filepath.Join(root, "innocent")))
	if _, prot, err := ws.ProtectedPath("innocent/sessions/x"); err != nil || !prot {
		t.Errorf("a symlink into .state/ is not seen as protected (%v)", err)
	}
	if _, prot, err := ws.ProtectedPath("main.go"); err != nil || prot {
		t.Errorf("main.go seen as protected (%v)", err)
	}
}

// TestAtomicWriteKill kills a child process mid-write, over and over: the
// file always holds one complete version, never a torn mix.
func TestAtomicWriteKill(t *testing.T) {
	if dir := os.Getenv("FILES_TEST_WRITER_DIR"); dir != "" {
		atomicWriterChild(dir)
		return
	}
	if testing.Short() {
		t.Skip("kills child processes")
	}
	ws, root := newWorkspace(t)
	const size = 4 << 20
	versions := [][]byte{bytes.Repeat([]byte("a"), size), bytes.Repeat([]byte("b"), size+1)}
	must(t, ws.WriteFile("op", "big", versions[0]))
	for i := 0; i < 6; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestAtomicWriteKill$")
		cmd.Env = append(os.Environ(), "FILES_TEST_WRITER_DIR="+root)
		must(t, cmd.Start())
		time.Sleep(time.Duration(60+i*37) * time.Millisecond)
		must(t, cmd.Process.Signal(syscall.SIGKILL))
		_ = cmd.Wait() // reports the SIGKILL just sent
		b, err := os.ReadFile(filepath.Join(root, "big"))
		must(t, err)
		if !bytes.Equal(b, versions[0]) && !bytes.Equal(b, versions[1]) {
			t.Fatalf("kill %d: torn file of %d bytes", i, len(b))
		}
	}
}

func atomicWriterChild(dir string) {
	ws, err := Open(dir, nil)
	if err != nil {
		os.Exit(2)
	}
	const size = 4 << 20
	versions := [][]byte{bytes.Repeat([]byte("a"), size), bytes.Repeat([]byte("b"), size+1)}
	for i := 0; ; i++ {
		if err := ws.WriteFile("child", "big", versions[i%2]); err != nil {
			os.Exit(3)
		}
	}
}
