package core

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/files"
	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/instances"
	"github.com/atelier-studio/atelier/sessions"
)

// TestFilesOfInstance: FilesOf gives an instance's own file access,
// confined to its folder, "" and "main" the workspace's; an unknown id is
// ErrNotFound; creating and discarding an instance are events; a discarded
// instance's file access is closed.
func TestFilesOfInstance(t *testing.T) {
	ws := gitWorkspace(t)
	r := openRig(t, ws, MapResolver{"a": &scripted.Model{}})
	in, err := r.e.As("").CreateInstance(instances.Worktree, "box")
	if err != nil {
		t.Fatal(err)
	}
	r.until("instance created", func(ev Event) bool { return ev.Kind == EvInstance && ev.Text == "box" })
	for _, id := range []string{"", MainInstance} {
		f, err := r.e.FilesOf(id)
		if err != nil || f != r.e.Files() {
			t.Fatalf("FilesOf(%q) = %v, %v; want the workspace's", id, f, err)
		}
		if p, err := r.e.InstancePath(id); err != nil || p != ws {
			t.Fatalf("InstancePath(%q) = %q, %v", id, p, err)
		}
	}
	if p, err := r.e.InstancePath("box"); err != nil || p != in.Path {
		t.Fatalf("InstancePath(box) = %q, %v; want %q", p, err, in.Path)
	}
	f, err := r.e.FilesOf("box")
	if err != nil {
		t.Fatal(err)
	}
	if again, err := r.e.FilesOf("box"); err != nil || again != f {
		t.Fatalf("a second FilesOf opened another: %v", err)
	}
	if err := f.WriteFile(files.Operator, "new.txt", []byte("in the instance\n")); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(in.Path, "new.txt")); err != nil || string(got) != "in the instance\n" {
		t.Fatalf("instance file: %q, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(ws, "new.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the write reached the workspace: %v", err)
	}
	if err := f.WriteFile(files.Operator, filepath.Join(ws, "x.txt"), []byte("x")); !errors.Is(err, files.ErrOutsideWorkspace) {
		t.Fatalf("a write to the workspace through the instance's files: %v", err)
	}
	if err := f.WriteFile(files.Operator, "../x.txt", []byte("x")); err == nil {
		t.Fatal("a write above the instance was allowed")
	}
	for _, id := range []string{"nope", "Bad Id"} {
		if _, err := r.e.FilesOf(id); !errors.Is(err, instances.ErrNotFound) {
			t.Fatalf("FilesOf(%q): %v", id, err)
		}
		if _, err := r.e.InstancePath(id); !errors.Is(err, instances.ErrNotFound) {
			t.Fatalf("InstancePath(%q): %v", id, err)
		}
	}
	if err := r.e.As("").DiscardInstance("box", true); err != nil {
		t.Fatal(err)
	}
	r.until("instance discarded", func(ev Event) bool { return ev.Kind == EvInstance && ev.Text == "box" })
	if _, err := f.ReadFile(files.Operator, "README.md", files.ReadOptions{}); !errors.Is(err, files.ErrClosed) {
		t.Fatalf("the discarded instance's files still read: %v", err)
	}
	if _, err := r.e.FilesOf("box"); !errors.Is(err, instances.ErrNotFound) {
		t.Fatalf("FilesOf a discarded instance: %v", err)
	}
}

// TestInstanceLeases: an instance's leases are its own: the workspace's
// writer does not hold back a write to the instance, and the instance's
// writer holds back its sessions, not the workspace's.
func TestInstanceLeases(t *testing.T) {
	ws := gitWorkspace(t)
	r := openRig(t, ws, MapResolver{"a": writer("x.txt", "x\n")})
	if _, err := r.e.As("").CreateInstance(instances.Copy, "box"); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	main, err := r.e.LeaseWriteOf(ctx, "", "test-main")
	if err != nil {
		t.Fatal(err)
	}
	defer main()
	short, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	box, err := r.e.LeaseWriteOf(short, "box", "test-box")
	if err != nil {
		t.Fatalf("the instance's lease waited for the workspace's: %v", err)
	}
	if st, err := r.e.LeaseStateOf("box"); err != nil || st.Writer != "test-box" {
		t.Fatalf("the instance's leases: %+v, %v", st, err)
	}
	if st := r.e.LeaseState(); st.Writer != "test-main" {
		t.Fatalf("the workspace's leases: %+v", st)
	}
	s := r.create(CreateOptions{Agent: "a", Instance: "box", AutoStart: true, Approval: PolicyAuto})
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		st, err := r.e.LeaseStateOf("box")
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Waiting) == 1 && st.Waiting[0] == s.ID {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the instance session does not wait for the instance's lease: %+v", st)
		}
	}
	box()
	if got := r.status(s.ID, sessions.Ended); got.EndReason != sessions.Completed {
		t.Fatalf("session ended %+v", got)
	}
	if _, err := r.e.LeaseWriteOf(ctx, "nope", "x"); !errors.Is(err, instances.ErrNotFound) {
		t.Fatalf("the lease of an unknown instance: %v", err)
	}
}

// TestApplyWaitsForTheInstancesWriters: an apply reads the instance at
// one moment: it waits while a session on the instance holds its write
// lease (a write or a command in flight), and applies once it is let go.
func TestApplyWaitsForTheInstancesWriters(t *testing.T) {
	ws := gitWorkspace(t)
	r := openRig(t, ws, MapResolver{"a": &scripted.Model{}})
	if _, err := r.e.As("").CreateInstance(instances.Copy, "box"); err != nil {
		t.Fatal(err)
	}
	f, err := r.e.FilesOf("box")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.WriteFile(files.Operator, "new.txt", []byte("from the instance\n")); err != nil {
		t.Fatal(err)
	}
	release, err := r.e.LeaseWriteOf(context.Background(), "box", "a-session-writing")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := r.e.As("").ApplyInstance("box", instances.ApplyOptions{})
		done <- err
	}()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		st, err := r.e.LeaseStateOf("box")
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Waiting) == 1 && st.Waiting[0] == "apply" {
			break
		}
		if time.Now().After(deadline) {
			release()
			t.Fatalf("the apply does not wait for the instance's writer: %+v", st)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "new.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the apply wrote while the instance's writer held it: %v", err)
	}
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(ws, "new.txt")); err != nil || string(got) != "from the instance\n" {
		t.Fatalf("applied file: %q, %v", got, err)
	}
}
