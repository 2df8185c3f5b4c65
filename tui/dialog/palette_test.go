package dialog

import (
	"testing"

	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/keys"
)

// TestPaletteChosenIsTheEntrysIndex checks that a palette names what was
// chosen by its place in the entries it was given, not in the filtered
// list it shows: the continuation indexes its own slice with it.
func TestPaletteChosenIsTheEntrysIndex(t *testing.T) {
	st := themes.Build(themes.Dark(), true)
	entries := []Entry{{Desc: "open a file"}, {Desc: "theme: dark"}, {Desc: "close the tab"}}
	p := NewPalette(st, "pick", entries)
	for _, k := range "close" {
		p.HandleKey(keys.Press(string(k)))
	}
	if got := p.Shown(); len(got) == 0 || got[0].Desc != "close the tab" {
		t.Fatalf("filter shows %v, want close the tab first", got)
	}
	r := p.HandleKey(keys.Press("enter"))
	if !r.Closed || !r.OK || r.Chosen != 2 {
		t.Fatalf("enter gave %+v, want closed, OK, Chosen 2", r)
	}
	if r := NewPalette(st, "pick", entries).HandleKey(keys.Press("esc")); !r.Closed || r.OK {
		t.Fatalf("esc gave %+v, want closed and not OK", r)
	}
}
