package terminal

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/tui/keys"
)

func copyKeys(t *testing.T, tab *Tab, ks ...string) CopyResult {
	t.Helper()
	var res CopyResult
	for _, k := range ks {
		msg := keys.Press(k)
		if len([]rune(k)) == 1 {
			msg = tea.KeyPressMsg{Code: []rune(k)[0], Text: k}
		}
		res = tab.CopyKey(msg)
	}
	return res
}

// TestCopyModeHoldsTheViewAndCopies: in copy mode the view keeps what was
// on the screen while the program's output goes on arriving beneath; the
// cursor reaches the scrollback, and v, V and y copy what they select.
func TestCopyModeHoldsTheViewAndCopies(t *testing.T) {
	tab := start(t, "sh", "-c", "i=1; while [ $i -le 30 ]; do echo line-$i; i=$((i+1)); done; read x; echo LATE; read y")
	until(t, tab, "the lines", func() bool { return strings.Contains(screenText(tab), "line-30") })
	tab.EnterCopy()
	if !tab.Copying() || !strings.Contains(screenText(tab), "[copy ") {
		t.Fatalf("copy mode should say so in the tab:\n%s", screenText(tab))
	}
	tab.scr.SendText("go\r") // the program prints LATE into the live screen
	until(t, tab, "the late line on the live screen", func() bool { return strings.Contains(ansi.Strip(tab.scr.Render()), "LATE") })
	if s := screenText(tab); strings.Contains(s, "LATE") || !strings.Contains(s, "line-30") {
		t.Fatalf("the copy view should hold still:\n%s", s)
	}

	// g goes to the scrollback's first line; v j y copies two lines' start.
	copyKeys(t, tab, "g")
	if s := screenText(tab); !strings.HasPrefix(s, "line-1 ") {
		t.Fatalf("g shows the top of the scrollback:\n%s", s)
	}
	if res := copyKeys(t, tab, "y"); res.Text != "" || res.Note == "" || !tab.Copying() {
		t.Fatalf("y with nothing selected copies nothing and says so: %+v", res)
	}
	res := copyKeys(t, tab, "w", "v", "j", "$", "y") // w: no second word on the line, the next line's start
	if res.Text != "line-2\nline-3" || !res.Left || tab.Copying() {
		t.Fatalf("v j $ y copied %+v, want line-2 and line-3", res)
	}
	if s := screenText(tab); !strings.Contains(s, "LATE") {
		t.Fatalf("leaving copy mode shows the live screen:\n%s", s)
	}

	// V selects whole lines; k and pgup move up, esc leaves copying nothing.
	tab.EnterCopy()
	res = copyKeys(t, tab, "k", "V", "k", "y") // the cursor starts on the shell's line, below the echoed "go" and LATE
	if res.Text != "go\nLATE" {
		t.Fatalf("V k y copied %q, want the two lines above the cursor's", res.Text)
	}
	tab.EnterCopy()
	copyKeys(t, tab, "pgup", "v", "l")
	if res := copyKeys(t, tab, "esc"); res.Text != "" || !res.Left || tab.Copying() {
		t.Fatalf("esc leaves without copying: %+v", res)
	}
}

// TestCopyModeWords: w and b move by words, 0 and $ to the line's ends.
func TestCopyModeWords(t *testing.T) {
	c := &copyMode{plain: []string{"alpha beta  gamma", "", "  delta"}, lines: []string{"alpha beta  gamma", "", "  delta"}}
	steps := []struct {
		move func() (int, int)
		x, y int
	}{
		{c.nextWord, 6, 0}, {c.nextWord, 12, 0}, {c.nextWord, 2, 2}, {c.nextWord, 2, 2},
		{c.prevWord, 12, 0}, {c.prevWord, 6, 0}, {c.prevWord, 0, 0}, {c.prevWord, 0, 0},
	}
	for i, s := range steps {
		c.x, c.y = s.move()
		if c.x != s.x || c.y != s.y {
			t.Fatalf("step %d: at %d,%d, want %d,%d", i, c.x, c.y, s.x, s.y)
		}
	}
}
