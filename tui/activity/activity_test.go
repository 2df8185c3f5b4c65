package activity

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/themes"
)

func TestFilter(t *testing.T) {
	p := New(themes.Build(themes.Dark(), true))
	p.SetSize(40, 6)
	p.Focus()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p.Add(Entry{Time: now, SessionID: "s1", Text: "fix: running", Tone: themes.ToneAccent})
	p.Add(Entry{Time: now, Text: "main.go changed", Tone: themes.ToneSubtle})
	p.Add(Entry{Time: now, SessionID: "s1", Text: "fix: failed: boom", Tone: themes.ToneError})
	p.Add(Entry{Time: now, SessionID: "s2", Text: "docs: running", Tone: themes.ToneAccent})
	view := func() string { return ansi.Strip(strings.Join(p.View(), "\n")) }
	keys := func(ks ...string) {
		for _, k := range ks {
			msg := tea.KeyPressMsg{Code: []rune(k)[0], Text: k}
			switch k {
			case "esc":
				msg = tea.KeyPressMsg{Code: tea.KeyEscape}
			case "enter":
				msg = tea.KeyPressMsg{Code: tea.KeyEnter}
			}
			p.HandleKey(msg)
		}
	}
	keys("/", "r", "u", "n")
	if !p.TakesText() {
		t.Fatal("/ should open the filter line")
	}
	v := view()
	if !strings.Contains(v, "fix: running") || !strings.Contains(v, "docs: running") || strings.Contains(v, "boom") || strings.Contains(v, "main.go") {
		t.Fatalf("filter run:\n%s", v)
	}
	keys("enter")
	if p.TakesText() || p.Title() != "Activity · /run" {
		t.Fatalf("enter keeps the filter and closes the line: %q", p.Title())
	}
	// New entries are filtered too.
	p.Add(Entry{Time: now, Text: "notice", Tone: themes.ToneSubtle})
	if strings.Contains(view(), "notice") {
		t.Fatal("a new entry bypassed the filter")
	}
	keys("/", "esc")
	keys("v", "v", "v") // problems
	if v := view(); !strings.Contains(v, "boom") || strings.Contains(v, "running") {
		t.Fatalf("problems only:\n%s", v)
	}
	if o := p.HandleKey(tea.KeyPressMsg{Code: tea.KeyEnter}); o == nil || o.SessionID != "s1" {
		t.Fatalf("enter opens the shown entry's session: %+v", o)
	}
	keys("v")
	if v := view(); !strings.Contains(v, "main.go") || !strings.Contains(v, "boom") {
		t.Fatalf("everything again:\n%s", v)
	}
}
