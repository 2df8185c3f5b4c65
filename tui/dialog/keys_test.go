package dialog

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/keys"
)

// TestDialogsActOnTheirTables rebinds each kind's keys and checks that
// the dialog answers to the new key, no longer to the old one, and names
// the new key in its own line: a dialog cannot do one thing and say
// another, whatever the configuration changed.
func TestDialogsActOnTheirTables(t *testing.T) {
	st := themes.Build(themes.Dark(), true)
	km := DefaultKeyMap()
	keys.Rebind(&km.Confirm.Yes, "o")
	keys.Rebind(&km.Line.Submit, "ctrl+s")
	keys.Rebind(&km.Line.Cancel, "ctrl+g")
	keys.Rebind(&km.Palette.Close, "ctrl+g")
	keys.Rebind(&km.Reader.Down, "ctrl+d")
	view := func(d Dialog) string { return ansi.Strip(d.View(100, 30)) }

	c := WithKeys(NewConfirm(st, "Close?", "Close it.", "close"), km)
	if r := c.HandleKey(keys.Press("y")); r.Closed {
		t.Errorf("y still confirms after the rebind: %+v", r)
	}
	if !strings.Contains(view(c), "o close") {
		t.Errorf("the confirmation does not name its key:\n%s", view(c))
	}
	if r := c.HandleKey(keys.Press("o")); !r.Closed || !r.OK {
		t.Errorf("o does not confirm: %+v", r)
	}

	p := WithKeys(NewPrompt(st, "Name", "A name.", "x"), km)
	if r := p.HandleKey(keys.Press("enter")); r.Closed {
		t.Errorf("enter still submits: %+v", r)
	}
	if v := view(p); !strings.Contains(v, "ctrl+s send") || !strings.Contains(v, "ctrl+g cancel") {
		t.Errorf("the prompt does not name its keys:\n%s", v)
	}
	if r := p.HandleKey(keys.Press("ctrl+s")); !r.Closed || !r.OK {
		t.Errorf("ctrl+s does not submit: %+v", r)
	}

	pal := WithKeys(NewPalette(st, "Run", []Entry{{Key: "a", Desc: "one"}}), km)
	if r := pal.HandleKey(keys.Press("esc")); r.Closed {
		t.Errorf("esc still closes the palette: %+v", r)
	}
	if r := pal.HandleKey(keys.Press("ctrl+g")); !r.Closed || r.OK {
		t.Errorf("ctrl+g does not close the palette: %+v", r)
	}

	txt := WithKeys(NewText(st, "Messages", strings.Repeat("line\n", 80)), km)
	if r := txt.HandleKey(keys.Press("ctrl+d")); r.Closed {
		t.Errorf("the reader's rebound key closes the text: %+v", r)
	}
	if r := txt.HandleKey(keys.Press("j")); !r.Closed {
		t.Errorf("the old key still scrolls: %+v", r)
	}
}
