package tui

import (
	"os"
	"path/filepath"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/tui/frame"
)

// View draws the studio.
func (a *App) View() tea.View {
	v := tea.NewView(a.Render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	if a.copyMode {
		v.MouseMode = tea.MouseModeNone
	}
	v.ReportFocus = true
	v.WindowTitle = "Atelier · " + filepath.Base(a.opts.Workspace)
	if a.opts.Remote != "" {
		v.WindowTitle += " · " + a.opts.Remote
	}
	return v
}

// Render draws the studio as a string of exactly the terminal's size.
func (a *App) Render() string {
	if a.scr.w == 0 || a.scr.h == 0 {
		return ""
	}
	if a.scr.tooSmall() {
		return a.renderTooSmall()
	}
	ar := a.scr.areas()
	box := func(r rect, title, right string, f focus, rows []string) string {
		border, ts := a.st.Border, a.st.Title
		if a.scr.focus == f {
			border, ts = a.st.BorderFocused, a.st.TitleFocused
		}
		return frame.Box{Title: ts.Render(title), Right: a.st.Subtle.Render(right), Border: border,
			Width: r.w, Height: r.h, ContentRows: rows}.Render()
	}
	if a.scr.onePane() {
		var pane string
		switch a.scr.focus {
		case focusSessions:
			pane = box(ar.sessions, a.sessions.Title(), a.sessions.Count(), focusSessions, a.sessions.View())
		case focusFiles:
			pane = box(ar.files, a.inst.filesTitle(), "", focusFiles, a.files.View())
		case focusActivity:
			pane = box(ar.activity, a.activity.Title(), "", focusActivity, a.activity.View())
		case focusActions:
			pane = box(ar.actions, "Action required", itoa(a.actions.Count()), focusActions, a.actions.View())
		default:
			pane = a.renderCenter(ar.center)
		}
		if a.scr.single() {
			pane = a.singleHeader() + "\n" + pane
		}
		return a.overlayDialog(pane + "\n" + a.statusLine())
	}
	if a.scr.collapsed() {
		screen := a.renderCenter(ar.center) + "\n" + a.statusLine()
		return a.overlayDialog(screen)
	}
	left := frame.Stack(
		box(ar.sessions, a.sessions.Title(), a.sessions.Count(), focusSessions, a.sessions.View()),
		box(ar.files, a.inst.filesTitle(), "", focusFiles, a.files.View()),
	)
	need := ""
	if n := a.actions.Count(); n > 0 {
		need = itoa(n)
	}
	right := frame.Stack(
		box(ar.activity, a.activity.Title(), "", focusActivity, a.activity.View()),
		box(ar.actions, "Action required", need, focusActions, a.actions.View()),
	)
	screen := frame.Join(left, a.renderCenter(ar.center), right) + "\n" + a.statusLine()
	return a.overlayDialog(screen)
}

// overlayDialog draws the open dialog over the screen.
func (a *App) overlayDialog(screen string) string {
	if a.dlg.dialog == nil {
		return screen
	}
	d := a.dlg.dialog.View(a.scr.w-4, a.scr.h-2)
	dw, dh := lipgloss.Size(d)
	return frame.Overlay(screen, d, max((a.scr.w-dw)/2, 0), max((a.scr.h-dh)/3, 0))
}

func (a *App) renderCenter(r rect) string {
	border := a.st.Border
	if a.scr.focus == focusCenter {
		border = a.st.BorderFocused
	}
	if a.rawFocus() != nil {
		border = a.st.Warning // an editor or a terminal has the keys: its frame says so
	}
	t := a.tabs.current()
	if t == nil {
		return frame.Box{Title: a.st.Title.Render("Welcome"), Right: a.st.Warning.Render(a.waitingMark()), Border: border,
			Width: r.w, Height: r.h, ContentRows: a.welcome(r.w - 2)}.Render()
	}
	var title strings.Builder
	spans, before, after := a.tabSpans()
	if before > 0 {
		title.WriteString(a.st.Subtle.Render("‹ "+itoa(before)) + border.Render(tabSep))
	}
	for i, sp := range spans {
		if i > 0 {
			title.WriteString(border.Render(tabSep))
		}
		if sp.index == a.tabs.active {
			title.WriteString(a.st.TabActive.Render(sp.label))
		} else {
			title.WriteString(a.st.TabInactive.Render(sp.label))
		}
	}
	if after > 0 {
		title.WriteString(border.Render(tabSep) + a.st.Subtle.Render(itoa(after)+" ›"))
	}
	right := ""
	if a.tabs.len() > 1 {
		right = a.st.Subtle.Render(itoa(a.tabs.active+1) + "/" + itoa(a.tabs.len()))
	}
	if m := a.waitingMark(); m != "" {
		right = a.st.Warning.Render(m) + " " + right
	}
	// The box puts "╭─ " before the title; tabSpans counts on it.
	return frame.Box{Title: title.String(), Right: right,
		Border: border, Width: r.w, Height: r.h, ContentRows: t.View()}.Render()
}

func (a *App) welcome(w int) []string {
	// The keys as configured ([keys] in config.toml), not the defaults.
	row := func(b key.Binding, what string) string {
		k := b.Help().Key
		if ks := b.Keys(); len(ks) > 0 {
			k = ks[0] // the first, as the other lines show one key each
		}
		return a.st.Key.Render(k) + strings.Repeat(" ", max(8-ansi.StringWidth(k), 1)) + a.st.Base.Render(what)
	}
	lines := []string{
		"",
		a.st.Bold.Render("Atelier"),
		a.st.Subtle.Render("Run agent sessions on this workspace and steer them live."),
		"",
		row(a.keys.New, "start a session (the demo agent needs no setup)"),
		row(a.km.sessions.Open, "open the selected session's tab"),
		row(a.keys.NextPane, "move between panes (or click one)"),
		row(a.keys.Help, "the keys of the focused pane"),
		row(a.keys.Quit, a.quitHint()),
	}
	for i, l := range lines {
		lines[i] = "  " + ansi.Truncate(l, w-2, "…")
	}
	return lines
}

// waitingMark says, while the side panes are hidden, how many things wait
// on the operator and which key shows them: never only in a hidden pane.
// It is "" when the panes show or nothing waits.
func (a *App) waitingMark() string {
	n := len(a.actions.Items())
	if n == 0 || a.scr.onePane() && a.scr.focus == focusActions || !a.scr.onePane() && !a.scr.collapsed() {
		return ""
	}
	k := a.keys.Sides
	switch {
	case a.scr.single():
		k = a.keys.NextPane // the header names the panes: tab reaches Action required
	case a.scr.zoomed:
		k = a.keys.Zoom
	}
	return "⚠ " + itoa(n) + " waiting · " + k.Help().Key
}

// place is where the studio works, for the status line: the workspace,
// or the engine it is attached to on another machine.
func (a *App) place() string {
	if a.opts.Remote != "" {
		return "attached to " + a.opts.Remote
	}
	return shortPath(a.opts.Workspace)
}

// statusLine is the bottom line: workspace · execution · key hints, and
// the latest status or error at the right.
func (a *App) statusLine() string {
	left := a.st.Accent.Render("atelier") + a.st.StatusLine.Render(" "+a.place()+" · "+a.opts.Execution+" · ")
	if m := a.waitingMark(); m != "" {
		// First, so that no hint or message cuts it off.
		left = a.st.Accent.Render("atelier") + " " + a.st.Warning.Render(m) + a.st.StatusLine.Render(" · ")
	}
	switch {
	case a.copyMode:
		left += a.st.Warning.Render("COPY MODE: select with the mouse · M ends it")
	case a.rawFocus() != nil:
		// The mode comes right after the name, before the path, so that no
		// message at the right ever cuts it off.
		left = a.st.Accent.Render("atelier") + " " + a.st.Warning.Render("keys → "+rawKind(a.rawFocus())) + a.st.Hint.Render(" · ") +
			a.st.Key.Render(a.keys.Release.Help().Key) + a.st.Hint.Render(" to release") +
			a.st.StatusLine.Render(" · "+a.place())
	default:
		left += a.focusedScope().Hints(a.st) + a.st.Hint.Render(" · ") + a.st.Key.Render("?") + a.st.Hint.Render(" keys")
		if a.scr.collapsed() {
			left += a.st.Hint.Render(" · ") + a.st.Key.Render("\\") + a.st.Hint.Render(" panes")
		}
		if a.scr.zoomed && !a.scr.single() {
			left += a.st.Hint.Render(" · ") + a.st.Key.Render(a.keys.Zoom.Help().Key) + a.st.Hint.Render(" unzoom")
		}
	}
	right := ""
	if a.status.text != "" {
		style := a.st.StatusLine
		if a.status.err {
			style = a.st.StatusError
		}
		right = style.Render(ansi.Truncate(a.status.text, max(a.scr.w/2, 10), "…"))
	}
	lw, rw := ansi.StringWidth(left), ansi.StringWidth(right)
	if lw+rw+1 > a.scr.w {
		left = ansi.Truncate(left, max(a.scr.w-rw-1, 0), "…")
		lw = ansi.StringWidth(left)
	}
	return frame.Line(left+strings.Repeat(" ", max(a.scr.w-lw-rw, 0))+right, a.scr.w)
}

// singlePanes are the panes the one-pane mode's header names, in the
// order tab visits them.
var singlePanes = []struct {
	f    focus
	name string
}{{focusSessions, "Sessions"}, {focusFiles, "Files"}, {focusCenter, "Tabs"}, {focusActivity, "Activity"}, {focusActions, "Actions"}}

// singleHeader is the top line of the one-pane mode: every pane by name,
// the one shown highlighted, Action required with how many wait, and the
// keys that move between them when there is room.
func (a *App) singleHeader() string {
	var b strings.Builder
	for i, p := range singlePanes {
		if i > 0 {
			b.WriteString(" ")
		}
		name := p.name
		if p.f == focusActions {
			if n := a.actions.Count(); n > 0 {
				name += " " + itoa(n)
			}
		}
		switch {
		case p.f == a.scr.focus:
			b.WriteString(a.st.TabActive.Render(name))
		case p.f == focusActions && a.actions.Count() > 0:
			b.WriteString(a.st.Warning.Render(name))
		default:
			b.WriteString(a.st.TabInactive.Render(name))
		}
	}
	line := b.String()
	hint := a.st.Hint.Render(" · ") + a.st.Key.Render(a.keys.NextPane.Help().Key) + a.st.Hint.Render(" next pane")
	if ansi.StringWidth(line)+ansi.StringWidth(hint) <= a.scr.w {
		line += hint
	}
	return frame.Line(line, a.scr.w)
}

func (a *App) renderTooSmall() string {
	msg := []string{
		a.st.Warning.Render("The terminal is too small."),
		a.st.Subtle.Render("Atelier needs " + itoa(MinWidth) + "x" + itoa(MinHeight) + " (" + itoa(FullWidth) + "x" + itoa(FullHeight) +
			" for every pane at once); this is " + itoa(a.scr.w) + "x" + itoa(a.scr.h) + "."),
		a.st.Subtle.Render("Make it larger, or press q to quit."),
	}
	for i, m := range msg {
		// Wrapped, so that centring never pushes a line past the edge.
		msg[i] = ansi.Wordwrap(m, a.scr.w, "")
	}
	body := lipgloss.Place(a.scr.w, a.scr.h, lipgloss.Center, lipgloss.Center, strings.Join(msg, "\n"))
	return strings.Join(frame.Fit(strings.Split(body, "\n"), a.scr.w, a.scr.h), "\n")
}

// shortPath shows a path with the home folder as ~.
func shortPath(p string) string {
	if home, err := os.UserHomeDir(); err == nil && home != "" && strings.HasPrefix(p, home+string(filepath.Separator)) {
		return "~" + p[len(home):]
	}
	return p
}

func itoa(n int) string {
	if n < 0 {
		return "-" + itoa(-n)
	}
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// quitHint says what quitting does to running sessions.
func (a *App) quitHint() string {
	if a.opts.Attached {
		return "quit; sessions run on in the engine host"
	}
	return "quit; running sessions resume next time"
}
