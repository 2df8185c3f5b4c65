package files

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fixture builds a workspace next to an "outside" folder holding a secret.
type fixture struct {
	ws      *Workspace
	root    string
	outside string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	base := t.TempDir()
	root := filepath.Join(base, "ws")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{root, outside, filepath.Join(root, "sub", "deep"), filepath.Join(outside, "d")} {
		must(t, os.MkdirAll(d, 0o755))
	}
	must(t, os.WriteFile(filepath.Join(outside, "secret"), []byte("SECRET"), 0o644))
	must(t, os.WriteFile(filepath.Join(outside, "d", "f"), []byte("SECRET"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "a.txt"), []byte("hello"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "sub", "deep", "f"), []byte("deep"), 0o644))
	links := map[string]string{
		"in-rel":      "a.txt",
		"in-abs":      filepath.Join(root, "a.txt"),
		"in-dir":      "sub/deep",
		"sub/up":      "..",
		"out-file":    filepath.Join(outside, "secret"),
		"out-dir":     outside,
		"out-rel":     "../outside",
		"root-up":     "..",
		"loop-a":      "loop-b",
		"loop-b":      "loop-a",
		"self":        "self",
		"dangle-out":  filepath.Join(outside, "new"),
		"dangle-in":   "new-target",
		"chain-1":     "chain-2",
		"chain-2":     "sub/up/out-file",
		"sub/deep/up": "../../..",
	}
	for name, target := range links {
		must(t, os.Symlink(target, filepath.Join(root, name)))
	}
	ws, err := Open(root, nil)
	must(t, err)
	t.Cleanup(func() { closeOK(t, ws) })
	return &fixture{ws: ws, root: root, outside: outside}
}

// closeOK closes c at the end of a test, failing the test if Close fails.
func closeOK(t testing.TB, c io.Closer) {
	t.Helper()
	if err := c.Close(); err != nil {
		t.Error(err)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// outsideUnchanged fails if anything in the outside folder changed.
func (f *fixture) outsideUnchanged(t *testing.T) {
	t.Helper()
	ents, err := os.ReadDir(f.outside)
	must(t, err)
	if len(ents) != 2 {
		t.Fatalf("outside folder changed: %d entries", len(ents))
	}
	for _, p := range []string{"secret", "d/f"} {
		b, err := os.ReadFile(filepath.Join(f.outside, p))
		if err != nil || string(b) != "SECRET" {
			t.Fatalf("outside %s changed: %q %v", p, b, err)
		}
	}
}

func TestReadConfinement(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name string
		path string
		want string
		err  error
	}{
		{"plain", "a.txt", "hello", nil},
		{"dot slash", "./a.txt", "hello", nil},
		{"dotdot inside", "sub/../a.txt", "hello", nil},
		{"absolute inside", filepath.Join(f.root, "a.txt"), "hello", nil},
		{"symlink in relative", "in-rel", "hello", nil},
		{"symlink in absolute", "in-abs", "hello", nil},
		{"symlinked dir in", "in-dir/f", "deep", nil},
		{"symlink up stays in", "sub/up/a.txt", "hello", nil},
		{"dotdot after symlinked dir", "in-dir/../deep/f", "deep", nil},
		{"dotdot escapes", "../outside/secret", "", ErrOutsideWorkspace},
		{"dotdot deep escape", "sub/deep/../../../outside/secret", "", ErrOutsideWorkspace},
		{"absolute outside", filepath.Join(f.outside, "secret"), "", ErrOutsideWorkspace},
		{"symlink file out", "out-file", "", ErrOutsideWorkspace},
		{"symlink dir out", "out-dir/secret", "", ErrOutsideWorkspace},
		{"symlink relative out", "out-rel/secret", "", ErrOutsideWorkspace},
		{"symlink to parent of root", "root-up/outside/secret", "", ErrOutsideWorkspace},
		{"nested symlink out", "sub/deep/up/outside/secret", "", ErrOutsideWorkspace},
		{"chain of symlinks out", "chain-1", "", ErrOutsideWorkspace},
		{"loop", "loop-a", "", ErrSymlinkLoop},
		{"self loop", "self", "", ErrSymlinkLoop},
		{"loop in the middle", "loop-a/x", "", ErrSymlinkLoop},
		{"nul byte", "a.txt\x00", "", ErrInvalidPath},
		{"missing", "nope", "", fs.ErrNotExist},
		{"directory", "sub", "", ErrIsDir},
		{"dangling inside", "dangle-in", "", fs.ErrNotExist},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := f.ws.ReadFile("s1", tc.path, ReadOptions{})
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("ReadFile(%q) = %v, want %v", tc.path, err, tc.err)
				}
				// The refusal names what was refused: the operation and
				// the path as given.
				if msg := err.Error(); !strings.HasPrefix(msg, "files: read "+tc.path+": ") {
					t.Fatalf("ReadFile(%q) says %q: the operation or the path is missing", tc.path, msg)
				}
				return
			}
			if err != nil {
				t.Fatalf("ReadFile(%q): %v", tc.path, err)
			}
			if string(c.Data) != tc.want {
				t.Fatalf("ReadFile(%q) = %q, want %q", tc.path, c.Data, tc.want)
			}
		})
	}
}

