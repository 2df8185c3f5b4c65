package core

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/engine"
	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/sessions"
)

// TestTextOverTheLimitIsRefused: a task, prompt, steer or queued edit of
// more than engine.MaxText bytes is refused with ErrTextTooLarge, saying
// the limit, and changes nothing: no session, no queued input, the queued
// text as it was. Text of exactly MaxText bytes is taken.
func TestTextOverTheLimitIsRefused(t *testing.T) {
	ws := t.TempDir()
	r := openRig(t, ws, MapResolver{"a": &scripted.Model{}})
	over := strings.Repeat("x", engine.MaxText+1)
	atLimit := strings.Repeat("y", engine.MaxText)
	refused := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, ErrTextTooLarge) || !strings.Contains(err.Error(), "256 KiB") {
			t.Errorf("%s over the limit: %v, want ErrTextTooLarge naming 256 KiB", what, err)
		}
	}

	_, err := r.e.Create(CreateOptions{Agent: "a", Instructions: over})
	refused("a task", err)
	if list := r.e.Sessions(); len(list) != 0 {
		t.Fatalf("a refused create left %d session(s)", len(list))
	}
	if dirs, err := os.ReadDir(filepath.Join(ws, sessions.StateDir, "sessions")); err == nil && len(dirs) != 0 {
		t.Fatalf("a refused create left %d session folder(s)", len(dirs))
	}

	s := r.create(CreateOptions{Agent: "a", Mode: sessions.Continuous, Instructions: atLimit})
	if got, err := r.e.Session(s.ID); err != nil || got.Instructions != atLimit {
		t.Fatalf("a task at the limit: %d bytes kept, %v", len(got.Instructions), err)
	}
	queued, err := r.e.As("").Send(s.ID, "first")
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.e.As("").Send(s.ID, over)
	refused("a prompt", err)
	_, err = r.e.As("").Prompt(s.ID, Prompt{Text: over})
	refused("a prompt with options", err)
	_, err = r.e.As("").Steer(s.ID, over)
	refused("a steer", err)
	refused("a queued edit", r.e.As("").EditQueued(s.ID, queued.ID, over))
	q, err := r.e.Queue(s.ID)
	if err != nil || len(q) != 1 || q[0].Text != "first" {
		t.Fatalf("the queue after refused inputs: %d item(s), %v", len(q), err)
	}
	if _, err := r.e.As("").Send(s.ID, atLimit); err != nil {
		t.Errorf("a prompt at the limit: %v", err)
	}
	if err := r.e.As("").EditQueued(s.ID, queued.ID, atLimit); err != nil {
		t.Errorf("a queued edit at the limit: %v", err)
	}
}
