package tui

import (
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/tui/activity"
	"github.com/atelier-studio/atelier/tui/dialog"
)

// listTabs lists every open tab to jump to, the strip showing only those
// that fit.
func (a *App) listTabs() {
	if a.tabs.len() == 0 {
		a.status.set("no tab is open", false)
		return
	}
	entries := make([]dialog.Entry, 0, a.tabs.len())
	for i, t := range a.tabs.list {
		here := ""
		if i == a.tabs.active {
			here = "in view"
		}
		entries = append(entries, dialog.Entry{Scope: here, Key: itoa(i + 1), Desc: ansi.Strip(t.Label(60))})
	}
	a.dlg.open(dialog.NewPalette(a.st, "Open tabs", entries), onOK(func(r dialog.Result) tea.Cmd {
		if r.Chosen < a.tabs.len() {
			a.selectTab(r.Chosen)
			a.setFocus(focusCenter)
		}
		return nil
	}))
}

// showEntry opens an activity entry whole, with its time and session.
func (fr *chrome) showEntry(e activity.Entry) {
	head := e.Time.Local().Format("2006-01-02 15:04:05")
	if e.SessionID != "" {
		title := e.SessionID
		if rec, ok := fr.live.recs[e.SessionID]; ok {
			title = rec.Title + " (" + e.SessionID + ")"
		}
		head += " · " + title + " · " + fr.km.activity.Open.Help().Key + " in the pane opens it"
	}
	fr.dlg.open(dialog.NewText(fr.st, "Activity", head+"\n\n"+e.Text), nil)
}

// showMessages opens the recent status messages, whole, newest first.
func (fr *chrome) showMessages() {
	text := fr.status.recent()
	if text == "" {
		fr.status.set("no messages yet", false)
		return
	}
	fr.dlg.open(dialog.NewText(fr.st, "Messages", text), nil)
}
