package api

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/api/client"
)

// wsState is what a workspace holds, .state/ aside (the engine's own): each
// path with its kind and content, or its link's target.
func wsState(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		switch {
		case rel == ".state":
			return filepath.SkipDir
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			out[rel] = "link " + target
			return err
		case d.IsDir():
			out[rel] = "dir"
		default:
			b, err := os.ReadFile(p)
			out[rel] = "file " + string(b)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func mustWrite(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func wantProblem(t *testing.T, what string, err error, code string, status int) {
	t.Helper()
	var p *client.Problem
	if !errors.As(err, &p) || p.Code != code || p.Status != status {
		t.Errorf("%s: got %v, want %d %s", what, err, status, code)
	}
}

// TestFilesReadWrite: content round-trips byte for byte (binary too), a
// write based on a stale ETag is refused and changes nothing, a
// create-only write never replaces.
func TestFilesReadWrite(t *testing.T) {
	r := newRig(t, Options{})
	ctx := ctxFor(t, 20*time.Second)
	f := r.c.Files("main")
	fi, err := f.Write(ctx, "dir/a.txt", []byte("one\n"), client.WriteOptions{})
	if err != nil || !fi.Created || fi.Path != "dir/a.txt" || fi.Size != 4 || fi.ETag != client.ETagOf([]byte("one\n")) {
		t.Fatalf("write: %+v, %v", fi, err)
	}
	got, err := f.Read(ctx, "dir/a.txt")
	if err != nil || string(got.Data) != "one\n" || got.ETag != fi.ETag || got.Binary || got.Path != "dir/a.txt" {
		t.Fatalf("read: %+v, %v", got, err)
	}
	bin := []byte{0, 1, 2, 0xff, '\n', 0}
	if _, err := f.Write(ctx, "b.bin", bin, client.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, err := f.Read(ctx, "b.bin"); err != nil || !bytes.Equal(got.Data, bin) || !got.Binary {
		t.Fatalf("binary read: %+v, %v", got, err)
	}
	if b, err := os.ReadFile(filepath.Join(r.ws, "b.bin")); err != nil || !bytes.Equal(b, bin) {
		t.Fatalf("binary on disk: %q, %v", b, err)
	}

	// Someone writes after our read: our write, based on the read, is stale.
	mustWrite(t, filepath.Join(r.ws, "dir/a.txt"), "theirs\n")
	_, err = f.Write(ctx, "dir/a.txt", []byte("mine\n"), client.WriteOptions{IfMatch: fi.ETag})
	wantProblem(t, "stale write", err, client.CodeStaleWrite, 409)
	if b, _ := os.ReadFile(filepath.Join(r.ws, "dir/a.txt")); string(b) != "theirs\n" {
		t.Fatalf("a stale write changed the file: %q", b)
	}
	cur, err := f.Read(ctx, "dir/a.txt")
	if err != nil {
		t.Fatal(err)
	}
	// The ETag without its quotes, as typed in a shell, works too.
	if _, err := f.Write(ctx, "dir/a.txt", []byte("mine\n"), client.WriteOptions{IfMatch: strings.Trim(cur.ETag, `"`)}); err != nil {
		t.Fatalf("a write on the current content: %v", err)
	}
	_, err = f.Write(ctx, "gone.txt", []byte("x"), client.WriteOptions{IfMatch: cur.ETag})
	wantProblem(t, "if-match on a missing file", err, client.CodeStaleWrite, 409)
	_, err = f.Write(ctx, "dir/a.txt", []byte("new"), client.WriteOptions{Create: true})
	wantProblem(t, "create over a file", err, client.CodeFileExists, 409)
	if b, _ := os.ReadFile(filepath.Join(r.ws, "dir/a.txt")); string(b) != "mine\n" {
		t.Fatalf("a refused create changed the file: %q", b)
	}
	if fi, err := f.Write(ctx, "empty.txt", nil, client.WriteOptions{Create: true}); err != nil || !fi.Created || fi.Size != 0 {
		t.Fatalf("create an empty file: %+v, %v", fi, err)
	}
}

// TestFilesRefusals: bad input gets its problem, and the workspace is left
// exactly as it was.
func TestFilesRefusals(t *testing.T) {
	r := newRig(t, Options{})
	ctx := ctxFor(t, 30*time.Second)
	outside := t.TempDir()
	mustWrite(t, filepath.Join(outside, "secret"), "outside")
	mustWrite(t, filepath.Join(r.ws, "a.txt"), "a")
	mustWrite(t, filepath.Join(r.ws, "dir/x.txt"), "x")
	mustWrite(t, filepath.Join(r.ws, ".atelier.toml"), "trusted = false")
	mustWrite(t, filepath.Join(r.ws, "big"), "")
	if err := os.Truncate(filepath.Join(r.ws, "big"), MaxRead+1); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"out": outside, "cfg": ".atelier.toml", "hooks": ".git"} {
		if err := os.Symlink(target, filepath.Join(r.ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	before := wsState(t, r.ws)
	f, other := r.c.Files("main"), r.c.Files("other")
	w := func(p string) func() error {
		return func() error { _, err := f.Write(ctx, p, []byte("evil"), client.WriteOptions{}); return err }
	}
	cases := []struct {
		name string
		call func() error
		code string
		st   int
	}{
		{"write past the root", w("../escape.txt"), client.CodeOutsideWorkspace, 403},
		{"write an absolute path elsewhere", w(filepath.Join(outside, "new")), client.CodeOutsideWorkspace, 403},
		{"write through a symlink out", w("out/new"), client.CodeOutsideWorkspace, 403},
		{"read through a symlink out", func() error { _, err := f.Read(ctx, "out/secret"); return err }, client.CodeOutsideWorkspace, 403},
		{"read /etc/passwd", func() error { _, err := f.Read(ctx, "/etc/passwd"); return err }, client.CodeOutsideWorkspace, 403},
		{"write .atelier.toml", w(".atelier.toml"), client.CodeProtectedPath, 403},
		{"write through a symlink to .atelier.toml", w("cfg"), client.CodeProtectedPath, 403},
		{"write a git hook", w("hooks/hooks/pre-commit"), client.CodeProtectedPath, 403},
		{"write into .state", w("dir/../.state/x"), client.CodeProtectedPath, 403},
		{"upload into .atelier", func() error { _, err := f.Upload(ctx, ".atelier/w.toml", strings.NewReader("x"), false); return err }, client.CodeProtectedPath, 403},
		{"mkdir in .git", func() error { _, err := f.Mkdir(ctx, "sub/.git/x"); return err }, client.CodeProtectedPath, 403},
		{"move onto .atelier.toml's folder", func() error { _, err := f.Move(ctx, "a.txt", ".atelier/a.txt"); return err }, client.CodeProtectedPath, 403},
		{"move .atelier.toml away", func() error { _, err := f.Move(ctx, ".atelier.toml", "b.toml"); return err }, client.CodeProtectedPath, 403},
		{"copy into .state", func() error { _, err := f.Copy(ctx, "a.txt", ".state/a.txt"); return err }, client.CodeProtectedPath, 403},
		{"delete .atelier.toml", func() error { return f.Delete(ctx, ".atelier.toml", false) }, client.CodeProtectedPath, 403},
		{"unknown instance (tree)", func() error { _, err := other.Tree(ctx, client.TreeQuery{}); return err }, client.CodeUnknownInstance, 404},
		{"unknown instance (write)", func() error { _, err := other.Write(ctx, "n.txt", []byte("x"), client.WriteOptions{}); return err }, client.CodeUnknownInstance, 404},
		{"read a missing file", func() error { _, err := f.Read(ctx, "nope.txt"); return err }, client.CodeFileNotFound, 404},
		{"read a folder", func() error { _, err := f.Read(ctx, "dir"); return err }, client.CodeNotAFile, 409},
		{"read over the limit", func() error { _, err := f.Read(ctx, "big"); return err }, client.CodeFileTooLarge, 413},
		{"write a body over the limit", func() error {
			_, err := f.Write(ctx, "huge.bin", make([]byte, MaxBody+1), client.WriteOptions{})
			return err
		}, client.CodeBodyTooLarge, 413},
		{"write a folder", w("dir"), client.CodeNotAFile, 409},
		{"write with no path", w(""), client.CodeBadPath, 400},
		{"write under a file", w("a.txt/b"), client.CodeNotADirectory, 409},
		{"list a file", func() error { _, err := f.Tree(ctx, client.TreeQuery{Path: "a.txt"}); return err }, client.CodeNotADirectory, 409},
		{"list too deep", func() error { _, err := f.Tree(ctx, client.TreeQuery{Depth: maxTreeDepth + 1}); return err }, client.CodeBadRequest, 400},
		{"mkdir over a file", func() error { _, err := f.Mkdir(ctx, "a.txt"); return err }, client.CodeFileExists, 409},
		{"move onto a file", func() error { _, err := f.Move(ctx, "dir/x.txt", "a.txt"); return err }, client.CodeFileExists, 409},
		{"move a folder into itself", func() error { _, err := f.Move(ctx, "dir", "dir/sub"); return err }, client.CodeBadPath, 400},
		{"move a missing file", func() error { _, err := f.Move(ctx, "nope", "nope2"); return err }, client.CodeFileNotFound, 404},
		{"copy onto a file", func() error { _, err := f.Copy(ctx, "dir", "a.txt"); return err }, client.CodeFileExists, 409},
		{"upload onto a file", func() error { _, err := f.Upload(ctx, "a.txt", strings.NewReader("x"), false); return err }, client.CodeFileExists, 409},
		{"delete a folder without recursive", func() error { return f.Delete(ctx, "dir", false) }, client.CodeNotAFile, 409},
		{"delete the root", func() error { return f.Delete(ctx, ".", true) }, client.CodeBadPath, 400},
		{"delete past the root", func() error { return f.Delete(ctx, "../"+filepath.Base(r.ws), true) }, client.CodeOutsideWorkspace, 403},
		{"a lease wait out of range", func() error {
			_, err := f.Write(ctx, "n.txt", []byte("x"), client.WriteOptions{Wait: time.Hour})
			return err
		}, client.CodeBadRequest, 400},
	}
	for _, c := range cases {
		wantProblem(t, c.name, c.call(), c.code, c.st)
	}
	raws := []struct {
		name, method, path, body string
		code                     string
		st                       int
	}{
		{"an unknown field", "POST", "/v1/instances/main/files/mkdir", `{"path":"n","mode":"0777"}`, client.CodeBadRequest, 400},
		{"two JSON values", "POST", "/v1/instances/main/files/delete", `{"path":"a.txt"}{"path":"dir"}`, client.CodeBadRequest, 400},
		{"a NUL in a path", "GET", "/v1/instances/main/files/content?path=a%00b", "", client.CodeBadPath, 400},
		{"a bad boolean", "GET", "/v1/instances/main/files/tree?hidden=maybe", "", client.CodeBadRequest, 400},
		{"an instance of another name", "GET", "/v1/instances/..%2Fmain/files/tree", "", client.CodeUnknownInstance, 404},
	}
	for _, c := range raws {
		st, p := r.raw(c.method, c.path, strings.NewReader(c.body))
		if st != c.st || p.Code != c.code {
			t.Errorf("%s: %d %s (%s), want %d %s", c.name, st, p.Code, p.Detail, c.st, c.code)
		}
	}
	// A refusal's detail names the operation and the path refused.
	if st, p := r.raw("GET", "/v1/instances/main/files/content?path=..%2Fescape.txt", nil); st != 403 ||
		!strings.Contains(p.Detail, "read ../escape.txt: path is outside the workspace") {
		t.Errorf("reading past the root: %d %q, want 403 naming the read and the path", st, p.Detail)
	}
	if after := wsState(t, r.ws); !mapsEqual(before, after) {
		t.Errorf("the refusals changed the workspace:\nbefore %v\nafter  %v", before, after)
	}
	if got := wsState(t, outside); len(got) != 2 || got["secret"] != "file outside" {
		t.Errorf("the refusals changed the folder outside: %v", got)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestFilesOperations: mkdir, move, copy, delete, upload and download do
// what they say, and a listing shows the result as the studio's tree does.
func TestFilesOperations(t *testing.T) {
	r := newRig(t, Options{})
	ctx := ctxFor(t, 30*time.Second)
	f := r.c.Files("main")
	mustWrite(t, filepath.Join(r.ws, "src/main.go"), "package main\n")
	mustWrite(t, filepath.Join(r.ws, "src/lib/b.go"), "package lib\n")
	mustWrite(t, filepath.Join(r.ws, ".gitignore"), "*.log\n")
	mustWrite(t, filepath.Join(r.ws, "run.log"), "noise")
	if err := os.Symlink("main.go", filepath.Join(r.ws, "src/link.go")); err != nil {
		t.Fatal(err)
	}

	if fi, err := f.Mkdir(ctx, "docs/guide"); err != nil || fi.Path != "docs/guide" {
		t.Fatalf("mkdir: %+v, %v", fi, err)
	}
	cr, err := f.Copy(ctx, "src", "src2")
	if err != nil || cr.Files != 2 || cr.Dirs != 2 || !slices.Equal(cr.Skipped, []string{"link.go"}) {
		t.Fatalf("copy: %+v, %v", cr, err)
	}
	if b, err := os.ReadFile(filepath.Join(r.ws, "src2/lib/b.go")); err != nil || string(b) != "package lib\n" {
		t.Fatalf("copied file: %q, %v", b, err)
	}
	if fi, err := f.Move(ctx, "src2/main.go", "docs/main.go"); err != nil || fi.Path != "docs/main.go" {
		t.Fatalf("move: %+v, %v", fi, err)
	}
	if err := f.Delete(ctx, "src2", true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(r.ws, "src2")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("deleted folder: %v", err)
	}

	up, err := f.Upload(ctx, "docs/data.bin", bytes.NewReader([]byte{0, 1, 2}), false)
	if err != nil || up.Size != 3 || up.ETag != client.ETagOf([]byte{0, 1, 2}) || !up.Created {
		t.Fatalf("upload: %+v, %v", up, err)
	}
	if up, err := f.Upload(ctx, "docs/data.bin", strings.NewReader("new"), true); err != nil || up.Created {
		t.Fatalf("upload with overwrite: %+v, %v", up, err)
	}
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	part, err := mw.CreateFormFile("file", "notes.txt")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := part.Write([]byte("from a form")); err != nil {
		t.Fatal(err)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx, "POST", "http://atelier/v1/instances/main/files/upload?path=docs/notes.txt", &form)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := (&http.Client{Transport: r.transport()}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if err := resp.Body.Close(); err != nil || resp.StatusCode != 201 {
		t.Fatalf("multipart upload: %d, %v", resp.StatusCode, err)
	}
	if b, err := os.ReadFile(filepath.Join(r.ws, "docs/notes.txt")); err != nil || string(b) != "from a form" {
		t.Fatalf("multipart upload: %q, %v", b, err)
	}

	var file bytes.Buffer
	if n, err := f.Download(ctx, "src/main.go", &file); err != nil || n != 0 || file.String() != "package main\n" {
		t.Fatalf("download a file: %q, %d, %v", file.String(), n, err)
	}
	var archive bytes.Buffer
	n, err := f.Download(ctx, "src", &archive)
	if err != nil || n != 1 {
		t.Fatalf("download a folder: %d skipped, %v", n, err)
	}
	got := map[string]string{}
	tr := tar.NewReader(&archive)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		got[h.Name] = string(b)
	}
	want := map[string]string{"src/": "", "src/main.go": "package main\n", "src/lib/": "", "src/lib/b.go": "package lib\n"}
	if !mapsEqual(got, want) {
		t.Fatalf("archive %v, want %v", got, want)
	}

	tree, err := f.Tree(ctx, client.TreeQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if names := entryPaths(tree); !slices.Equal(names, []string{"docs", "src", ".gitignore"}) {
		t.Fatalf("top level %v", names)
	}
	deep, err := f.Tree(ctx, client.TreeQuery{Depth: 3, Hidden: true})
	if err != nil {
		t.Fatal(err)
	}
	wantDeep := []string{".state", "docs", "docs/guide", "docs/data.bin", "docs/main.go", "docs/notes.txt",
		"src", "src/lib", "src/lib/b.go", "src/link.go", "src/main.go", ".gitignore", "run.log"}
	if names := entryPaths(deep); !slices.Equal(slices.DeleteFunc(names, func(n string) bool { return strings.HasPrefix(n, ".state/") }), wantDeep) {
		t.Fatalf("deep listing %v, want %v", names, wantDeep)
	}
	for _, e := range deep.Entries {
		switch e.Path {
		case "run.log", ".state":
			if !e.Hidden {
				t.Errorf("%s is not hidden", e.Path)
			}
		case "src/link.go":
			if e.Kind != "symlink" || e.Target != "main.go" || e.TargetKind != "file" || e.Broken {
				t.Errorf("link: %+v", e)
			}
		case "src/main.go":
			if e.Kind != "file" || e.Size != 13 || e.Mode != "0644" || e.Hidden {
				t.Errorf("file: %+v", e)
			}
		}
	}
	cut, err := f.Tree(ctx, client.TreeQuery{Depth: 3, Limit: 2})
	if err != nil || !cut.Truncated || len(cut.Entries) != 2 {
		t.Fatalf("a cut listing: %+v, %v", cut, err)
	}
	// A hidden folder asked for by name is listed, its entries flagged.
	mustWrite(t, filepath.Join(r.ws, "node_modules/pkg/index.js"), "")
	nm, err := f.Tree(ctx, client.TreeQuery{Path: "node_modules"})
	if err != nil || len(nm.Entries) != 1 || nm.Entries[0].Path != "node_modules/pkg" || !nm.Entries[0].Hidden {
		t.Fatalf("a hidden folder: %+v, %v", nm, err)
	}
	sub, err := f.Tree(ctx, client.TreeQuery{Path: "src/lib"})
	if err != nil || sub.Path != "src/lib" || !slices.Equal(entryPaths(sub), []string{"src/lib/b.go"}) {
		t.Fatalf("a sub-folder: %+v, %v", sub, err)
	}
}

func entryPaths(t client.FileTree) []string {
	var out []string
	for _, e := range t.Entries {
		out = append(out, e.Path)
	}
	return out
}

// TestFilesWriteLease: an API write waits for the workspace's write lease
// that a session holds, and writes nothing until the lease is released; a
// write that may not wait that long is refused as workspace_busy.
func TestFilesWriteLease(t *testing.T) {
	r := newRig(t, Options{})
	ctx := ctxFor(t, 30*time.Second)
	f := r.c.Files("main")
	release, err := r.eng.LeaseWriteOf(ctx, "", "session-1")
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Write(ctx, "a.txt", []byte("x"), client.WriteOptions{Wait: time.Millisecond})
	wantProblem(t, "a write while a session writes", err, client.CodeWorkspaceBusy, 409)
	var p *client.Problem
	if errors.As(err, &p) && !strings.Contains(p.Detail, "session-1") {
		t.Errorf("the problem does not name the holder: %s", p.Detail)
	}
	done := make(chan error, 1)
	go func() {
		_, err := f.Write(ctx, "a.txt", []byte("after"), client.WriteOptions{Wait: 20 * time.Second})
		done <- err
	}()
	// The write queues behind the session's lease...
	for !slices.ContainsFunc(r.eng.LeaseState().Waiting, func(o string) bool { return strings.HasPrefix(o, "api-") }) {
		select {
		case err := <-done:
			t.Fatalf("the write did not wait for the lease: %v", err)
		case <-ctx.Done():
			t.Fatal("the write never queued for the lease")
		case <-time.After(time.Millisecond):
		}
	}
	// ...and has written nothing while the session holds it.
	if _, err := os.Lstat(filepath.Join(r.ws, "a.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("written under a session's lease: %v", err)
	}
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(r.ws, "a.txt")); err != nil || string(b) != "after" {
		t.Fatalf("after the lease: %q, %v", b, err)
	}
	if st := r.eng.LeaseState(); st.Writer != "" || len(st.Waiting) != 0 {
		t.Fatalf("the API left a lease behind: %+v", st)
	}
}
