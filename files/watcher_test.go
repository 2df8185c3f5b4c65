package files

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// collector gathers a watcher's batches.
type collector struct {
	t       testing.TB
	w       *Watcher
	batches int
	all     []Change
}

func startWatcher(t testing.TB, opt WatcherOptions) (*Workspace, *collector) {
	t.Helper()
	ws, _ := newWorkspace(t)
	return ws, watch(t, ws, opt)
}

func watch(t testing.TB, ws *Workspace, opt WatcherOptions) *collector {
	t.Helper()
	if opt.Quiet == 0 {
		opt.Quiet = 50 * time.Millisecond
	}
	w, err := NewWatcher(ws, opt)
	must(t, err)
	t.Cleanup(func() { closeOK(t, w) })
	return &collector{t: t, w: w}
}

// until reads batches until cond holds for everything gathered so far.
func (c *collector) until(what string, cond func(all []Change) bool) {
	c.t.Helper()
	timeout := time.After(20 * time.Second)
	for !cond(c.all) {
		select {
		case b, ok := <-c.w.Events():
			if !ok {
				c.t.Fatalf("events closed while waiting for %s", what)
			}
			c.batches++
			c.all = append(c.all, b...)
		case <-timeout:
			c.t.Fatalf("timed out waiting for %s; got %s", what, describe(c.all))
		}
	}
}

// settle reads whatever arrives within a few quiet windows.
func (c *collector) settle() {
	for {
		select {
		case b := <-c.w.Events():
			c.batches++
			c.all = append(c.all, b...)
		case <-time.After(400 * time.Millisecond):
			return
		}
	}
}

func (c *collector) reset() { c.all, c.batches = nil, 0 }

func describe(cs []Change) string {
	var s []string
	for i, c := range cs {
		if i == 20 {
			s = append(s, fmt.Sprintf("... %d more", len(cs)-20))
			break
		}
		x := fmt.Sprintf("%s %s by %s", c.Kind, c.Path, c.By)
		if c.OldPath != "" {
			x += " from " + c.OldPath
		}
		if c.Message != "" {
			x += ": " + c.Message
		}
		s = append(s, x)
	}
	return "[" + strings.Join(s, "; ") + "]"
}

func has(kind ChangeKind, path string) func([]Change) bool {
	return func(all []Change) bool { return find(all, kind, path) != nil }
}

func find(all []Change, kind ChangeKind, path string) *Change {
	for i := range all {
		if all[i].Kind == kind && all[i].Path == path {
			return &all[i]
		}
	}
	return nil
}

