package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// notifyNew rings the terminal when something new needs the operator and
// is not already in sight: the terminal has lost focus, or the item is
// scrolled out of the Action required pane. It sends a bell and the OSC 9
// and OSC 777 desktop notifications terminals understand, or only one of
// the two, or nothing, as the notification setting says.
func (a *App) notifyNew() tea.Cmd {
	var fresh []string
	for _, it := range a.actions.Items() {
		k := it.Key()
		if !a.live.tell(k) {
			continue
		}
		if a.termBlurred || a.scr.tooSmall() || !a.actions.Shown(k) {
			fresh = append(fresh, it.Session.Title+": "+it.Kind())
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	text := "Atelier: " + strings.Join(fresh, ", ")
	text = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, text)
	switch a.set.notify {
	case "none":
		return nil
	case "bell":
		return tea.Raw("\a")
	case "osc":
		return tea.Raw("\x1b]9;" + text + "\x07\x1b]777;notify;Atelier;" + text + "\x07")
	}
	return tea.Raw("\a\x1b]9;" + text + "\x07\x1b]777;notify;Atelier;" + text + "\x07")
}
