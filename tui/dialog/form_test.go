package dialog

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	sess "github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/themes"
)

func press(f Dialog, keys ...string) Result {
	var r Result
	for _, k := range keys {
		var m tea.KeyPressMsg
		switch k {
		case "enter":
			m = tea.KeyPressMsg{Code: tea.KeyEnter}
		case "tab":
			m = tea.KeyPressMsg{Code: tea.KeyTab}
		case "right":
			m = tea.KeyPressMsg{Code: tea.KeyRight}
		case "left":
			m = tea.KeyPressMsg{Code: tea.KeyLeft}
		case "esc":
			m = tea.KeyPressMsg{Code: tea.KeyEscape}
		default:
			for _, c := range k {
				r = f.HandleKey(tea.KeyPressMsg{Code: c, Text: string(c)})
			}
			continue
		}
		r = f.HandleKey(m)
	}
	return r
}

func TestParseStart(t *testing.T) {
	now := time.Date(2026, 5, 6, 14, 0, 0, 0, time.UTC)
	cases := []struct {
		in   string
		auto bool
		at   string
		err  bool
	}{
		{"", true, "", false},
		{"later", false, "", false},
		{"+90m", false, "2026-05-06T15:30:00Z", false},
		{"15:04", false, "2026-05-06T15:04:00Z", false},
		{"09:00", false, "2026-05-07T09:00:00Z", false},
		{"2026-05-08T10:00", false, "2026-05-08T10:00:00Z", false},
		{"2020-01-01T10:00", false, "", true},
		{"+-5m", false, "", true},
		{"soonish", false, "", true},
	}
	for _, c := range cases {
		auto, at, err := ParseStart(c.in, now)
		if (err != nil) != c.err || auto != c.auto {
			t.Errorf("%q: auto %v err %v", c.in, auto, err)
			continue
		}
		if got := ""; at != nil {
			got = at.Format(time.RFC3339)
			if got != c.at {
				t.Errorf("%q: at %s, want %s", c.in, got, c.at)
			}
		} else if c.at != "" {
			t.Errorf("%q: no time, want %s", c.in, c.at)
		}
	}
}

func TestFormSubmitsItsSettings(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 5, 6, 14, 0, 0, 0, time.UTC) }
	f := NewForm(themes.Build(themes.Dark(), true), []string{"demo", "claude"}, now)
	r := press(f, "enter")
	if r.Closed {
		t.Fatal("an empty form must not submit")
	}
	if v := ansi.Strip(f.View(100, 40)); !strings.Contains(v, "give the session a title or a task") {
		t.Fatalf("the form says why:\n%s", v)
	}
	r = press(f, "my title", "tab", "do the thing", "tab", "right", "tab", "right", "tab", "tab", "tab", "tab", "tab", "tab", "+10m", "enter")
	if !r.Closed || !r.OK {
		t.Fatalf("submit: %+v", r)
	}
	o := r.Create
	if o.Title != "my title" || o.Instructions != "do the thing" || o.Agent != "claude" || o.Mode != sess.Continuous {
		t.Fatalf("options %+v", o)
	}
	if o.AutoStart || o.StartAt == nil || !o.StartAt.Equal(now().Add(10*time.Minute)) {
		t.Fatalf("start %v %v", o.AutoStart, o.StartAt)
	}
	if r := press(NewForm(themes.Build(themes.Dark(), true), nil, now), "esc"); !r.Closed || r.OK {
		t.Fatalf("esc dismisses: %+v", r)
	}
}

func TestFormIsolation(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 5, 6, 14, 0, 0, 0, time.UTC) }
	st := themes.Build(themes.Dark(), true)
	def := func(agent string) string {
		if agent == "claude" {
			return "worktree"
		}
		return ""
	}
	cases := []struct {
		name string
		keys []string
		iso  string
		inst string
		show string
	}{
		{"left as shown, the create decides", []string{"t", "enter"}, "", "", "[in-place]"},
		{"the agent's configured isolation is shown and named", []string{"t", "tab", "tab", "right", "enter"}, "worktree", "", "[worktree]"},
		{"chosen", []string{"t", "tab", "tab", "tab", "tab", "tab", "right", "right", "tab", "enter"}, "copy", "", "[copy]"},
		{"joined", []string{"t", "tab", "tab", "tab", "tab", "tab", "left", "tab", "enter"}, "", "wt-1", "[join wt-1 (worktree)]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := NewForm(st, []string{"demo", "claude"}, now)
			f.SetIsolation(def, []Joinable{{ID: "wt-1", Kind: "worktree"}})
			r := press(f, c.keys[:len(c.keys)-1]...)
			if v := ansi.Strip(f.View(140, 40)); !strings.Contains(v, c.show) {
				t.Fatalf("the field shows %s:\n%s", c.show, v)
			}
			r = press(f, "enter")
			if !r.Closed || r.Create.Isolation != c.iso || r.Create.Instance != c.inst {
				t.Fatalf("isolation %q instance %q, want %q %q (%+v)", r.Create.Isolation, r.Create.Instance, c.iso, c.inst, r)
			}
		})
	}
}
