package instances

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// recorder is the engine's side of the hooks in tests: what the lease
// saw on disk when taken and released, and each commit.
type recorder struct {
	ws                 string
	leased, released   []string
	atLease, atRelease string // a.txt in the workspace then
	commits            []Provenance
}

func (r *recorder) hooks(t *testing.T) Hooks {
	return Hooks{
		Lease: func(ps []string) (func(), error) {
			r.leased = ps
			r.atLease = read(t, filepath.Join(r.ws, "a.txt"))
			return func() {
				r.released = ps
				r.atRelease = read(t, filepath.Join(r.ws, "a.txt"))
			}, nil
		},
		Commit: func(p Provenance) error {
			r.commits = append(r.commits, p)
			return nil
		},
	}
}

func TestApply(t *testing.T) {
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			ws := diffRepo(t)
			rec := &recorder{ws: ws}
			m := open(t, ws, Options{Hooks: rec.hooks(t)})
			in, err := m.Create(kind, "i")
			if err != nil {
				t.Fatal(err)
			}
			agentWork(t, in.Path)
			if err := m.Discard("i", false); !errors.As(err, new(*UnappliedError)) {
				t.Fatalf("discard of an unapplied instance: %v", err)
			}

			pre, err := m.Apply("i", ApplyOptions{Preview: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(pre.Files) != 5 || read(t, filepath.Join(ws, "a.txt")) != "1\n2\n3\n" || rec.leased != nil || len(rec.commits) != 0 {
				t.Fatalf("the preview wrote or leased: %+v %v", pre.Files, rec.leased)
			}
			i := slices.IndexFunc(pre.Files, func(f AppliedFile) bool { return f.Path == "a.txt" })
			if i < 0 || string(pre.Files[i].Content) != "1\n2 changed\n3\n" {
				t.Fatalf("the preview of a.txt: %+v", pre.Files)
			}

			res, err := m.Apply("i", ApplyOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for p, want := range map[string]string{"a.txt": "1\n2 changed\n3\n", "added.txt": "x\ny\n", "gone.txt": "<none>", "blob.bin": "\x00\x01\x02\x00"} {
				if got := read(t, filepath.Join(ws, p)); got != want {
					t.Errorf("%s in the workspace: %q, want %q", p, got, want)
				}
			}
			if fi, err := os.Stat(filepath.Join(ws, "tool.sh")); err != nil || fi.Mode().Perm()&0o100 == 0 {
				t.Errorf("tool.sh's mode was not applied: %v %v", fi, err)
			}
			want := []string{"a.txt", "added.txt", "blob.bin", "gone.txt", "tool.sh"}
			if !reflect.DeepEqual(rec.leased, want) || !reflect.DeepEqual(rec.released, want) {
				t.Errorf("leased %v, released %v", rec.leased, rec.released)
			}
			if rec.atLease != "1\n2\n3\n" || rec.atRelease != "1\n2 changed\n3\n" {
				t.Errorf("the lease was not held around the writes: %q then %q", rec.atLease, rec.atRelease)
			}
			if len(rec.commits) != 1 || rec.commits[0].Instance != "i" || rec.commits[0].Kind != kind || len(rec.commits[0].Files) != 5 {
				t.Fatalf("commits %+v", rec.commits)
			}
			if len(res.Files) != 5 || res.CommitErr != nil {
				t.Errorf("result %+v", res)
			}
			// Applied: nothing left to apply, so discard needs no force.
			if again, err := m.Apply("i", ApplyOptions{}); err != nil || len(again.Files) != 0 || len(again.Unchanged) != 5 {
				t.Errorf("a second apply: %+v %v", again, err)
			}
			if err := m.Discard("i", false); err != nil {
				t.Fatal(err)
			}
			assertNoJournal(t, m)
		})
	}
}

func assertNoJournal(t *testing.T, m *Manager) {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(m.dir, metaDir))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "apply-") || strings.HasPrefix(e.Name(), "index-") || strings.HasPrefix(e.Name(), "merge-") {
			t.Errorf("left in .meta: %s", e.Name())
		}
	}
}