func TestWatcherNewFolderWithFiles(t *testing.T) {
	ws, c := startWatcher(t, WatcherOptions{})
	// A folder arriving whole (moved in from elsewhere) and one filled right
	// after its creation: both report everything inside.
	staging := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(staging, "d", "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(staging, "d", "a"), []byte("a"), 0o644))
	must(t, os.WriteFile(filepath.Join(staging, "d", "sub", "b"), []byte("b"), 0o644))
	must(t, os.Rename(filepath.Join(staging, "d"), ws.Abs("d")))
	must(t, os.MkdirAll(ws.Abs("m/n/o"), 0o755))
	must(t, os.WriteFile(ws.Abs("m/n/o/f"), []byte("f"), 0o644))
	want := []string{"d", "d/a", "d/sub", "d/sub/b", "m", "m/n", "m/n/o", "m/n/o/f"}
	c.until("every created path", func(all []Change) bool {
		for _, p := range want {
			if find(all, Created, p) == nil {
				return false
			}
		}
		return true
	})
	// The new folders are watched: a later edit deep inside is seen.
	c.reset()
	must(t, os.WriteFile(ws.Abs("d/sub/b"), []byte("bb"), 0o644))
	c.until("the edit", has(Changed, "d/sub/b"))
	if ch := find(c.all, Changed, "d/sub/b"); ch.Size != 2 || ch.By != External {
		t.Fatalf("change = %+v", ch)
	}
}

func TestWatcherRename(t *testing.T) {
	ws, root := newWorkspace(t)
	must(t, os.MkdirAll(filepath.Join(root, "dir", "in"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "a.txt"), []byte("a"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "dir", "in", "x"), []byte("x"), 0o644))
	c := watch(t, ws, WatcherOptions{})
	must(t, os.Rename(ws.Abs("a.txt"), ws.Abs("b.txt")))
	c.until("the file rename", has(Renamed, "b.txt"))
	if ch := find(c.all, Renamed, "b.txt"); ch.OldPath != "a.txt" {
		t.Fatalf("rename = %+v", ch)
	}
	if find(c.all, Deleted, "a.txt") != nil || find(c.all, Created, "b.txt") != nil {
		t.Fatalf("a rename reported as delete/create: %s", describe(c.all))
	}
	c.reset()
	must(t, os.Rename(ws.Abs("dir"), ws.Abs("moved")))
	c.until("the folder rename", has(Renamed, "moved"))
	// The watches follow the folder: an edit under its new name is reported
	// under the new name.
	c.reset()
	must(t, os.WriteFile(ws.Abs("moved/in/x"), []byte("xx"), 0o644))
	must(t, os.WriteFile(ws.Abs("moved/in/y"), []byte("y"), 0o644))
	c.until("edits in the moved folder", func(all []Change) bool {
		return find(all, Changed, "moved/in/x") != nil && find(all, Created, "moved/in/y") != nil
	})
	for _, ch := range c.all {
		if strings.HasPrefix(ch.Path, "dir/") {
			t.Fatalf("change under the old name: %s", describe(c.all))
		}
	}
}

func TestWatcherDeleteWatchedFolder(t *testing.T) {
	ws, root := newWorkspace(t)
	for i := 0; i < 20; i++ {
		p := filepath.Join(root, "gone", fmt.Sprintf("s%d", i%3), fmt.Sprintf("f%d", i))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte("x"), 0o644))
	}
	c := watch(t, ws, WatcherOptions{})
	must(t, os.RemoveAll(ws.Abs("gone")))
	c.until("the folder's deletion", has(Deleted, "gone"))
	c.settle()
	if ch := find(c.all, Deleted, "gone"); !ch.IsDir {
		t.Fatalf("deletion = %+v", ch)
	}
	for _, ch := range c.all {
		if ch.Path != "gone" {
			t.Fatalf("the folder's contents reported apart: %s", describe(c.all))
		}
	}
	// Recreated, it is watched again.
	c.reset()
	must(t, os.MkdirAll(ws.Abs("gone/again"), 0o755))
	must(t, os.WriteFile(ws.Abs("gone/again/f"), []byte("x"), 0o644))
	c.until("the new folder", has(Created, "gone/again/f"))
}

func TestWatcherAttribution(t *testing.T) {
	ws, c := startWatcher(t, WatcherOptions{})
	must(t, ws.WriteFile("s1", "by-tool.txt", []byte("x")))
	must(t, ws.WriteFile(Operator, "by-editor.txt", []byte("x")))
	must(t, os.WriteFile(ws.Abs("by-someone.txt"), []byte("x"), 0o644))
	scope := ws.Attribution().Begin("s2")
	cmd := exec.Command("sh", "-c", "echo hi > by-command.txt && mkdir -p cmd/dir && echo x > cmd/dir/f")
	cmd.Dir = ws.Root()
	must(t, cmd.Run())
	scope.Release()
	// Right after the release, before the watcher has even read the events
	// above: this one is nobody's.
	must(t, os.WriteFile(ws.Abs("after.txt"), []byte("x"), 0o644))
	want := map[string]string{
		"by-tool.txt": "s1", "by-editor.txt": Operator, "by-someone.txt": External,
		"by-command.txt": "s2", "cmd": "s2", "cmd/dir": "s2", "cmd/dir/f": "s2", "after.txt": External,
	}
	c.until("all changes", func(all []Change) bool {
		for p := range want {
			if find(all, Created, p) == nil {
				return false
			}
		}
		return true
	})
	for p, by := range want {
		if got := find(c.all, Created, p).By; got != by {
			t.Errorf("%s by %q, want %q", p, got, by)
		}
	}
	// Operations other than writes attribute too.
	c.reset()
	must(t, ws.Rename("s3", "by-tool.txt", "renamed.txt"))
	must(t, ws.Delete("s3", "cmd"))
	c.until("rename and delete", func(all []Change) bool {
		return find(all, Renamed, "renamed.txt") != nil && find(all, Deleted, "cmd") != nil
	})
	if a, b := find(c.all, Renamed, "renamed.txt").By, find(c.all, Deleted, "cmd").By; a != "s3" || b != "s3" {
		t.Fatalf("rename by %q, delete by %q; want s3", a, b)
	}
}

