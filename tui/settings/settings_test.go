package settings

import (
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/themes"
)

func view(p *Pane) string { return ansi.Strip(strings.Join(p.View(), "\n")) }

func logLines(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "10:00:00 line " + string(rune('a'+i%26))
	}
	return out
}

// TestRunLogFollowsItsEnd: G goes to the end and stays there as the log
// grows; scrolling up stops following.
func TestRunLogFollowsItsEnd(t *testing.T) {
	p := New(themes.Build(themes.Dark(), true), nil, "/ws", "auto", true)
	p.SetSize(60, 10)
	if v := view(p); !strings.Contains(v, "Configuration") {
		t.Fatalf("the tab starts at the top:\n%s", v)
	}
	p.SetRunLog(".state/engine.log", logLines(30), nil)
	p.View()
	p.HandleKey(tea.KeyPressMsg{Code: 'g' - 32, ShiftedCode: 'G', Mod: tea.ModShift, Text: "G"})
	p.SetRunLog(".state/engine.log", append(logLines(30), "10:00:01 the newest"), nil)
	v := view(p)
	if !strings.HasSuffix(v, "10:00:01 the newest") {
		t.Fatalf("following, the newest line is the last shown:\n%s", v)
	}
	p.HandleKey(tea.KeyPressMsg{Code: 'k', Text: "k"})
	p.SetRunLog(".state/engine.log", append(logLines(30), "10:00:01 the newest", "10:00:02 newer"), nil)
	if v := view(p); strings.Contains(v, "newer") {
		t.Fatalf("scrolled up, the view stays put:\n%s", v)
	}
	p.SetRunLog(".state/engine.log", nil, errors.New("run log: no such file"))
	p.HandleKey(tea.KeyPressMsg{Code: 'g' - 32, ShiftedCode: 'G', Mod: tea.ModShift, Text: "G"})
	if v := view(p); !strings.Contains(v, "run log: no such file") {
		t.Fatalf("a read error shows in place of the lines:\n%s", v)
	}
}
