package attach

import (
	"errors"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/api"
	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/files"
	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/sessions/history"
)

func write(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// otherMachine is a workspace with folders, an ignored folder, a binary
// and a nested .gitignore, served over TCP.
func otherMachine(t *testing.T) *overTCP {
	t.Helper()
	ws := t.TempDir()
	write(t, filepath.Join(ws, ".gitignore"), "build/\n*.log\n")
	write(t, filepath.Join(ws, "main.go"), "package main\n")
	write(t, filepath.Join(ws, "notes.log"), "noise\n")
	write(t, filepath.Join(ws, "build", "out.bin"), "\x00\x01")
	write(t, filepath.Join(ws, "lib", "a.go"), "package lib\n")
	write(t, filepath.Join(ws, "lib", "deep", "b.go"), "package deep\n")
	write(t, filepath.Join(ws, "lib", ".gitignore"), "gen.go\n")
	write(t, filepath.Join(ws, "lib", "gen.go"), "package lib // generated\n")
	write(t, filepath.Join(ws, "img.png"), "\x89PNG\x00\x00")
	if err := os.Mkdir(filepath.Join(ws, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	return serveTCP(t, ws)
}

// rowsOf loads a tree with folders opened and returns what it shows.
func rowsOf(t *testing.T, src files.TreeSource, open ...string) []string {
	t.Helper()
	tr := files.NewTree(src, nil)
	tr.SetShowHidden(true)
	if err := tr.Load(""); err != nil {
		t.Fatal(err)
	}
	for _, d := range open {
		if err := tr.Expand(d); err != nil {
			t.Fatal(err)
		}
	}
	var out []string
	for _, r := range tr.Rows(0, tr.Len()) {
		if r.Name == ".state" {
			continue // the engine's own, busy while it runs
		}
		out = append(out, strings.Repeat("  ", r.Depth)+r.Name+" dir="+boolStr(r.IsDir)+" hidden="+boolStr(r.Hidden)+
			" count="+strconv.Itoa(r.Count)+" size="+strconv.Itoa(int(r.Size)))
	}
	return out
}

func boolStr(b bool) string {
	if b {
		return "y"
	}
	return "n"
}

// TestRemoteFilesTree: the tree read through the API shows what the
// tree read on the serving machine shows: the same entries, folders
// first, the same ignored entries dimmed (nested .gitignore included)
// and the same counts of what each folder holds.
func TestRemoteFilesTree(t *testing.T) {
	o := otherMachine(t)
	local, err := files.Open(o.ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := local.Close(); err != nil {
			t.Error(err)
		}
	})
	rf := o.remote(t).Files()
	want := rowsOf(t, local, "lib", "lib/deep", "empty")
	got := rowsOf(t, rf, "lib", "lib/deep", "empty")
	if !slices.Equal(got, want) {
		t.Fatalf("remote tree:\n%s\nthe serving machine's:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, w := range []string{"build dir=y hidden=y", "  gen.go dir=n hidden=y", "notes.log dir=n hidden=y", "empty dir=y hidden=n count=0"} {
		if !slices.ContainsFunc(got, func(r string) bool { return strings.HasPrefix(r, w) }) {
			t.Errorf("no row %q in\n%s", w, strings.Join(got, "\n"))
		}
	}
}

// TestRemoteFilesRead: reads apply the local reader's limits and errors.
func TestRemoteFilesRead(t *testing.T) {
	o := otherMachine(t)
	rf := o.remote(t).Files()
	c, err := rf.ReadFile(files.Operator, "lib/a.go", files.ReadOptions{})
	if err != nil || string(c.Data) != "package lib\n" || c.Path != "lib/a.go" {
		t.Fatalf("read lib/a.go: %+v, %v", c, err)
	}
	if _, err := rf.ReadFile(files.Operator, "img.png", files.ReadOptions{}); !errors.Is(err, files.ErrBinary) {
		t.Errorf("binary: %v, want ErrBinary", err)
	}
	if c, err := rf.ReadFile(files.Operator, "img.png", files.ReadOptions{AllowBinary: true}); err != nil || !c.Binary {
		t.Errorf("binary allowed: %+v, %v", c, err)
	}
	if _, err := rf.ReadFile(files.Operator, "main.go", files.ReadOptions{MaxBytes: 4}); !errors.Is(err, files.ErrTooLarge) {
		t.Errorf("over MaxBytes: %v, want ErrTooLarge", err)
	}
	if _, err := rf.ReadFile(files.Operator, "missing.go", files.ReadOptions{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v, want fs.ErrNotExist", err)
	}
	if _, err := rf.ReadFile(files.Operator, "../outside", files.ReadOptions{}); err == nil {
		t.Error("a path outside the workspace was read")
	}
	if _, err := rf.ReadFile(files.Operator, "lib", files.ReadOptions{}); err == nil {
		t.Error("a folder was read as a file")
	}
}

// TestRemoteFilesSave: a save through the API changes the serving side's
// file; a save over a file that changed there since it was read is
// refused and writes nothing; read again, the save goes through.
func TestRemoteFilesSave(t *testing.T) {
	o := otherMachine(t)
	r := o.remote(t)
	rf := r.Files()
	ctx := ctxFor(t, 30*time.Second)
	if _, err := rf.ReadFile(files.Operator, "main.go", files.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := r.SaveFile(ctx, "main.go", []byte("package main // mine\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(o.ws, "main.go")); string(b) != "package main // mine\n" {
		t.Fatalf("on the serving side: %q", b)
	}
	// A second save builds on the first: its base is what was written.
	if err := r.SaveFile(ctx, "main.go", []byte("package main // mine, twice\n")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(o.ws, "main.go"), "package main // theirs\n")
	err := r.SaveFile(ctx, "main.go", []byte("package main // mine, stale\n"))
	if !errors.Is(err, ErrStaleWrite) {
		t.Fatalf("save over a change: %v, want ErrStaleWrite", err)
	}
	if b, _ := os.ReadFile(filepath.Join(o.ws, "main.go")); string(b) != "package main // theirs\n" {
		t.Fatalf("a refused save wrote: %q", b)
	}
	if _, err := rf.ReadFile(files.Operator, "main.go", files.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := r.SaveFile(ctx, "main.go", []byte("package main // mine, after theirs\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(o.ws, "main.go")); string(b) != "package main // mine, after theirs\n" {
		t.Fatalf("on the serving side: %q", b)
	}
	// A new file (never read) is written as it is.
	if err := r.SaveFile(ctx, "new.txt", []byte("new\n")); err != nil {
		t.Fatal(err)
	}
}

// nextChange waits for a change of p on w.
func nextChange(t *testing.T, w Watch, p string) files.Change {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case batch, ok := <-w.Events():
			if !ok {
				t.Fatalf("the watch ended before a change of %s", p)
			}
			for _, c := range batch {
				if c.Path == p {
					return c
				}
			}
		case <-deadline:
			t.Fatalf("no change of %s", p)
		}
	}
}

// TestRemoteFilesWatch: changes on the serving side arrive, the
// operator's saves as the operator's; a changed .gitignore is read
// again into the tree's rules; a file deleted there saves again without
// a base.
func TestRemoteFilesWatch(t *testing.T) {
	o := otherMachine(t)
	r := o.remote(t)
	rf := r.Files()
	ig := files.NewIgnore()
	w, err := rf.Watch(ig)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := w.Close(); err != nil {
			t.Error(err)
		}
	})
	write(t, filepath.Join(o.ws, "lib", "c.go"), "package lib\n")
	if c := nextChange(t, w, "lib/c.go"); c.Kind != files.Created || c.By == files.Operator {
		t.Errorf("a change on the serving side: %+v", c)
	}
	ctx := ctxFor(t, 30*time.Second)
	if err := r.SaveFile(ctx, "lib/c.go", []byte("package lib // saved\n")); err != nil {
		t.Fatal(err)
	}
	if c := nextChange(t, w, "lib/c.go"); c.By != files.Operator {
		t.Errorf("the studio's save: %+v, want by the operator", c)
	}
	write(t, filepath.Join(o.ws, ".gitignore"), "build/\n*.log\nsecret/\n")
	nextChange(t, w, ".gitignore")
	if !ig.Match("secret", true) {
		t.Error("the changed .gitignore was not read again")
	}
	if _, err := rf.ReadFile(files.Operator, "lib/a.go", files.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(o.ws, "lib", "a.go")); err != nil {
		t.Fatal(err)
	}
	if c := nextChange(t, w, "lib/a.go"); c.Kind != files.Deleted {
		t.Errorf("deleted: %+v", c)
	}
	if err := r.SaveFile(ctx, "lib/a.go", []byte("package lib // back\n")); err != nil {
		t.Fatalf("saving a file deleted on the serving side: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for range w.Events() {
	}
}

// TestRemoteFilesDownload: a file and a folder copied out to this
// machine, nothing replaced.
func TestRemoteFilesDownload(t *testing.T) {
	o := otherMachine(t)
	rf := o.remote(t).Files()
	here := t.TempDir()
	st, err := rf.Download(files.Operator, "main.go", filepath.Join(here, "main.go"))
	if err != nil || st.Files != 1 || st.Bytes != int64(len("package main\n")) {
		t.Fatalf("download a file: %+v, %v", st, err)
	}
	if _, err := rf.Download(files.Operator, "main.go", filepath.Join(here, "main.go")); err == nil {
		t.Error("a download replaced a file")
	}
	st, err = rf.Download(files.Operator, "lib", filepath.Join(here, "lib"))
	if err != nil || st.Files != 4 {
		t.Fatalf("download a folder: %+v, %v", st, err)
	}
	if b, err := os.ReadFile(filepath.Join(here, "lib", "deep", "b.go")); err != nil || string(b) != "package deep\n" {
		t.Fatalf("lib/deep/b.go: %q, %v", b, err)
	}
	if _, err := rf.Download(files.Operator, "missing", filepath.Join(here, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("download of nothing: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(here, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Error("a failed download left something behind")
	}
}

// TestRemoteHistory: the history read through the API answers what the
// serving machine's history answers.
func TestRemoteHistory(t *testing.T) {
	o := otherMachine(t)
	ctx := ctxFor(t, 60*time.Second)
	h := o.eng.History()
	if h == nil {
		t.Fatalf("no history: %v", o.eng.HistoryError())
	}
	write(t, filepath.Join(o.ws, "main.go"), "package main // turn 1\n")
	c1, err := h.CommitTurn(ctx, history.TurnCommit{SessionID: "s1", Turn: 1, Summary: "first", Changed: []string{"main.go"}})
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(o.ws, "lib", "a.go"), "package lib // turn 2\n")
	c2, err := h.CommitTurn(ctx, history.TurnCommit{SessionID: "s1", Turn: 2, Summary: "second", Changed: []string{"lib/a.go"}})
	if err != nil {
		t.Fatal(err)
	}
	r := o.remote(t)
	rh, err := r.History()
	if err != nil {
		t.Fatal(err)
	}
	got, err := rh.Log(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	want, err := h.Log(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(want) != 2 || got[0].Hash != c2.Hash || got[1].Hash != c1.Hash || got[0].Summary != want[0].Summary ||
		got[0].Kind != want[0].Kind || got[0].Turn != 2 {
		t.Fatalf("log: %+v, want %+v", got, want)
	}
	ch, err := rh.Changes(ctx, c2.Hash)
	if err != nil || len(ch) != 1 || ch[0].Path != "lib/a.go" || ch[0].Status != history.Modified {
		t.Fatalf("changes: %+v, %v", ch, err)
	}
	d, err := rh.Diff(ctx, c2.Hash)
	wd, _ := h.Diff(ctx, c2.Hash)
	if err != nil || d != wd || !strings.Contains(d, "+package lib // turn 2") {
		t.Fatalf("diff: %q, %v", d, err)
	}
	b, err := rh.Blame(ctx, "main.go")
	if err != nil || b.Hash != c1.Hash {
		t.Fatalf("blame: %+v, %v", b, err)
	}
	if _, err := rh.Blame(ctx, "img.png.nothing"); !errors.Is(err, history.ErrNotFound) {
		t.Errorf("blame of a path never recorded: %v, want history.ErrNotFound", err)
	}
	p, err := rh.PreviewRestore(ctx, c1.Hash, []string{"lib/a.go"})
	if err != nil || p.Target.Hash != c1.Hash || len(p.Files) != 1 || p.Files[0].Path != "lib/a.go" {
		t.Fatalf("preview: %+v, %v", p, err)
	}
	hash, err := r.Restore(ctx, c1.Hash, []string{"lib/a.go"}, "s1")
	if err != nil || hash == "" {
		t.Fatalf("restore: %q, %v", hash, err)
	}
	if b, _ := os.ReadFile(filepath.Join(o.ws, "lib", "a.go")); string(b) != "package lib\n" {
		t.Fatalf("restored on the serving side: %q", b)
	}
	if _, err := r.Restore(ctx, c1.Hash, []string{"lib/a.go"}, "s1"); !errors.Is(err, history.ErrNothingToRestore) {
		t.Errorf("restoring the state it is in: %v, want history.ErrNothingToRestore", err)
	}
}

// TestRemoteWatchReconnects: when the connection to the host drops, the
// watch says so, opens the stream again once the host answers, says that
// too, and goes on delivering changes.
func TestRemoteWatchReconnects(t *testing.T) {
	ws := t.TempDir()
	demo := &harness.Demo{Pace: 100 * time.Microsecond}
	eng, err := core.Open(ws, core.Options{Agents: core.DemoResolver{Demo: demo}, NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := api.NewServer(eng, api.Options{Version: "test"})
	t.Cleanup(func() {
		srv.Close()
		if err := eng.Close(); err != nil {
			t.Error(err)
		}
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	serveOn := func(l net.Listener) (stop func()) {
		hs := &http.Server{Handler: srv, ReadHeaderTimeout: 5 * time.Second}
		done := make(chan struct{})
		go func() {
			defer close(done)
			if err := hs.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
				t.Error(err)
			}
		}()
		return func() {
			if err := hs.Close(); err != nil {
				t.Error(err)
			}
			<-done
		}
	}
	stop := serveOn(l)
	c, err := client.New("http://"+addr, client.Options{Label: "studio"})
	if err != nil {
		t.Fatal(err)
	}
	r := NewRemote(RemoteOptions{Workspace: "/nonexistent/other-machine", Client: c})
	t.Cleanup(r.Close)
	w, err := r.Files().Watch(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := w.Close(); err != nil {
			t.Error(err)
		}
	})
	stop() // the host goes away: its connections drop
	nextNotice(t, w, "stopped")
	l, err = net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(serveOn(l))
	nextNotice(t, w, "followed again")
	write(t, filepath.Join(ws, "after.txt"), "after the reconnection\n")
	nextChange(t, w, "after.txt")
}

// nextNotice waits for a notice of w that says what.
func nextNotice(t *testing.T, w Watch, what string) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case batch, ok := <-w.Events():
			if !ok {
				t.Fatalf("the watch ended before a notice %q", what)
			}
			for _, c := range batch {
				if c.Kind == files.Notice && strings.Contains(c.Message, what) {
					return
				}
			}
		case <-deadline:
			t.Fatalf("no notice %q", what)
		}
	}
}