// An atomic write shows as one change of the file, never its temporary.
func TestWatcherAtomicWriteIsOneChange(t *testing.T) {
	ws, root := newWorkspace(t)
	must(t, os.WriteFile(filepath.Join(root, "f.go"), []byte("old"), 0o644))
	c := watch(t, ws, WatcherOptions{})
	must(t, ws.WriteFile("s1", "f.go", []byte("new content")))
	c.until("the change", has(Changed, "f.go"))
	c.settle()
	if len(c.all) != 1 {
		t.Fatalf("changes = %s", describe(c.all))
	}
	if ch := c.all[0]; ch.By != "s1" || ch.Size != 11 {
		t.Fatalf("change = %+v", ch)
	}
}

func TestWatcherIgnoresHiddenAndIgnored(t *testing.T) {
	ws, root := newWorkspace(t)
	must(t, os.WriteFile(filepath.Join(root, ".gitignore"), []byte("build/\n*.log\n"), 0o644))
	for _, d := range []string{"build", ".git", "node_modules", ".state", "src"} {
		must(t, os.MkdirAll(filepath.Join(root, d), 0o755))
	}
	c := watch(t, ws, WatcherOptions{})
	for _, p := range []string{"build/out.o", ".git/index", "node_modules/x.js", ".state/s.json", "app.log", "src/app.log"} {
		must(t, os.WriteFile(ws.Abs(p), []byte("x"), 0o644))
	}
	must(t, os.WriteFile(ws.Abs("src/main.go"), []byte("x"), 0o644))
	c.until("the visible change", has(Created, "src/main.go"))
	c.settle()
	if len(c.all) != 1 {
		t.Fatalf("ignored paths reported: %s", describe(c.all))
	}
	// A .gitignore edit takes effect at once.
	c.reset()
	must(t, os.WriteFile(ws.Abs(".gitignore"), []byte("build/\n*.log\n*.tmp\n"), 0o644))
	c.until("the .gitignore change", has(Changed, ".gitignore"))
	must(t, os.WriteFile(ws.Abs("src/x.tmp"), []byte("x"), 0o644))
	must(t, os.WriteFile(ws.Abs("src/y.go"), []byte("x"), 0o644))
	c.until("the visible change", has(Created, "src/y.go"))
	if find(c.all, Created, "src/x.tmp") != nil {
		t.Fatalf("newly ignored file reported: %s", describe(c.all))
	}
}

func TestWatcherOverflowRescan(t *testing.T) {
	ws, root := newWorkspace(t)
	must(t, os.MkdirAll(filepath.Join(root, "old"), 0o755))
	for _, p := range []string{"keep.txt", "edit.txt", "old/del.txt"} {
		must(t, os.WriteFile(filepath.Join(root, p), []byte("x"), 0o644))
	}
	c := watch(t, ws, WatcherOptions{})
	<-c.w.statsDone
	// The kernel drops events, then says it overflowed.
	c.w.dropping.Store(true)
	must(t, os.WriteFile(ws.Abs("edit.txt"), []byte("edited"), 0o644))
	must(t, os.Remove(ws.Abs("old/del.txt")))
	must(t, os.MkdirAll(ws.Abs("new/sub"), 0o755))
	must(t, os.WriteFile(ws.Abs("new/sub/f"), []byte("x"), 0o644))
	must(t, ws.WriteFile("s1", "tool.txt", []byte("x")))
	time.Sleep(50 * time.Millisecond) // let the dropped events pass
	c.w.dropping.Store(false)
	c.w.inject <- fsnotify.ErrEventOverflow
	c.until("the rescan", func(all []Change) bool {
		return find(all, Notice, "") != nil && find(all, Changed, "edit.txt") != nil &&
			find(all, Deleted, "old/del.txt") != nil && find(all, Created, "new/sub/f") != nil &&
			find(all, Created, "tool.txt") != nil
	})
	if find(c.all, Changed, "keep.txt") != nil {
		t.Fatalf("an untouched file reported: %s", describe(c.all))
	}
	if by := find(c.all, Created, "tool.txt").By; by != "s1" {
		t.Fatalf("tool.txt by %q after the rescan", by)
	}
	// The folder found by the rescan is watched.
	c.reset()
	must(t, os.WriteFile(ws.Abs("new/sub/g"), []byte("x"), 0o644))
	c.until("a change in the rescanned folder", has(Created, "new/sub/g"))
}

