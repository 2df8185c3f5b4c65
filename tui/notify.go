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
func (sp *settingsPart) notifyNew() tea.Cmd {
	var fresh []string
	for _, it := range sp.actions.Items() {
		k := it.Key()
		if !sp.live.tell(k) {
			continue
		}
		if sp.scr.termBlurred || sp.scr.tooSmall() || !sp.actions.Shown(k) {
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
	switch sp.notify {
	case "none":
		return nil
	case "bell":
		return tea.Raw("\a")
	case "osc":
		return tea.Raw("\x1b]9;" + text + "\x07\x1b]777;notify;Atelier;" + text + "\x07")
	}
	return tea.Raw("\a\x1b]9;" + text + "\x07\x1b]777;notify;Atelier;" + text + "\x07")
}
