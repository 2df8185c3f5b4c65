package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/sessions/history"
)

// historyRig is an engine with a real history (git under .state/git),
// served over loopback HTTP: the socket rig runs without a history.
type historyRig struct {
	ws  string
	url string
	eng *core.Engine
	h   *history.History
	c   *client.Client
}

func newHistoryRig(t *testing.T) *historyRig {
	t.Helper()
	ws := t.TempDir()
	mustWrite(t, filepath.Join(ws, "keep.txt"), "kept\n")
	eng, err := core.Open(ws, core.Options{Passive: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(eng, Options{Version: "test"})
	ts := httptest.NewServer(newDeclaredAnswers(t, srv, srv))
	t.Cleanup(func() {
		ts.Close()
		srv.Close()
		if err := eng.Close(); err != nil {
			t.Error(err)
		}
	})
	h := eng.History()
	if h == nil {
		t.Fatalf("no history: %v", eng.HistoryError())
	}
	c, err := client.New(ts.URL, client.Options{Label: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return &historyRig{ws: ws, url: ts.URL, eng: eng, h: h, c: c}
}

// post sends a JSON body as it is and decodes the problem it gets.
func (hr *historyRig) post(t *testing.T, path, body string) (int, client.Problem) {
	t.Helper()
	resp, err := http.Post(hr.url+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var p client.Problem
	if resp.StatusCode >= 300 {
		if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
			t.Fatal(err)
		}
	}
	return resp.StatusCode, p
}

// turn writes files (content "" deletes) and records them as a turn.
func (hr *historyRig) turn(t *testing.T, ctx context.Context, session string, n int, files map[string]string) history.Commit {
	t.Helper()
	var changed []string
	for p, content := range files {
		changed = append(changed, p)
		if content == "" {
			if err := os.Remove(filepath.Join(hr.ws, p)); err != nil {
				t.Fatal(err)
			}
			continue
		}
		mustWrite(t, filepath.Join(hr.ws, p), content)
	}
	c, err := hr.h.CommitTurn(ctx, history.TurnCommit{SessionID: session, Turn: n, Summary: session + " turn", Changed: changed})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func hashes(cs []client.Commit) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Hash)
	}
	return out
}

// TestHistoryReads: commits page newest first and filter by session and
// path; a commit shows its files and its diff; blame names the last turn.
func TestHistoryReads(t *testing.T) {
	hr := newHistoryRig(t)
	ctx := ctxFor(t, 30*time.Second)
	c1 := hr.turn(t, ctx, "s1", 1, map[string]string{"a.txt": "one\n"})
	c2 := hr.turn(t, ctx, "s2", 1, map[string]string{"a.txt": "two\n", "lib/b.txt": "b\n"})
	c3 := hr.turn(t, ctx, "s1", 2, map[string]string{"c.txt": "c\n"})
	hist := hr.c.History("main")

	all, err := hist.Commits(ctx, client.CommitQuery{})
	if err != nil || len(all.Commits) != 4 || all.More {
		t.Fatalf("all commits: %+v, %v", all, err)
	}
	if got := hashes(all.Commits[:3]); !slices.Equal(got, []string{c3.Hash, c2.Hash, c1.Hash}) {
		t.Fatalf("order %v", got)
	}
	if first := all.Commits[3]; first.Kind != "snapshot" || first.Parent != "" {
		t.Fatalf("the first commit: %+v", first)
	}
	if c := all.Commits[1]; c.Kind != "turn" || c.SessionID != "s2" || c.Turn != 1 || c.Parent != c1.Hash || c.Time.IsZero() {
		t.Fatalf("a turn: %+v", c)
	}

	// Pages, two at a time.
	p1, err := hist.Commits(ctx, client.CommitQuery{Limit: 2})
	if err != nil || !p1.More || p1.Next != c2.Hash || !slices.Equal(hashes(p1.Commits), []string{c3.Hash, c2.Hash}) {
		t.Fatalf("page 1: %+v, %v", p1, err)
	}
	p2, err := hist.Commits(ctx, client.CommitQuery{Limit: 2, Before: p1.Next[:8]})
	if err != nil || p2.More || len(p2.Commits) != 2 || p2.Commits[0].Hash != c1.Hash {
		t.Fatalf("page 2: %+v, %v", p2, err)
	}

	s1, err := hist.Commits(ctx, client.CommitQuery{Session: "s1"})
	if err != nil || !slices.Equal(hashes(s1.Commits), []string{c3.Hash, c1.Hash}) {
		t.Fatalf("session s1: %+v, %v", s1, err)
	}
	byPath, err := hist.Commits(ctx, client.CommitQuery{Path: "a.txt"})
	if err != nil || !slices.Equal(hashes(byPath.Commits), []string{c2.Hash, c1.Hash}) {
		t.Fatalf("path a.txt: %+v, %v", byPath, err)
	}
	byDir, err := hist.Commits(ctx, client.CommitQuery{Path: "./lib/"})
	if err != nil || !slices.Equal(hashes(byDir.Commits), []string{c2.Hash}) {
		t.Fatalf("folder lib: %+v, %v", byDir, err)
	}

	d, err := hist.Commit(ctx, c2.Hash[:10])
	if err != nil || d.Hash != c2.Hash || len(d.Files) != 2 {
		t.Fatalf("commit: %+v, %v", d, err)
	}
	for _, f := range d.Files {
		want := map[string]string{"a.txt": "modified", "lib/b.txt": "added"}[f.Path]
		if f.Status != want || f.Additions != 1 {
			t.Errorf("change %+v, want %s", f, want)
		}
	}
	diff, err := hist.Diff(ctx, c2.Hash)
	if err != nil || !strings.Contains(diff, "-one\n+two\n") || !strings.Contains(diff, "+b\n") {
		t.Fatalf("diff: %q, %v", diff, err)
	}
	only, err := hist.Diff(ctx, c2.Hash, "lib/b.txt")
	if err != nil || strings.Contains(only, "a.txt") || !strings.Contains(only, "+b\n") {
		t.Fatalf("diff of one path: %q, %v", only, err)
	}

	b, err := hist.Blame(ctx, "a.txt")
	if err != nil || b.Commit.Hash != c2.Hash || b.Commit.SessionID != "s2" || b.Path != "a.txt" {
		t.Fatalf("blame: %+v, %v", b, err)
	}

	// The paths of diff and blame are normalised as commits?path= is: a
	// leading ./, the workspace's absolute path and a trailing slash name
	// the same file or folder; outside paths are refused, the whole
	// workspace means every file.
	for _, p := range []string{"./lib/b.txt", hr.ws + "/lib/b.txt", "lib//b.txt"} {
		if d, err := hist.Diff(ctx, c2.Hash, p); err != nil || d != only {
			t.Errorf("diff of %q: %q, %v; want the diff of lib/b.txt", p, d, err)
		}
	}
	if d, err := hist.Diff(ctx, c2.Hash, "."); err != nil || d != diff {
		t.Errorf("diff of the whole workspace: %v", err)
	}
	for _, p := range []string{"./a.txt", hr.ws + "/a.txt"} {
		if b, err := hist.Blame(ctx, p); err != nil || b.Commit.Hash != c2.Hash || b.Path != "a.txt" {
			t.Errorf("blame of %q: %+v, %v", p, b, err)
		}
	}
	if _, err := hist.Blame(ctx, "."); !client.IsCode(err, client.CodeBadPath) {
		t.Errorf("blame of the whole workspace: %v", err)
	}
	if _, err := hist.Diff(ctx, c2.Hash, "../elsewhere"); !client.IsCode(err, client.CodeOutsideWorkspace) {
		t.Errorf("diff of a path outside: %v", err)
	}
}

// TestHistoryRestore: a preview changes nothing; a restore puts the files
// back as a new commit that can be undone; one based on a preview the
// history has moved past is refused and changes nothing.
func TestHistoryRestore(t *testing.T) {
	hr := newHistoryRig(t)
	ctx := ctxFor(t, 30*time.Second)
	c1 := hr.turn(t, ctx, "s1", 1, map[string]string{"a.txt": "one\n"})
	c2 := hr.turn(t, ctx, "s2", 1, map[string]string{"a.txt": "two\n", "b.txt": "b\n"})
	hist := hr.c.History("main")
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join(hr.ws, p))
		if err != nil {
			return "(none)"
		}
		return string(b)
	}

	pv, err := hist.PreviewRestore(ctx, client.RestorePreviewRequest{Commit: c1.Hash})
	if err != nil || pv.Head != c2.Hash || pv.Target.Hash != c1.Hash || len(pv.Files) != 2 {
		t.Fatalf("preview: %+v, %v", pv, err)
	}
	for _, f := range pv.Files {
		if want := map[string]string{"a.txt": "modify", "b.txt": "delete"}[f.Path]; f.Action != want || !slices.Equal(f.ChangedBy, []string{"s2"}) {
			t.Errorf("preview file %+v, want %s by s2", f, want)
		}
	}
	if read("a.txt") != "two\n" || read("b.txt") != "b\n" {
		t.Fatal("the preview changed files")
	}

	// A turn lands after the preview: the restore the operator saw is stale.
	c3 := hr.turn(t, ctx, "s2", 2, map[string]string{"b.txt": "b2\n"})
	_, err = hist.Restore(ctx, client.RestoreRequest{Commit: c1.Hash, Head: pv.Head})
	wantProblem(t, "a stale restore", err, client.CodeHistoryMoved, 409)
	if read("a.txt") != "two\n" || read("b.txt") != "b2\n" {
		t.Fatal("a refused restore changed files")
	}

	done, err := hist.Restore(ctx, client.RestoreRequest{Commit: c1.Hash, Paths: []string{"a.txt"}, Head: c3.Hash})
	if err != nil || done.Kind != "restore" || done.RestoredFrom != c1.Hash || done.Parent != c3.Hash {
		t.Fatalf("restore: %+v, %v", done, err)
	}
	if read("a.txt") != "one\n" || read("b.txt") != "b2\n" {
		t.Fatalf("after the restore: a=%q b=%q", read("a.txt"), read("b.txt"))
	}
	_, err = hist.Restore(ctx, client.RestoreRequest{Commit: c1.Hash, Paths: []string{"a.txt"}})
	wantProblem(t, "restoring twice", err, client.CodeNothingToRestore, 409)
	// Undo: restore the restore's parent.
	if _, err := hist.Restore(ctx, client.RestoreRequest{Commit: done.Parent}); err != nil {
		t.Fatal(err)
	}
	if read("a.txt") != "two\n" {
		t.Fatalf("after the undo: a=%q", read("a.txt"))
	}
	if st := hr.eng.LeaseState(); st.Writer != "" || len(st.Waiting) != 0 {
		t.Fatalf("a restore left a lease behind: %+v", st)
	}
}