func TestApplyRefusesTheOperatorsChanges(t *testing.T) {
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			ws := newRepo(t, map[string]string{"a.txt": "1\n2\n3\n4\n5\n6\n7\n8\n", "b.txt": "b\n", "c.txt": "c\n", "d.txt": "d\n"})
			rec := &recorder{ws: ws}
			m := open(t, ws, Options{Hooks: rec.hooks(t)})
			in, err := m.Create(kind, "i")
			if err != nil {
				t.Fatal(err)
			}
			write(t, in.Path, map[string]string{"a.txt": "1 agent\n2\n3\n4\n5\n6\n7\n8\n", "b.txt": "b agent\n", "c.txt": "c agent\n", "d.txt": "d agent\n"})
			// The operator: a.txt elsewhere in the file (mergeable), b.txt
			// on the same line (not), d.txt as the agent did.
			write(t, ws, map[string]string{"a.txt": "1\n2\n3\n4\n5\n6\n7\n8 operator\n", "b.txt": "b operator\n", "d.txt": "d agent\n"})
			run(t, ws, "add", "a.txt")
			run(t, ws, "commit", "-qm", "operator")

			_, err = m.Apply("i", ApplyOptions{})
			var ce *ConflictError
			if !errors.As(err, &ce) || !reflect.DeepEqual(ce.Files, []string{"a.txt", "b.txt"}) {
				t.Fatalf("apply over the operator's changes: %v", err)
			}
			if !strings.Contains(err.Error(), "a.txt, b.txt") {
				t.Errorf("the error does not name the files: %v", err)
			}
			if read(t, filepath.Join(ws, "c.txt")) != "c\n" || rec.leased != nil || len(rec.commits) != 0 {
				t.Fatal("a refused apply wrote or leased")
			}

			res, err := m.Apply("i", ApplyOptions{ThreeWay: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := read(t, filepath.Join(ws, "a.txt")); got != "1 agent\n2\n3\n4\n5\n6\n7\n8 operator\n" {
				t.Errorf("a.txt merged to %q", got)
			}
			if read(t, filepath.Join(ws, "b.txt")) != "b operator\n" || read(t, filepath.Join(ws, "c.txt")) != "c agent\n" {
				t.Error("b.txt or c.txt wrong after the 3-way apply")
			}
			if len(res.Unmerged) != 1 || res.Unmerged[0].Path != "b.txt" || !reflect.DeepEqual(res.Unchanged, []string{"d.txt"}) {
				t.Errorf("result %+v", res)
			}
			if len(rec.commits) != 1 {
				t.Fatalf("commits %+v", rec.commits)
			}
			merged := map[string]bool{}
			for _, f := range rec.commits[0].Files {
				merged[f.Path] = f.Merged
			}
			if !reflect.DeepEqual(merged, map[string]bool{"a.txt": true, "c.txt": false}) {
				t.Errorf("provenance %+v", rec.commits[0].Files)
			}
			if _, err := m.Unapplied("i"); err != nil {
				t.Fatal(err)
			}
			if err := m.Discard("i", false); !errors.As(err, new(*UnappliedError)) || !strings.Contains(err.Error(), "b.txt") {
				t.Errorf("discard with b.txt unapplied: %v", err)
			}
			if err := m.Discard("i", true); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// An apply stopped dead after some files (as by kill -9) is finished by
// the next Open: every file written, one commit, no journal left.
func TestApplyCrashIsFinishedOnOpen(t *testing.T) {
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			ws := diffRepo(t)
			root := t.TempDir()
			rec := &recorder{ws: ws}
			m := open(t, ws, Options{Root: root, Hooks: rec.hooks(t)})
			in, err := m.Create(kind, "i")
			if err != nil {
				t.Fatal(err)
			}
			agentWork(t, in.Path)
			m.inject = crashAt(2)
			if _, err := m.Apply("i", ApplyOptions{}); !errors.Is(err, errCrash) {
				t.Fatalf("apply with a crash: %v", err)
			}
			// a.txt and added.txt are the first two; the rest is not written.
			if read(t, filepath.Join(ws, "added.txt")) != "x\ny\n" || read(t, filepath.Join(ws, "gone.txt")) != "g\n" || len(rec.commits) != 0 {
				t.Fatal("the crash did not stop the apply after two files")
			}
			m2 := open(t, ws, Options{Root: root, Hooks: rec.hooks(t)})
			if read(t, filepath.Join(ws, "gone.txt")) != "<none>" || read(t, filepath.Join(ws, "blob.bin")) != "\x00\x01\x02\x00" {
				t.Fatal("Open did not finish the apply")
			}
			if len(rec.commits) != 1 || len(rec.commits[0].Files) != 5 {
				t.Fatalf("commits %+v", rec.commits)
			}
			if r := m2.Recovered(); len(r) != 1 || r[0].Instance != "i" || r[0].Apply != rec.commits[0].Apply || len(r[0].Left) != 0 {
				t.Errorf("recovered %+v", r)
			}
			assertNoJournal(t, m2)
			if left, err := m2.Unapplied("i"); err != nil || len(left) != 0 {
				t.Errorf("unapplied after recovery: %v %v", left, err)
			}
		})
	}
}