func TestWriteConfinement(t *testing.T) {
	tests := []struct {
		name string
		op   func(ws *Workspace, root string) error
		err  error
	}{
		{"write dotdot", func(ws *Workspace, _ string) error { return ws.WriteFile("s", "../outside/secret", []byte("x")) }, ErrOutsideWorkspace},
		{"write absolute outside", func(ws *Workspace, root string) error {
			return ws.WriteFile("s", filepath.Join(filepath.Dir(root), "outside", "secret"), []byte("x"))
		}, ErrOutsideWorkspace},
		{"write through file symlink out", func(ws *Workspace, _ string) error { return ws.WriteFile("s", "out-file", []byte("x")) }, ErrOutsideWorkspace},
		{"write through dir symlink out", func(ws *Workspace, _ string) error { return ws.WriteFile("s", "out-dir/secret", []byte("x")) }, ErrOutsideWorkspace},
		{"write new file under dir symlink out", func(ws *Workspace, _ string) error { return ws.WriteFile("s", "out-dir/new", []byte("x")) }, ErrOutsideWorkspace},
		{"write dangling symlink out", func(ws *Workspace, _ string) error { return ws.WriteFile("s", "dangle-out", []byte("x")) }, ErrOutsideWorkspace},
		{"create dangling symlink out", func(ws *Workspace, _ string) error { return ws.CreateFile("s", "dangle-out", []byte("x")) }, fs.ErrExist},
		{"write loop", func(ws *Workspace, _ string) error { return ws.WriteFile("s", "loop-a", []byte("x")) }, ErrSymlinkLoop},
		{"mkdir dotdot", func(ws *Workspace, _ string) error { return ws.Mkdir("s", "../outside/newdir") }, ErrOutsideWorkspace},
		{"mkdir under symlink out", func(ws *Workspace, _ string) error { return ws.Mkdir("s", "out-dir/newdir") }, ErrOutsideWorkspace},
		{"rename to outside", func(ws *Workspace, _ string) error { return ws.Rename("s", "a.txt", "../outside/a.txt") }, ErrOutsideWorkspace},
		{"rename from outside", func(ws *Workspace, _ string) error { return ws.Rename("s", "out-dir/secret", "stolen") }, ErrOutsideWorkspace},
		{"rename into symlink out", func(ws *Workspace, _ string) error { return ws.Rename("s", "a.txt", "out-dir/a.txt") }, ErrOutsideWorkspace},
		{"delete through symlink out", func(ws *Workspace, _ string) error { return ws.Delete("s", "out-dir/secret") }, ErrOutsideWorkspace},
		{"delete dotdot", func(ws *Workspace, _ string) error { return ws.Delete("s", "sub/../../outside") }, ErrOutsideWorkspace},
		{"delete root", func(ws *Workspace, _ string) error { return ws.Delete("s", ".") }, ErrRoot},
		{"delete root via dotdot", func(ws *Workspace, _ string) error { return ws.Delete("s", "sub/..") }, ErrRoot},
		{"upload outside", func(ws *Workspace, root string) error {
			_, err := ws.Upload("s", filepath.Join(root, "a.txt"), "../outside/up")
			return err
		}, ErrOutsideWorkspace},
		{"download through symlink out", func(ws *Workspace, root string) error {
			_, err := ws.Download("s", "out-file", filepath.Join(filepath.Dir(root), "dl"))
			return err
		}, ErrOutsideWorkspace},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			err := tc.op(f.ws, f.root)
			if !errors.Is(err, tc.err) {
				t.Fatalf("got %v, want %v", err, tc.err)
			}
			f.outsideUnchanged(t)
		})
	}
}

