package agenttest

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestHostConfinesFiles: the host reads and writes inside its workspace
// only and records what it did; a path that climbs out is refused and
// touches nothing.
func TestHostConfinesFiles(t *testing.T) {
	h := NewHost(t)
	ctx := context.Background()
	if err := h.WriteFile(ctx, "sub/a.txt", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if b, err := h.ReadFile(ctx, filepath.Join(h.Dir, "sub/a.txt")); err != nil || string(b) != "x" {
		t.Fatalf("read back: %q, %v", b, err)
	}
	outside := filepath.Join(filepath.Dir(h.Dir), "escaped.txt")
	if err := h.WriteFile(ctx, "../escaped.txt", []byte("y")); err == nil {
		t.Fatal("a write outside the workspace was allowed")
	}
	if _, err := os.Stat(outside); err == nil {
		t.Fatalf("%s was written", outside)
	}
	if _, err := h.ReadFile(ctx, "/etc/passwd"); err == nil {
		t.Fatal("a read outside the workspace was allowed")
	}
	want := filepath.Join(h.Dir, "sub/a.txt")
	if w, r := h.Writes(), h.Reads(); len(w) != 1 || w[0] != want || len(r) != 1 || r[0] != want {
		t.Fatalf("recorded writes %q, reads %q", w, r)
	}
}

// TestProcExit: a fake process's exit ends its output, fails its input and
// reports its code, once.
func TestProcExit(t *testing.T) {
	p := NewProc()
	go p.Exit(3)
	if b, err := io.ReadAll(p.Stdout()); err != nil || len(b) != 0 {
		t.Fatalf("stdout after exit: %q, %v", b, err)
	}
	if code, err := p.Wait(); code != 3 || err != nil {
		t.Fatalf("wait: %d, %v", code, err)
	}
	p.Exit(5)
	if code, _ := p.Wait(); code != 3 {
		t.Fatalf("a second exit changed the code to %d", code)
	}
	if _, err := p.Stdin().Write([]byte("x")); err == nil {
		t.Fatal("a write to an exited process's stdin succeeded")
	}
}
