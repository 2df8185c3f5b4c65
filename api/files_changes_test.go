package api

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/api/client"
)

// TestFileChangesStream: a file written on the host's disk and one written
// through the API both arrive on the change stream, the API's write as
// the operator's; the stream ends when its context does.
func TestFileChangesStream(t *testing.T) {
	r := newRig(t, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := r.c.Files("main").Changes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.ws, "outside.txt"), []byte("from the host's disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := r.c.Files("main").Write(ctx, "through.txt", []byte("through the API\n"), client.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	seen := map[string]client.WorkspaceChange{}
	for len(seen) < 2 {
		select {
		case batch, ok := <-s.C:
			if !ok {
				t.Fatalf("the stream ended: %v (seen %v)", s.Err(), seen)
			}
			for _, c := range batch {
				if c.Path == "outside.txt" || c.Path == "through.txt" {
					seen[c.Path] = c
				}
			}
		case <-ctx.Done():
			t.Fatalf("changes not seen: %v", seen)
		}
	}
	if c := seen["outside.txt"]; c.Kind != "created" || c.By == "operator" {
		t.Errorf("outside.txt: %+v, want created by someone other than the operator", c)
	}
	if c := seen["through.txt"]; c.By != "operator" {
		t.Errorf("through.txt: %+v, want written by the operator", c)
	}
	cancel()
	for range s.C {
	}
	if s.Err() != nil {
		t.Errorf("a stream ended by its context reports %v", s.Err())
	}
}

// TestFileChangesUnknownInstance: the stream of an instance that does not
// exist is refused, as the other files routes are.
func TestFileChangesUnknownInstance(t *testing.T) {
	r := newRig(t, Options{})
	_, err := r.c.Files("other").Changes(context.Background())
	var p *client.Problem
	if !errors.As(err, &p) || p.Code != client.CodeUnknownInstance {
		t.Fatalf("err = %v, want %s", err, client.CodeUnknownInstance)
	}
}
