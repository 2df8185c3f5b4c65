package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/core"
)

// goldenWorkspace is a workspace with files and two sessions that never
// started, so its rendering is the same on every run.
func goldenWorkspace(t *testing.T) *harnessT {
	t.Helper()
	ws := t.TempDir()
	writeFiles(t, ws, "README.md", "go.mod", "core/engine.go", "docs/", ".git/HEAD", "node_modules/x/y.js")
	c := newClock()
	h := newHarness(t, ws, 120, 40, func(o *core.Options) { o.Now = c.step() })
	h.app.opts.Now = c.Now
	for _, o := range []core.CreateOptions{
		{Title: "fix the flaky tests", Instructions: "make go test pass"},
		{Title: "write the docs", Instructions: "document the CLI", Mode: "continuous"},
	} {
		if _, err := h.eng.Create(o); err != nil {
			t.Fatal(err)
		}
	}
	h.until("two sessions", func() bool { return len(h.app.recs) == 2 })
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
	golden(t, "studio-120x40.txt", s)
}

func TestGoldenSessionTab(t *testing.T) {
	h := goldenWorkspace(t)
	h.press("down", "enter") // the older session: "fix the flaky tests"
	h.until("the transcript", func() bool { return !strings.Contains(h.screen(), "loading") })
	s := h.screen()
	checkSize(t, s, 120, 40)
	golden(t, "session-tab-120x40.txt", s)
}

func TestGoldenNewSessionForm(t *testing.T) {
	h := goldenWorkspace(t)
	h.press("n")
	h.typeText("tidy")
	s := h.screen()
	checkSize(t, s, 120, 40)
	golden(t, "new-session-form-120x40.txt", s)
}

func TestGoldenTooSmall(t *testing.T) {
	h := goldenWorkspace(t)
	h.send(tea.WindowSizeMsg{Width: 79, Height: 30})
	s := h.screen()
	checkSize(t, s, 79, 30)
	golden(t, "too-small-79x30.txt", s)
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	if strings.Contains(h.screen(), "too small") {
		t.Fatal("a resize back above the minimum draws the studio again")
	}
	checkSize(t, h.screen(), 100, 30)
}
