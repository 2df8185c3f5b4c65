package tui

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/internal/testreq"
	sess "github.com/atelier-studio/atelier/sessions"
	eterm "github.com/atelier-studio/atelier/terminal"
	"github.com/atelier-studio/atelier/terminal/docker"
	"github.com/atelier-studio/atelier/tui/keys"
	"github.com/atelier-studio/atelier/tui/terminal"
	"github.com/atelier-studio/atelier/tui/transcript"
)

// sessionShell asks for a terminal in a session's environment the way the
// session tab's key does, and returns what starting it answered. The
// harness cannot run the tab's waiting command (it waits for the shell),
// so the answer is applied without it.
func sessionShell(t *testing.T, h *harnessT, id string) terminal.Started {
	t.Helper()
	h.send(keys.Press("enter")) // open the selected session's tab
	if h.app.tabs.visibleSession() != id {
		h.app.openSession(id, true)
	}
	cmd := h.app.ctl.tabAction(transcript.Terminal{ID: id, Title: h.app.live.recs[id].Title})
	started, ok := cmd().(terminal.Started)
	if !ok {
		t.Fatal("the command answers Started")
	}
	h.app.Update(started)
	return started
}

// typeIn types a line into the visible terminal tab and waits for want on
// its screen.
func typeIn(t *testing.T, h *harnessT, line, want string) {
	t.Helper()
	tt, ok := h.app.tabs.current().(*termTab)
	if !ok {
		t.Fatalf("no terminal tab; status %q", h.app.status.text)
	}
	for _, r := range line + "\r" {
		tt.HandleKey(keys.Press(string(r)))
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		s := ansi.Strip(strings.Join(tt.View(), "\n"))
		if strings.Contains(s, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the terminal never showed %q:\n%s", want, s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestSessionTerminalRunsInTheSessionsEnvironment(t *testing.T) {
	t.Setenv("SHELL", "/bin/sh")
	ws := t.TempDir()
	h := newHarness(t, ws, 120, 40)
	rw, err := h.eng.Create(core.CreateOptions{Title: "local one"})
	if err != nil {
		t.Fatal(err)
	}
	ro, err := h.eng.Create(core.CreateOptions{Title: "read only", Access: sess.ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	h.until("both sessions", func() bool { return len(h.app.live.recs) == 2 })

	st := sessionShell(t, h, ro.ID)
	if !errors.Is(st.Err, eterm.ErrReadOnlyLocal) {
		t.Fatalf("a read-only local session refuses a terminal: %v", st.Err)
	}
	if !h.app.status.err || !strings.Contains(h.app.status.text, "read only") {
		t.Fatalf("the refusal is in the status line: %q", h.app.status.text)
	}
	if _, ok := h.app.tabs.current().(*termTab); ok {
		t.Fatal("no terminal tab for a refusal")
	}

	st = sessionShell(t, h, rw.ID)
	if st.Err != nil {
		t.Fatal(st.Err)
	}
	t.Cleanup(st.Tab.Close)
	if !strings.Contains(h.screen(), "shell · local one") {
		t.Fatalf("the tab names the session:\n%s", h.screen())
	}
	typeIn(t, h, `echo "in-$(basename "$PWD")-$((6*7))"`, "in-"+filepath.Base(ws)+"-42")
}

// TestSessionTerminalInTheContainer opens a terminal in a Docker session:
// the shell runs in its container.
func TestSessionTerminalInTheContainer(t *testing.T) {
	img := os.Getenv("ATELIER_TEST_DOCKER_IMAGE")
	if img == "" {
		img = "atelier-test-busybox:latest"
	}
	de, err := docker.NewEngine(docker.EngineOptions{})
	testreq.Need(t, "docker", err == nil, "no Docker engine configured")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	testreq.Need(t, "docker", de.Ping(ctx) == nil, "no Docker engine answers (run .ci/setup.d/docker.sh)")
	_, err = de.Client().ImageInspect(ctx, img)
	if cerr := de.Close(); cerr != nil {
		t.Fatal(cerr)
	}
	testreq.Need(t, "docker", err == nil, "the test image "+img+" is missing (run .ci/setup.d/docker.sh)")

	h := newHarness(t, t.TempDir(), 120, 40, func(o *core.Options) {
		o.Containers = docker.NewSessions(docker.EngineOptions{}, docker.Config{})
	})
	rec, err := h.eng.Create(core.CreateOptions{Title: "boxed", Execution: "docker", Image: img})
	if err != nil {
		t.Fatal(err)
	}
	h.until("the session", func() bool { return len(h.app.live.recs) == 1 })
	st := sessionShell(t, h, rec.ID)
	if st.Err != nil {
		t.Fatal(st.Err)
	}
	t.Cleanup(st.Tab.Close)
	typeIn(t, h, `test -f /.dockerenv && echo "in-the-$((1+1))-container"`, "in-the-2-container")
}
