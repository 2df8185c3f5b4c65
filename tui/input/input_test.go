package input

import (
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/themes"
)

func typeText(l *Line, s string) {
	for _, r := range s {
		l.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func TestEditing(t *testing.T) {
	l := New(themes.Build(themes.Dark(), true), "> ")
	typeText(l, "hello world")
	l.Update(tea.KeyPressMsg{Code: 'w', Mod: tea.ModCtrl})
	if l.Value() != "hello " {
		t.Fatalf("after ctrl+w: %q", l.Value())
	}
	l.Update(tea.KeyPressMsg{Code: tea.KeyHome})
	typeText(l, "oh ")
	l.Update(tea.KeyPressMsg{Code: tea.KeyEnd})
	l.Update(tea.KeyPressMsg{Code: tea.KeyBackspace})
	if l.Value() != "oh hello" {
		t.Fatalf("value %q", l.Value())
	}
	l.Update(tea.PasteMsg{Content: " a\nb\x07"})
	if l.Value() != "oh hello a b" {
		t.Fatalf("paste: %q", l.Value())
	}
	if l.Update(tea.KeyPressMsg{Code: 'x', Mod: tea.ModCtrl}) {
		t.Error("ctrl+x is not an edit and must be left to others")
	}
}

func TestViewKeepsCursorVisible(t *testing.T) {
	l := New(themes.Build(themes.Dark(), true), "> ")
	l.SetWidth(10)
	l.Focus()
	typeText(l, "abcdefghijklmnop")
	v := ansi.Strip(l.View())
	if ansi.StringWidth(v) > 10 || v[len(v)-1] != ' ' || v[len(v)-2] != 'p' {
		t.Fatalf("view %q: the end of the text and the cursor should show", v)
	}
	l.Update(tea.KeyPressMsg{Code: tea.KeyHome})
	if v := ansi.Strip(l.View()); v[:3] != "> a" {
		t.Fatalf("view after home %q", v)
	}
}

func TestLimit(t *testing.T) {
	l := New(themes.Build(themes.Dark(), true), "")
	l.Limit = 3
	typeText(l, "abcdef")
	if l.Value() != "abc" {
		t.Fatalf("value %q", l.Value())
	}
}

// TestMention: the word at the cursor is a mention when it starts with
// "@"; Replace puts the completion in its place and keeps what follows.
func TestMention(t *testing.T) {
	l := New(themes.Styles{}, "")
	l.SetValue("see @co")
	start, word, ok := l.Mention()
	if !ok || start != 4 || word != "co" {
		t.Fatalf("mention %d %q %v", start, word, ok)
	}
	l.Replace(start, "@core/engine.go ")
	if l.Value() != "see @core/engine.go " {
		t.Fatalf("replaced: %q", l.Value())
	}
	l.SetValue("mail a@b")
	if _, _, ok := l.Mention(); ok {
		t.Fatal("an @ inside a word is no mention")
	}
}
