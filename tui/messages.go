package tui

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/tui/activity"
	"github.com/atelier-studio/atelier/tui/dialog"
)

// Status messages. The status line shows the latest message and lets it
// fade after a few seconds (an error after longer), so an old "saved
// main.go" does not read as news; every recent message is kept whole for
// :messages, since the status line cuts long ones.

// statusFade is how long a message stays; an error stays errorFactor
// times longer.
const (
	statusFade  = 6 * time.Second
	errorFactor = 3
	maxMessages = 200
)

// statusEntry is one status message as it was set.
type statusEntry struct {
	when time.Time
	text string
	err  bool
}

// statusFadeMsg fades the status message it numbers, if it is still the
// latest.
type statusFadeMsg int

// fadeStatus schedules the fade of the latest message: one timer per
// message, nothing while no message is set.
func (a *App) fadeStatus() tea.Cmd {
	if a.statusFade <= 0 {
		return nil
	}
	d := a.statusFade
	if a.statusErr {
		d *= errorFactor
	}
	gen := a.statusGen
	return tea.Tick(d, func(time.Time) tea.Msg { return statusFadeMsg(gen) })
}

// listTabs lists every open tab to jump to, the strip showing only those
// that fit.
func (a *App) listTabs() {
	if len(a.tabs) == 0 {
		a.setStatus("no tab is open", false)
		return
	}
	entries := make([]dialog.Entry, 0, len(a.tabs))
	for i, t := range a.tabs {
		here := ""
		if i == a.active {
			here = "in view"
		}
		entries = append(entries, dialog.Entry{Scope: here, Key: itoa(i + 1), Desc: ansi.Strip(t.Label(60))})
	}
	a.open(dialog.NewPalette(a.st, "Open tabs", entries), onOK(func(r dialog.Result) tea.Cmd {
		if r.Chosen < len(a.tabs) {
			a.selectTab(r.Chosen)
			a.setFocus(focusCenter)
		}
		return nil
	}))
}

// showEntry opens an activity entry whole, with its time and session.
func (a *App) showEntry(e activity.Entry) {
	head := e.Time.Local().Format("2006-01-02 15:04:05")
	if e.SessionID != "" {
		title := e.SessionID
		if rec, ok := a.recs[e.SessionID]; ok {
			title = rec.Title + " (" + e.SessionID + ")"
		}
		head += " · " + title + " · " + a.km.activity.Open.Help().Key + " in the pane opens it"
	}
	a.open(dialog.NewText(a.st, "Activity", head+"\n\n"+e.Text), nil)
}

// showMessages opens the recent status messages, whole, newest first.
func (a *App) showMessages() {
	if len(a.messages) == 0 {
		a.setStatus("no messages yet", false)
		return
	}
	var b strings.Builder
	for i := len(a.messages) - 1; i >= 0; i-- {
		m := a.messages[i]
		stamp := ""
		if !m.when.IsZero() {
			stamp = m.when.Local().Format("15:04:05") + "  "
		}
		mark := ""
		if m.err {
			mark = "✗ "
		}
		b.WriteString(stamp + mark + m.text + "\n")
	}
	a.open(dialog.NewText(a.st, "Messages", strings.TrimRight(b.String(), "\n")), nil)
}