// A symlink deleted is the link, never its target.
func TestDeleteSymlinkKeepsTarget(t *testing.T) {
	f := newFixture(t)
	must(t, f.ws.Delete("s", "out-dir"))
	must(t, f.ws.Delete("s", "in-rel"))
	f.outsideUnchanged(t)
	if _, err := os.Lstat(filepath.Join(f.root, "out-dir")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("link still there: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(f.root, "a.txt")); string(b) != "hello" {
		t.Fatalf("target of an inside link changed: %q", b)
	}
}

// Deleting a folder that holds a symlink to the outside removes the link,
// not what it points to.
func TestDeleteTreeDoesNotFollow(t *testing.T) {
	f := newFixture(t)
	must(t, os.Symlink(f.outside, filepath.Join(f.root, "sub", "deep", "escape")))
	must(t, f.ws.Delete("s", "sub"))
	f.outsideUnchanged(t)
	if _, err := os.Lstat(filepath.Join(f.root, "sub")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("sub still there: %v", err)
	}
}

func TestSwapBetweenCheckAndUse(t *testing.T) {
	tests := []struct {
		name  string
		at    string // the relative path at which the hook swaps
		swap  func(f *fixture)
		op    func(ws *Workspace) error
		wantE error
	}{
		{
			name: "intermediate dir becomes a symlink out (read)",
			at:   "d",
			swap: func(f *fixture) { swapForLink(f, "d", filepath.Join(f.outside, "d")) },
			op: func(ws *Workspace) error {
				_, err := ws.ReadFile("s", "d/f", ReadOptions{})
				return err
			},
			wantE: ErrOutsideWorkspace,
		},
		{
			name: "final file becomes a symlink out (read)",
			at:   "d/f",
			swap: func(f *fixture) { swapForLink(f, "d/f", filepath.Join(f.outside, "secret")) },
			op: func(ws *Workspace) error {
				_, err := ws.ReadFile("s", "d/f", ReadOptions{})
				return err
			},
			wantE: ErrOutsideWorkspace,
		},
		{
			name: "final file becomes a symlink out (write)",
			at:   "d/f",
			swap: func(f *fixture) { swapForLink(f, "d/f", filepath.Join(f.outside, "secret")) },
			op:   func(ws *Workspace) error { return ws.WriteFile("s", "d/f", []byte("pwned")) },
			// The write lands in the workspace's d/ (replacing the link) or is
			// refused; the outside is untouched either way.
			wantE: ErrOutsideWorkspace,
		},
		{
			name: "held parent dir moved outside (read)",
			at:   "d/f",
			swap: func(f *fixture) {
				if err := os.Rename(filepath.Join(f.outside, "d"), filepath.Join(f.outside, "d-old")); err != nil {
					panic(err)
				}
				if err := os.Rename(filepath.Join(f.root, "d"), filepath.Join(f.outside, "d")); err != nil {
					panic(err)
				}
				if err := os.Rename(filepath.Join(f.outside, "d"), filepath.Join(f.outside, "d-old", "moved")); err != nil {
					panic(err)
				}
			},
			op: func(ws *Workspace) error {
				_, err := ws.ReadFile("s", "d/f", ReadOptions{})
				return err
			},
			wantE: ErrOutsideWorkspace,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			must(t, os.Mkdir(filepath.Join(f.root, "d"), 0o755))
			must(t, os.WriteFile(filepath.Join(f.root, "d", "f"), []byte("inside"), 0o644))
			fired := false
			f.ws.hookResolved = func(rel string) {
				if rel == tc.at && !fired {
					fired = true
					tc.swap(f)
				}
			}
			err := tc.op(f.ws)
			if !fired {
				t.Fatal("the swap hook never ran")
			}
			if !errors.Is(err, tc.wantE) {
				t.Fatalf("got %v, want %v", err, tc.wantE)
			}
			if b, _ := os.ReadFile(filepath.Join(f.outside, "secret")); string(b) != "SECRET" {
				t.Fatalf("outside secret changed: %q", b)
			}
		})
	}
}

func swapForLink(f *fixture, rel, target string) {
	p := filepath.Join(f.root, rel)
	if err := os.RemoveAll(p); err != nil {
		panic(err)
	}
	if err := os.Symlink(target, p); err != nil {
		panic(err)
	}
}

// A directory flipping between a real folder and a symlink to the outside,
// as fast as a goroutine can, never lets a read see the outside.
func TestSwapRace(t *testing.T) {
	f := newFixture(t)
	d := filepath.Join(f.root, "d")
	must(t, os.Mkdir(d, 0o755))
	must(t, os.WriteFile(filepath.Join(d, "f"), []byte("inside"), 0o644))
	must(t, os.Rename(d, filepath.Join(f.root, "d-real")))
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			// Each step races the others and the resolver on purpose:
			// any of them may fail, and only the resolver's answers count.
			_ = os.Symlink(filepath.Join(f.outside, "d"), filepath.Join(f.root, "d-link"))
			_ = os.Rename(filepath.Join(f.root, "d-link"), d)
			_ = os.Remove(d)
			_ = os.Rename(filepath.Join(f.root, "d-real"), d)
			_ = os.Rename(d, filepath.Join(f.root, "d-real"))
		}
	}()
	deadline := time.Now().Add(300 * time.Millisecond)
	reads := 0
	for time.Now().Before(deadline) {
		c, err := f.ws.ReadFile("s", "d/f", ReadOptions{})
		if err == nil && !bytes.Equal(c.Data, []byte("inside")) {
			t.Fatalf("read escaped the workspace: %q", c.Data)
		}
		_ = f.ws.WriteFile("s", "d/f", []byte("inside"))
		reads++
	}
	close(stop)
	<-done
	f.outsideUnchanged(t)
	if reads == 0 {
		t.Fatal("no read ran")
	}
}
