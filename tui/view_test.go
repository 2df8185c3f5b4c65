package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/attach"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/internal/golden"
)

// goldenWorkspace is a workspace with files and two sessions that never
// started, so its rendering is the same on every run.
func goldenWorkspace(t *testing.T) *harnessT {
	t.Helper()
	return goldenWorkspaceOn(t, t.TempDir(), attach.Local)
}

// goldenWorkspaceOn is goldenWorkspace on ws, with the studio's seam to
// the engine made by seam (attach.LocalHost with what a host runs beside).
func goldenWorkspaceOn(t *testing.T, ws string, seam func(*core.Engine) attach.Engine) *harnessT {
	t.Helper()
	writeFiles(t, ws, "README.md", "go.mod", "core/engine.go", "docs/", ".git/HEAD", "node_modules/x/y.js")
	c := newClock()
	h := newHarnessOn(t, ws, 120, 40, seam, func(o *core.Options) { o.Now = c.step() })
	h.app.opts.Now = c.Now
	for _, o := range []core.CreateOptions{
		{Title: "fix the flaky tests", Instructions: "make go test pass"},
		{Title: "write the docs", Instructions: "document the CLI", Mode: "continuous"},
	} {
		if _, err := h.eng.Create(o); err != nil {
			t.Fatal(err)
		}
	}
	h.until("two sessions", func() bool { return len(h.app.live.recs) == 2 })
	return h
}

func checkSize(t *testing.T, screen string, w, hgt int) {
	t.Helper()
	lines := strings.Split(screen, "\n")
	if len(lines) != hgt {
		t.Fatalf("%d lines, want %d", len(lines), hgt)
	}
	for i, l := range lines {
		if n := ansi.StringWidth(l); n != w {
			t.Fatalf("line %d is %d wide, want %d: %q", i, n, w, l)
		}
	}
}

func TestGoldenStudio(t *testing.T) {
	h := goldenWorkspace(t)
	s := h.screen()
	checkSize(t, s, 120, 40)
	golden.Check(t, "studio-120x40.txt", s)
}

func TestGoldenSessionTab(t *testing.T) {
	h := goldenWorkspace(t)
	h.press("down", "enter") // the older session: "fix the flaky tests"
	h.until("the transcript", func() bool { return !strings.Contains(h.screen(), "loading") })
	s := h.screen()
	checkSize(t, s, 120, 40)
	golden.Check(t, "session-tab-120x40.txt", s)
}

func TestGoldenNewSessionForm(t *testing.T) {
	h := goldenWorkspace(t)
	h.press("n")
	h.typeText("tidy")
	s := h.screen()
	checkSize(t, s, 120, 40)
	golden.Check(t, "new-session-form-120x40.txt", s)
}

func TestGoldenTooSmall(t *testing.T) {
	h := goldenWorkspace(t)
	h.send(tea.WindowSizeMsg{Width: 39, Height: 20})
	s := h.screen()
	checkSize(t, s, 39, 20)
	golden.Check(t, "too-small-39x20.txt", s)
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	if strings.Contains(h.screen(), "too small") {
		t.Fatal("a resize back above the minimum draws the studio again")
	}
	checkSize(t, h.screen(), 100, 30)
}

// TestGoldenSinglePane: below 80x24, down to 40x12, the studio shows one
// pane at a time under a header that names every pane, the shown one
// marked, and tab moves to the next, the session's tab included once one
// is open.
func TestGoldenSinglePane(t *testing.T) {
	h := goldenWorkspace(t)
	h.send(tea.WindowSizeMsg{Width: 40, Height: 12})
	h.app.setFocus(focusSessions)
	s := h.screen()
	checkSize(t, s, 40, 12)
	golden.Check(t, "single-pane-40x12.txt", s)
	lines := strings.Split(s, "\n")
	for _, name := range []string{"Sessions", "Files", "Tabs", "Activity", "Actions"} {
		if !strings.Contains(lines[0], name) {
			t.Errorf("the header does not name %s: %q", name, lines[0])
		}
	}
	if !strings.HasPrefix(lines[1], "╭─ Sessions") || strings.Contains(s, "╭─ Files") {
		t.Fatalf("one pane, the sessions:\n%s", s)
	}
	h.press("tab")
	if s := h.screen(); !strings.HasPrefix(strings.Split(s, "\n")[1], "╭─ Files") {
		t.Fatalf("tab should show the files pane:\n%s", s)
	}
	h.press("shift+tab", "down", "enter") // the older session's tab
	h.until("the transcript", func() bool { return !strings.Contains(h.screen(), "loading") })
	s = h.screen()
	checkSize(t, s, 40, 12)
	if second := strings.Split(s, "\n")[1]; !strings.Contains(second, "fix the") {
		t.Fatalf("enter should show the session's tab alone:\n%s", s)
	}
	// Wider but short: still one pane, and now the header says the key.
	h.send(tea.WindowSizeMsg{Width: 120, Height: 20})
	s = h.screen()
	checkSize(t, s, 120, 20)
	if first := strings.Split(s, "\n")[0]; !strings.Contains(first, "tab next pane") {
		t.Errorf("with room, the header says how to switch: %q", first)
	}
}
