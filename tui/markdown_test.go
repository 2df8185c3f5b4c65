package tui

import (
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/internal/golden"
	"github.com/atelier-studio/atelier/sessions"
)

// answer is an agent's reply with most of what Markdown draws.
const answer = "## Plan\n\nThe tests are **flaky** because `TestWatch` sleeps; see [the issue](https://example.com/17).\n\n" +
	"1. wait on the event instead\n2. drop the sleep\n   - and its *comment*\n\n" +
	"```go\nfunc waitFor(ch <-chan Event) Event {\n\treturn <-ch\n}\n```\n\n> Nothing else changes.\n\n" +
	"| file | change |\n|---|---|\n| watch_test.go | -3 +5 |\n"

// markdownSession is a studio whose one session's agent answered with
// answer, its tab open.
func markdownSession(t *testing.T) *harnessT {
	t.Helper()
	ws := t.TempDir()
	writeFiles(t, ws, "go.mod")
	c := newClock()
	model := &scripted.Model{Script: []scripted.Step{{Text: answer, Stop: harness.StopEnd}}}
	h := newHarness(t, ws, 120, 40, func(o *core.Options) {
		o.Now = c.Now
		o.Agents = core.MapResolver{"scribe": model}
	})
	h.app.opts.Now = c.Now
	rec, err := h.eng.Create(core.CreateOptions{Agent: "scribe", Title: "fix the flaky tests", Instructions: "why are the tests flaky?"})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.eng.As("").Start(rec.ID); err != nil {
		t.Fatal(err)
	}
	h.until("the session", func() bool { return len(h.app.live.recs) == 1 })
	h.press("enter")
	h.until("the whole answer", func() bool {
		return strings.Contains(h.screen(), "watch_test.go") && h.app.live.recs[rec.ID].Status != sessions.Running
	})
	return h
}

func TestGoldenMarkdownAnswer(t *testing.T) {
	h := markdownSession(t)
	s := h.screen()
	checkSize(t, s, 120, 40)
	golden.Check(t, "markdown-answer-120x40.txt", s)
	for _, drawn := range []string{"## Plan", "flaky because", "see the issue", "https://example.com/17.", "1. wait", "◦ and its comment", "│ func waitFor", "┃ Nothing else changes."} {
		if !strings.Contains(s, drawn) {
			t.Errorf("the answer should be drawn as Markdown (%q):\n%s", drawn, s)
		}
	}
	if strings.Contains(s, "**flaky**") || strings.Contains(s, "```") {
		t.Errorf("Markdown syntax shows in the drawn answer:\n%s", s)
	}
}

func TestCopyModeShowsTheSource(t *testing.T) {
	h := markdownSession(t)
	drawn := h.screen()
	h.press("M")
	s := h.screen()
	for _, src := range []string{"**flaky**", "`TestWatch`", "[the issue](https://example.com/17)", "```go", "|---|---|"} {
		if !strings.Contains(s, src) {
			t.Errorf("copy mode should show the answer's source (%q):\n%s", src, s)
		}
	}
	h.press("M")
	// The status line says the mouse came back; the rest is as before.
	above := func(s string) string { return s[:strings.LastIndex(s, "\n")] }
	if s := h.screen(); above(s) != above(drawn) {
		t.Errorf("leaving copy mode should draw the answer again:\n%s", s)
	}
}