// A crash after the operator changed a file the journal was to write
// leaves that file as the operator made it.
func TestApplyRecoveryLeavesTheOperatorsEdits(t *testing.T) {
	ws := diffRepo(t)
	root := t.TempDir()
	m := open(t, ws, Options{Root: root})
	in, err := m.Create(Worktree, "i")
	if err != nil {
		t.Fatal(err)
	}
	agentWork(t, in.Path)
	m.inject = crashAt(1)
	if _, err := m.Apply("i", ApplyOptions{}); !errors.Is(err, errCrash) {
		t.Fatal(err)
	}
	write(t, ws, map[string]string{"added.txt": "the operator's\n"})
	m2 := open(t, ws, Options{Root: root})
	if got := read(t, filepath.Join(ws, "added.txt")); got != "the operator's\n" {
		t.Errorf("recovery overwrote the operator's file: %q", got)
	}
	if r := m2.Recovered(); len(r) != 1 || !reflect.DeepEqual(r[0].Left, []string{"added.txt"}) {
		t.Errorf("recovered %+v", r)
	}
}

// A crash before the journal is written (staging only) is rolled back:
// Open removes the staging and writes nothing.
func TestApplyStagingWithoutJournalIsRolledBack(t *testing.T) {
	ws := diffRepo(t)
	root := t.TempDir()
	m := open(t, ws, Options{Root: root})
	stage := m.stagePath("0011223344556677")
	if err := os.Mkdir(stage, 0o700); err != nil {
		t.Fatal(err)
	}
	write(t, stage, map[string]string{"0": "staged\n"})
	open(t, ws, Options{Root: root})
	if _, err := os.Stat(stage); !os.IsNotExist(err) {
		t.Errorf("staging left: %v", err)
	}
	if read(t, filepath.Join(ws, "a.txt")) != "1\n2\n3\n" {
		t.Error("a.txt changed")
	}
}

// A lease refused writes nothing and leaves no journal.
func TestApplyLeaseRefused(t *testing.T) {
	ws := diffRepo(t)
	m := open(t, ws, Options{Hooks: Hooks{Lease: func([]string) (func(), error) { return nil, errors.New("busy") }}})
	in, err := m.Create(Copy, "i")
	if err != nil {
		t.Fatal(err)
	}
	agentWork(t, in.Path)
	if _, err := m.Apply("i", ApplyOptions{}); err == nil || !strings.Contains(err.Error(), "busy") {
		t.Fatalf("apply without the lease: %v", err)
	}
	if read(t, filepath.Join(ws, "a.txt")) != "1\n2\n3\n" {
		t.Error("a.txt written without the lease")
	}
	assertNoJournal(t, m)
}

// Apply never writes through a symbolic link out of the workspace.
func TestApplyRefusesALinkedFolder(t *testing.T) {
	ws := diffRepo(t)
	m := open(t, ws, Options{})
	in, err := m.Create(Copy, "i")
	if err != nil {
		t.Fatal(err)
	}
	write(t, in.Path, map[string]string{"out/x.txt": "x\n"})
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(ws, "out")); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Apply("i", ApplyOptions{}); err == nil {
		t.Fatal("applied through a link")
	}
	if read(t, filepath.Join(outside, "x.txt")) != "<none>" {
		t.Error("wrote outside the workspace")
	}
}