// TestHistoryRefusals: unknown and malformed commits, paths outside the
// workspace, unknown fields and instances get their problems and change
// nothing; a workspace without a history says so.
func TestHistoryRefusals(t *testing.T) {
	hr := newHistoryRig(t)
	ctx := ctxFor(t, 30*time.Second)
	c1 := hr.turn(t, ctx, "s1", 1, map[string]string{"a.txt": "one\n"})
	hr.turn(t, ctx, "s1", 2, map[string]string{"a.txt": "two\n"})
	hist, other := hr.c.History("main"), hr.c.History("other")
	before := wsState(t, hr.ws)
	log, err := hr.h.Log(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		call func() error
		code string
		st   int
	}{
		{"an unknown commit", func() error { _, err := hist.Commit(ctx, "deadbeef"); return err }, client.CodeUnknownCommit, 404},
		{"a malformed commit", func() error { _, err := hist.Commit(ctx, "HEAD"); return err }, client.CodeBadRequest, 400},
		{"the diff of an unknown commit", func() error { _, err := hist.Diff(ctx, "0123456789abcdef"); return err }, client.CodeUnknownCommit, 404},
		{"a page before an unknown commit", func() error { _, err := hist.Commits(ctx, client.CommitQuery{Before: "abcdef12"}); return err }, client.CodeUnknownCommit, 404},
		{"a path filter outside", func() error { _, err := hist.Commits(ctx, client.CommitQuery{Path: "../x"}); return err }, client.CodeOutsideWorkspace, 403},
		{"a bad session filter", func() error { _, err := hist.Commits(ctx, client.CommitQuery{Session: "a b"}); return err }, client.CodeBadRequest, 400},
		{"blame outside", func() error { _, err := hist.Blame(ctx, "../../etc/passwd"); return err }, client.CodeOutsideWorkspace, 403},
		{"blame a file never recorded", func() error { _, err := hist.Blame(ctx, "never.txt"); return err }, client.CodeNotInHistory, 404},
		{"blame the state", func() error { _, err := hist.Blame(ctx, ".state/engine.json"); return err }, client.CodeBadPath, 400},
		{"preview an unknown commit", func() error {
			_, err := hist.PreviewRestore(ctx, client.RestorePreviewRequest{Commit: "feedface"})
			return err
		}, client.CodeUnknownCommit, 404},
		{"restore an unknown commit", func() error {
			_, err := hist.Restore(ctx, client.RestoreRequest{Commit: "feedface"})
			return err
		}, client.CodeUnknownCommit, 404},
		{"restore a path outside", func() error {
			_, err := hist.Restore(ctx, client.RestoreRequest{Commit: c1.Hash, Paths: []string{"../x"}})
			return err
		}, client.CodeOutsideWorkspace, 403},
		{"restore with a bad session", func() error {
			_, err := hist.Restore(ctx, client.RestoreRequest{Commit: c1.Hash, Session: "a:b"})
			return err
		}, client.CodeBadRequest, 400},
		{"an unknown instance", func() error { _, err := other.Commits(ctx, client.CommitQuery{}); return err }, client.CodeUnknownInstance, 404},
		{"restore in an unknown instance", func() error {
			_, err := other.Restore(ctx, client.RestoreRequest{Commit: c1.Hash})
			return err
		}, client.CodeUnknownInstance, 404},
	}
	for _, c := range cases {
		wantProblem(t, c.name, c.call(), c.code, c.st)
	}
	resp, err := hr.c.Files("main").Read(ctx, "a.txt")
	if err != nil || string(resp.Data) != "two\n" {
		t.Fatalf("a.txt after the refusals: %q, %v", resp.Data, err)
	}
	if after := wsState(t, hr.ws); !mapsEqual(before, after) {
		t.Errorf("the refusals changed the workspace:\nbefore %v\nafter  %v", before, after)
	}
	if again, err := hr.h.Log(ctx, ""); err != nil || len(again) != len(log) {
		t.Errorf("the refusals made commits: %d, then %d (%v)", len(log), len(again), err)
	}

	// Unknown fields are refused: a restore with one does nothing.
	body := `{"commit":"` + c1.Hash + `","force":true}`
	if st, p := hr.post(t, "/v1/instances/main/history/restore", body); st != 400 || p.Code != client.CodeBadRequest {
		t.Errorf("an unknown field: %d %+v", st, p)
	}
	if b, err := os.ReadFile(filepath.Join(hr.ws, "a.txt")); err != nil || string(b) != "two\n" {
		t.Errorf("a.txt after a refused restore: %q, %v", b, err)
	}

	// The socket rig's engine runs without a history.
	r := newRig(t, Options{})
	_, err = r.c.History("main").Commits(ctx, client.CommitQuery{})
	wantProblem(t, "no history", err, client.CodeHistoryUnavailable, 503)
}