func TestWatcherPollingFallback(t *testing.T) {
	ws, root := newWorkspace(t)
	for _, d := range []string{"a/b", "c/d", "e"} {
		must(t, os.MkdirAll(filepath.Join(root, d), 0o755))
	}
	must(t, os.WriteFile(filepath.Join(root, "a/b/f"), []byte("x"), 0o644))
	c := watch(t, ws, WatcherOptions{WatchLimit: 2, PollInterval: 30 * time.Millisecond})
	c.until("the notice", has(Notice, ""))
	must(t, os.WriteFile(ws.Abs("a/b/f"), []byte("changed"), 0o644))
	must(t, os.MkdirAll(ws.Abs("n/m"), 0o755))
	must(t, ws.WriteFile("s1", "n/m/g", []byte("x")))
	must(t, os.RemoveAll(ws.Abs("c")))
	c.until("polled changes", func(all []Change) bool {
		return find(all, Changed, "a/b/f") != nil && find(all, Created, "n/m/g") != nil && find(all, Deleted, "c") != nil
	})
	if by := find(c.all, Created, "n/m/g").By; by != "s1" {
		t.Fatalf("polled write by %q", by)
	}
	if find(c.all, Deleted, "c/d") != nil {
		t.Fatalf("deleted folder's contents reported apart: %s", describe(c.all))
	}
	notices := 0
	for _, ch := range c.all {
		if ch.Kind == Notice {
			notices++
		}
	}
	if notices != 1 {
		t.Fatalf("%d notices, want 1: %s", notices, describe(c.all))
	}
}

// TestWatcherStorm creates 50k files as fast as it can; every one must be
// reported. (The number of batches is measured by BenchmarkWatcherStorm.)
func TestWatcherStorm(t *testing.T) {
	n := 50000
	if testing.Short() {
		n = 5000
	}
	ws, c := startWatcher(t, WatcherOptions{Quiet: DefaultQuiet})
	want := stormFiles(t, ws.Root(), n)
	c.until("every file", func(all []Change) bool { return len(all) >= len(want) })
	c.settle()
	got := map[string]bool{}
	for _, ch := range c.all {
		got[ch.Path] = true
	}
	var missing []string
	for _, p := range want {
		if !got[p] {
			missing = append(missing, p)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Fatalf("%d of %d paths not reported, e.g. %v", len(missing), len(want), missing[:min(5, len(missing))])
	}
	t.Logf("%d files in %d batches", n, c.batches)
}

// stormFiles writes n small files into 10 new folders.
func stormFiles(t testing.TB, root string, n int) []string {
	t.Helper()
	var paths []string
	for d := 0; d < 10; d++ {
		must(t, os.Mkdir(filepath.Join(root, fmt.Sprintf("storm%d", d)), 0o755))
		paths = append(paths, fmt.Sprintf("storm%d", d))
	}
	for i := 0; i < n; i++ {
		p := fmt.Sprintf("storm%d/f%05d", i%10, i)
		f, err := os.Create(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

func TestWatcherCloseEndsEvents(t *testing.T) {
	_, c := startWatcher(t, WatcherOptions{})
	must(t, c.w.Close())
	if _, ok := <-c.w.Events(); ok {
		t.Fatal("events still open after Close")
	}
}
