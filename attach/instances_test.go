package attach

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/files"
	"github.com/atelier-studio/atelier/instances"
)

// gitInit makes ws a git repository with its files in one commit.
func gitInit(t *testing.T, ws string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."},
		{"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "first"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// TestInstancesSeam drives the instances through Local and through Remote
// (a real host over a unix socket) with the same steps, and checks both
// answer the same things with the same typed errors: the summary and diff
// of an instance's change, its files read through FilesOf, a preview, a
// conflict naming its file, a refused discard, a branch, an apply, and
// the unknown id.
func TestInstancesSeam(t *testing.T) {
	for _, side := range []string{"local", "remote"} {
		t.Run(side, func(t *testing.T) {
			ws := t.TempDir()
			write(t, filepath.Join(ws, "a.txt"), "one\ntwo\n")
			write(t, filepath.Join(ws, "b.txt"), "bee\n")
			gitInit(t, ws)
			sock := socketPath(t)
			s := serve(t, ws, sock)
			defer s.stop(t)
			eng := Local(s.eng)
			if side == "remote" {
				r := NewRemote(RemoteOptions{Workspace: ws, Client: newClient(t, sock)})
				defer r.Close()
				eng = r
			}
			ctx := ctxFor(t, time.Minute)
			in, err := s.eng.As("").CreateInstance(instances.Worktree, "w1")
			if err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(in.Path, "a.txt"), "one\nTWO\nthree\n")

			est, err := eng.CopyEstimate(ctx)
			if err != nil || est.Size.Files < 2 || est.Size.Bytes < int64(len("one\ntwo\nbee\n")) || est.WarnSize <= 0 {
				t.Fatalf("copy estimate = %+v, %v", est, err)
			}

			list, err := eng.ListInstances(ctx)
			if err != nil || len(list) != 1 || list[0].ID != "w1" || list[0].Kind != instances.Worktree {
				t.Fatalf("list = %+v, %v", list, err)
			}
			sum, err := eng.InstanceSummary(ctx, "w1")
			if err != nil || sum.Files != 1 || sum.Added != 2 || sum.Removed != 1 || sum.Size.Files == 0 {
				t.Fatalf("summary = %+v, %v", sum, err)
			}
			d, err := eng.InstanceDiff(ctx, "w1")
			if err != nil || len(d.Files) != 1 || d.Files[0].Path != "a.txt" || d.Files[0].Status != instances.Changed || d.Patch == "" {
				t.Fatalf("diff = %+v, %v", d, err)
			}
			fs, err := eng.FilesOf("w1")
			if err != nil {
				t.Fatal(err)
			}
			c, err := fs.ReadFile(files.Operator, "a.txt", files.ReadOptions{})
			if err != nil || string(c.Data) != "one\nTWO\nthree\n" {
				t.Fatalf("instance's a.txt = %+v, %v", c, err)
			}
			mainFiles, err := eng.FilesOf("")
			if err != nil {
				t.Fatal(err)
			}
			if c, err := mainFiles.ReadFile(files.Operator, "a.txt", files.ReadOptions{}); err != nil || string(c.Data) != "one\ntwo\n" {
				t.Fatalf("workspace's a.txt = %+v, %v", c, err)
			}

			pre, err := eng.ApplyInstance(ctx, "w1", instances.ApplyOptions{Preview: true})
			if err != nil || len(pre.Files) != 1 || pre.Files[0].Path != "a.txt" {
				t.Fatalf("preview = %+v, %v", pre, err)
			}
			if got := readFile(t, filepath.Join(ws, "a.txt")); got != "one\ntwo\n" {
				t.Fatalf("a preview wrote the workspace: %q", got)
			}

			// The operator changes a.txt too: the apply refuses, naming it.
			write(t, filepath.Join(ws, "a.txt"), "zero\none\ntwo\n")
			_, err = eng.ApplyInstance(ctx, "w1", instances.ApplyOptions{})
			var ce *instances.ConflictError
			if !errors.As(err, &ce) || ce.Instance != "w1" || !slices.Equal(ce.Files, []string{"a.txt"}) {
				t.Fatalf("apply over a conflict: %v (%+v)", err, ce)
			}
			var ue *instances.UnappliedError
			if err := eng.DiscardInstance(ctx, "w1", false); !errors.As(err, &ue) || ue.Instance != "w1" || !slices.Equal(ue.Files, []string{"a.txt"}) {
				t.Fatalf("discard with changes: %v", err)
			}
			commit, err := eng.BranchInstance(ctx, "w1", "feature/w1")
			if err != nil || len(commit) != 40 {
				t.Fatalf("branch = %q, %v", commit, err)
			}
			if _, err := eng.BranchInstance(ctx, "w1", "atelier/x"); err == nil {
				t.Fatal("a branch under atelier/ was made")
			}
			res, err := eng.ApplyInstance(ctx, "w1", instances.ApplyOptions{ThreeWay: true})
			if err != nil || len(res.Files) != 1 || !res.Files[0].Merged {
				t.Fatalf("3-way apply = %+v, %v", res, err)
			}
			if got := readFile(t, filepath.Join(ws, "a.txt")); got != "zero\none\nTWO\nthree\n" {
				t.Fatalf("merged a.txt = %q", got)
			}

			for _, call := range []func() error{
				func() error { _, err := eng.InstanceDiff(ctx, "nope"); return err },
				func() error { _, err := eng.InstanceSummary(ctx, "nope"); return err },
				func() error { return eng.DiscardInstance(ctx, "nope", true) },
			} {
				if err := call(); !errors.Is(err, instances.ErrNotFound) {
					t.Fatalf("unknown instance: %v", err)
				}
			}
			// The workspace holds a merge, not the instance's a.txt: it
			// still counts as unapplied, so only force discards it.
			if err := eng.DiscardInstance(ctx, "w1", true); err != nil {
				t.Fatalf("discard with force: %v", err)
			}
			if list, err := eng.ListInstances(ctx); err != nil || len(list) != 0 {
				t.Fatalf("after discard: %+v, %v", list, err)
			}
		})
	}
}

// TestInstanceInUse: an instance a running session works on is not
// discarded, through either side, and the refusal names the session.
func TestInstanceInUse(t *testing.T) {
	ws := t.TempDir()
	write(t, filepath.Join(ws, "a.txt"), "a\n")
	gitInit(t, ws)
	sock := socketPath(t)
	s := serve(t, ws, sock)
	defer s.stop(t)
	rec, err := s.eng.Create(core.CreateOptions{Agent: "demo", Isolation: core.IsolationCopy})
	if err != nil {
		t.Fatal(err)
	}
	r := NewRemote(RemoteOptions{Workspace: ws, Client: newClient(t, sock)})
	defer r.Close()
	ctx := ctxFor(t, time.Minute)
	for _, eng := range []Engine{Local(s.eng), r} {
		var iu *core.InUseError
		if err := eng.DiscardInstance(ctx, rec.Instance, true); !errors.As(err, &iu) || iu.Instance != rec.Instance || !slices.Equal(iu.Sessions, []string{rec.ID}) {
			t.Fatalf("discard in use: %v", err)
		}
		list, err := eng.ListInstances(ctx)
		if err != nil || len(list) != 1 || !slices.Equal(list[0].Sessions, []string{rec.ID}) {
			t.Fatalf("list = %+v, %v", list, err)
		}
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestInstancesOverTCP: a studio attached to another machine's engine
// (TCP, token) reads an instance's files through FilesOf, confined to the
// instance, and its diff; an unknown or malformed id is refused.
func TestInstancesOverTCP(t *testing.T) {
	ws := t.TempDir()
	write(t, filepath.Join(ws, "a.txt"), "a\n")
	gitInit(t, ws)
	o := serveTCP(t, ws)
	in, err := o.eng.As("").CreateInstance(instances.Copy, "c1")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(in.Path, "sub", "new.txt"), "new\n")
	r := o.remote(t)
	ctx := ctxFor(t, time.Minute)
	f, err := r.FilesOf("c1")
	if err != nil {
		t.Fatal(err)
	}
	if got := rowsOf(t, f, "sub"); !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, "new.txt") }) {
		t.Fatalf("the instance's tree: %v", got)
	}
	if main, err := r.FilesOf(""); err != nil || slices.ContainsFunc(rowsOf(t, main), func(s string) bool { return strings.Contains(s, "sub") }) {
		t.Fatalf("the workspace's tree shows the instance's folder (%v)", err)
	}
	d, err := r.InstanceDiff(ctx, "c1")
	if err != nil || len(d.Files) != 1 || d.Files[0].Path != "sub/new.txt" || d.Files[0].Status != instances.Added {
		t.Fatalf("diff = %+v, %v", d, err)
	}
	if _, err := r.FilesOf("../c1"); !errors.Is(err, instances.ErrNotFound) {
		t.Fatalf("a malformed id: %v", err)
	}
	// An unknown instance is refused at once, as the engine refuses it.
	if _, err := r.FilesOf("nope"); !errors.Is(err, instances.ErrNotFound) {
		t.Fatalf("an unknown instance's files: %v", err)
	}
}
