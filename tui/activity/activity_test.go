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
	if o := p.HandleKey(tea.KeyPressMsg{Code: 'o', Text: "o"}); o == nil || o.SessionID != "s1" || o.Detail != nil {
		t.Fatalf("o opens the shown entry's session: %+v", o)
	}
	if o := p.HandleKey(tea.KeyPressMsg{Code: tea.KeyEnter}); o == nil || o.Detail == nil || o.Detail.Text != "fix: failed: boom" {
		t.Fatalf("enter shows the entry whole: %+v", o)
	}
	keys("v")
	if v := view(); !strings.Contains(v, "main.go") || !strings.Contains(v, "boom") {
		t.Fatalf("everything again:\n%s", v)
	}
}

// The stream follows the newest entry; scrolled down, it stays on what
// the operator reads and its title counts the entries that came above,
// until the operator is back at the top. A second click on an entry asks
// for it whole.
func TestFollowsUnlessScrolled(t *testing.T) {
	p := New(themes.Build(themes.Dark(), true))
	p.SetSize(40, 4)
	p.Focus()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	add := func(text string) { p.Add(Entry{Time: now, Text: text}) }
	for _, x := range []string{"one", "two", "three"} {
		add(x)
	}
	if first := ansi.Strip(p.View()[0]); !strings.Contains(first, "three") || p.Title() != "Activity" {
		t.Fatalf("following: %q, %q", first, p.Title())
	}
	p.Scroll(1) // on "two"
	add("four")
	add("five")
	if p.Title() != "Activity · 2 new ↑" {
		t.Fatalf("scrolled: title %q", p.Title())
	}
	if e, again := p.Click(p.sel - p.off); !again || e.Text != "two" {
		t.Fatalf("a second click on the selected entry: %+v, %v", e, again)
	}
	p.Scroll(-10)
	if p.Title() != "Activity" || !strings.Contains(ansi.Strip(p.View()[0]), "five") {
		t.Fatalf("back at the top: %q", p.Title())
	}
	add("six")
	if !strings.Contains(ansi.Strip(p.View()[0]), "six") || p.Title() != "Activity" {
		t.Fatal("following again after going back to the top")
	}
	long := strings.Repeat("long text ", 30) + "END"
	add(long)
	if strings.Contains(ansi.Strip(strings.Join(p.View(), "")), "END") {
		t.Fatal("the pane should cut a long entry")
	}
	if o := p.HandleKey(tea.KeyPressMsg{Code: tea.KeyEnter}); o == nil || o.Detail == nil || o.Detail.Text != long {
		t.Fatalf("enter gives the entry whole: %+v", o)
	}
}