func crashAt(n int) func(int) error {
	return func(i int) error {
		if i == n {
			return errCrash
		}
		return nil
	}
}

// A write that fails in the middle of an apply rolls back the files
// already written: the workspace is as before, nothing is committed.
func TestApplyFailureRollsBack(t *testing.T) {
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			ws := diffRepo(t)
			before := contents(t, ws)
			rec := &recorder{ws: ws}
			m := open(t, ws, Options{Hooks: rec.hooks(t)})
			in, err := m.Create(kind, "i")
			if err != nil {
				t.Fatal(err)
			}
			agentWork(t, in.Path)
			m.inject = func(n int) error {
				if n == 4 {
					return errors.New("disk full")
				}
				return nil
			}
			if _, err := m.Apply("i", ApplyOptions{}); err == nil || !strings.Contains(err.Error(), "rolled back") {
				t.Fatalf("apply with a failing write: %v", err)
			}
			if after := contents(t, ws); after != before {
				t.Fatalf("the workspace changed:\nbefore\n%s\nafter\n%s", before, after)
			}
			if len(rec.commits) != 0 {
				t.Errorf("commits %+v", rec.commits)
			}
			assertNoJournal(t, m)
		})
	}
}

// A journal that cannot be finished on Open (its staging was lost) is
// rolled back instead.
func TestApplyRecoveryRollsBackWhatCannotBeFinished(t *testing.T) {
	ws := diffRepo(t)
	before := contents(t, ws)
	root := t.TempDir()
	rec := &recorder{ws: ws}
	m := open(t, ws, Options{Root: root, Hooks: rec.hooks(t)})
	in, err := m.Create(Worktree, "i")
	if err != nil {
		t.Fatal(err)
	}
	agentWork(t, in.Path)
	m.inject = crashAt(2)
	if _, err := m.Apply("i", ApplyOptions{}); !errors.Is(err, errCrash) {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(filepath.Join(root, testState, metaDir))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() && strings.HasPrefix(e.Name(), "apply-") {
			for _, n := range []string{"2", "3", "4"} {
				if err := os.Remove(filepath.Join(root, testState, metaDir, e.Name(), n)); err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
			}
		}
	}
	m2 := open(t, ws, Options{Root: root, Hooks: rec.hooks(t)})
	if r := m2.Recovered(); len(r) != 1 || !r[0].RolledBack || r[0].Err == nil {
		t.Fatalf("recovered %+v", r)
	}
	if after := contents(t, ws); after != before {
		t.Fatalf("the workspace changed:\nbefore\n%s\nafter\n%s", before, after)
	}
	if len(rec.commits) != 0 {
		t.Errorf("commits %+v", rec.commits)
	}
	assertNoJournal(t, m2)
}

// contents is a workspace's files (without .git) and its git status.
func contents(t *testing.T, ws string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(ws, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.Name() == ".git" {
			if err == nil {
				err = filepath.SkipDir
			}
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		b.WriteString(p + " " + fi.Mode().String() + "\n")
		if fi.Mode().IsRegular() {
			b.WriteString(read(t, p) + "\n")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String() + run(t, ws, "--no-optional-locks", "status", "--porcelain", "--ignored")
}

// An instance that removed a folder's files has the folder removed by the
// apply; a folder still holding a file of the operator's stays.
func TestApplyRemovesEmptiedFolders(t *testing.T) {
	ws := newRepo(t, map[string]string{"old/a/x.txt": "x\n", "old/b.txt": "b\n", "keep/k.txt": "k\n"})
	m := open(t, ws, Options{})
	in, err := m.Create(Worktree, "i")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"old", "keep"} {
		if err := os.RemoveAll(filepath.Join(in.Path, d)); err != nil {
			t.Fatal(err)
		}
	}
	write(t, ws, map[string]string{"keep/mine.txt": "operator's\n"})
	if _, err := m.Apply("i", ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(ws, "old")); !os.IsNotExist(err) {
		t.Errorf("old/ is still there: %v", err)
	}
	if read(t, filepath.Join(ws, "keep/mine.txt")) != "operator's\n" || read(t, filepath.Join(ws, "keep/k.txt")) != "<none>" {
		t.Error("keep/ is wrong")
	}
}
