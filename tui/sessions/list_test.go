package sessions

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	sess "github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/badge"
)

func kp(s string) tea.KeyPressMsg {
	switch s {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	}
	return tea.KeyPressMsg{Code: []rune(s)[0], Text: s}
}

func sample() *List {
	t0 := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	l := New(themes.Build(themes.Dark(), true))
	l.SetSize(40, 10)
	l.SetNow(t0.Add(time.Hour))
	l.Set([]sess.Session{
		{ID: "a", Title: "fix-tests", Agent: "claude", Status: sess.Running, SubState: sess.Active, CreatedAt: t0},
		{ID: "b", Title: "docs", Agent: "demo", Status: sess.Waiting, WaitReason: sess.WaitAwaitingInput, CreatedAt: t0.Add(time.Minute)},
		{ID: "c", Title: "refactor", Agent: "codex", Status: sess.Ended, EndReason: sess.Completed, CreatedAt: t0.Add(2 * time.Minute)},
		{ID: "d", Title: "old", Agent: "demo", Status: sess.Ended, EndReason: sess.Cancelled, Archived: true, CreatedAt: t0},
	})
	l.Focus()
	return l
}

func shown(l *List) string { return ansi.Strip(strings.Join(l.View(), "\n")) }

func TestOrderAndBadges(t *testing.T) {
	l := sample()
	v := shown(l)
	docs, fix, ref := strings.Index(v, "docs"), strings.Index(v, "fix-tests"), strings.Index(v, "refactor")
	if docs >= fix || fix >= ref {
		t.Fatalf("live sessions first, newest first:\n%s", v)
	}
	if strings.Contains(v, "old") {
		t.Fatalf("archived sessions are hidden by default:\n%s", v)
	}
	for _, want := range []string{"running", "waiting", "✓ refactor", "done", "1 need you"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
}

func TestFuzzyFilterAndStatusFilter(t *testing.T) {
	l := sample()
	l.HandleKey(kp("/"))
	if !l.TakesText() {
		t.Fatal("/ opens the filter line")
	}
	for _, r := range "fxts" {
		l.HandleKey(kp(string(r)))
	}
	l.HandleKey(kp("enter"))
	if v := shown(l); !strings.Contains(v, "fix-tests") || strings.Contains(v, "docs") {
		t.Fatalf("fuzzy filter fxts:\n%s", v)
	}
	l.HandleKey(kp("/"))
	l.HandleKey(kp("esc"))
	if v := shown(l); !strings.Contains(v, "docs") {
		t.Fatalf("esc clears the filter:\n%s", v)
	}
	if !fuzzy("codex", "refactor codex") || fuzzy("zz", "refactor codex") {
		t.Error("fuzzy matches the agent too, and only in order")
	}
	l.HandleKey(kp("v")) // live
	if v := shown(l); strings.Contains(v, "refactor") {
		t.Fatalf("live filter shows ended sessions:\n%s", v)
	}
	for i := 0; i < 3; i++ {
		l.HandleKey(kp("v")) // needs you, ended, archived
	}
	if v := shown(l); !strings.Contains(v, "old") || strings.Contains(v, "docs") {
		t.Fatalf("archived filter:\n%s", v)
	}
}

func TestActionsAndMarks(t *testing.T) {
	l := sample()
	if a := l.HandleKey(kp("enter")); a != (Open{ID: "b"}) {
		t.Fatalf("enter opens the selected session, got %#v", a)
	}
	l.HandleKey(kp("down"))
	if a := l.HandleKey(kp("d")); a != (Delete{ID: "a", Title: "fix-tests", Live: true}) {
		t.Fatalf("d asks to delete, got %#v", a)
	}
	if a, ok := l.HandleKey(kp("a")).(Archive); !ok || !a.Archived {
		t.Fatalf("a archives, got %#v", a)
	}
	l.SetMark("c", MarkDone)
	l.SetMark("b", MarkNeedsYou)
	v := shown(l)
	if !strings.Contains(v, "●◆ docs") || !strings.Contains(v, "•✓ refactor") {
		t.Fatalf("marks:\n%s", v)
	}
	dl := time.Date(2026, 1, 1, 10, 0, 42, 0, time.UTC)
	l.Upsert(sess.Session{ID: "a", Title: "fix-tests", Agent: "claude", Status: sess.Running, SubState: sess.Parked,
		CreatedAt: time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)})
	l.SetWait("a", badge.Wait{Kind: sess.Park, Deadline: &dl})
	if v := shown(l); !strings.Contains(v, "42s") {
		t.Fatalf("a parked timer counts down:\n%s", v)
	}
	if !l.Animated() {
		t.Error("a countdown animates")
	}
}
