package dialog

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/themes"
)

// A question's default is a placeholder, not typed text: typing replaces
// it from the first key (no deleting "hello" first), and enter alone
// takes it.
func TestDefaultIsAPlaceholder(t *testing.T) {
	st := themes.Build(themes.Dark(), true)
	p := NewDefaultPrompt(st, "Answer", "which greeting?", "hello")
	if v := ansi.Strip(p.View(80, 20)); !strings.Contains(v, "default: hello (enter takes it)") {
		t.Fatalf("the default should show as a placeholder:\n%s", v)
	}
	if r := press(p, "enter"); !r.OK || r.Text != "hello" {
		t.Fatalf("enter alone: %+v, want the default", r)
	}
	p = NewDefaultPrompt(st, "Answer", "which greeting?", "hello")
	if r := press(p, "hi", "enter"); !r.OK || r.Text != "hi" {
		t.Fatalf("typed: %+v, want only what was typed", r)
	}
	p = NewDefaultPrompt(st, "Answer", "anything?", "")
	if r := press(p, "enter"); r.Closed {
		t.Fatalf("no default and nothing typed must not submit: %+v", r)
	}
}
