package tui

import (
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
	if a.scr.copyMode {
		v.MouseMode = tea.MouseModeNone
	}
	v.ReportFocus = true
	v.WindowTitle = "Atelier · " + filepath.Base(a.opts.Workspace)
	if a.opts.Remote != "" {
		v.WindowTitle += " · " + a.opts.Remote
	}
	return v
}

// Render draws the studio as a string of exactly the terminal's size,
// with the mouse's selection highlighted.
func (a *App) Render() string { return a.scr.paint(a.render(), a.st.Selection) }

// render draws the studio without the selection, whose text it holds.
func (a *App) render() string {
	if a.scr.w == 0 || a.scr.h == 0 {
		return ""
	}
	if a.scr.tooSmall() {
		return a.view.renderTooSmall()
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
			pane = a.view.renderCenter(ar.center)
		}
		if a.scr.single() {
			pane = a.view.singleHeader() + "\n" + pane
		}
		return a.view.overlayDialog(pane + "\n" + a.view.statusLine())
	}
	if a.scr.collapsed() {
		screen := a.view.renderCenter(ar.center) + "\n" + a.view.statusLine()
		return a.view.overlayDialog(screen)
	}
	sessions := box(ar.sessions, a.sessions.Title(), a.sessions.Count(), focusSessions, a.sessions.View())
	files := box(ar.files, a.inst.filesTitle(), "", focusFiles, a.files.View())
	need := ""
	if n := a.actions.Count(); n > 0 {
		need = itoa(n)
	}
	activity := box(ar.activity, a.activity.Title(), "", focusActivity, a.activity.View())
	actions := box(ar.actions, "Action required", need, focusActions, a.actions.View())
	var screen string
	if a.scr.stacked() {
		screen = frame.Join(frame.Stack(sessions, files, activity, actions), a.view.renderCenter(ar.center))
	} else {
		screen = frame.Join(frame.Stack(sessions, files), a.view.renderCenter(ar.center), frame.Stack(activity, actions))
	}
	return a.view.overlayDialog(screen + "\n" + a.view.statusLine())
}

// overlayDialog draws the open dialog over the screen.
func (fr *chrome) overlayDialog(screen string) string {
	if fr.dlg.dialog == nil {
		return screen
	}
	d := fr.dlg.dialog.View(fr.scr.w-4, fr.scr.h-2)
	dw, dh := lipgloss.Size(d)
	return frame.Overlay(screen, d, max((fr.scr.w-dw)/2, 0), max((fr.scr.h-dh)/3, 0))
}

func (fr *chrome) renderCenter(r rect) string {
	border := fr.st.Border
	if fr.scr.focus == focusCenter {
		border = fr.st.BorderFocused
	}
	if fr.r.rawFocus() != nil {
		border = fr.st.Warning // an editor or a terminal has the keys: its frame says so
	}
	t := fr.tabs.current()
	if t == nil {
		return frame.Box{Title: fr.st.Title.Render("Welcome"), Right: fr.st.Warning.Render(fr.waitingMark()), Border: border,
			Width: r.w, Height: r.h, ContentRows: fr.welcome(r.w - 2)}.Render()
	}
	var title strings.Builder
	spans, before, after := fr.tabSpans()
	if before > 0 {
		title.WriteString(fr.st.Subtle.Render("‹ "+itoa(before)) + border.Render(tabSep))
	}
	for i, sp := range spans {
		if i > 0 {
			title.WriteString(border.Render(tabSep))
		}
		if sp.index == fr.tabs.active {
			title.WriteString(fr.st.TabActive.Render(sp.label))
		} else {
			title.WriteString(fr.st.TabInactive.Render(sp.label))
		}
	}
	if after > 0 {
		title.WriteString(border.Render(tabSep) + fr.st.Subtle.Render(itoa(after)+" ›"))
	}
	right := ""
	if fr.tabs.len() > 1 {
		right = fr.st.Subtle.Render(itoa(fr.tabs.active+1) + "/" + itoa(fr.tabs.len()))
	}
	if m := fr.waitingMark(); m != "" {
		right = fr.st.Warning.Render(m) + " " + right
	}
	// The box puts "╭─ " before the title; tabSpans counts on it.
	return frame.Box{Title: title.String(), Right: right,
		Border: border, Width: r.w, Height: r.h, ContentRows: t.View()}.Render()
}

func (fr *chrome) welcome(w int) []string {
	// The keys as configured ([keys] in config.toml), not the defaults.
	row := func(b key.Binding, what string) string {
		k := b.Help().Key
		if ks := b.Keys(); len(ks) > 0 {
			k = ks[0] // the first, as the other lines show one key each
		}
		return fr.st.Key.Render(k) + strings.Repeat(" ", max(8-ansi.StringWidth(k), 1)) + fr.st.Base.Render(what)
	}
	lines := []string{
		"",
		fr.st.Bold.Render("Atelier"),
		fr.st.Subtle.Render("Run agent sessions on this workspace and steer them live."),
		"",
		row(fr.keys.New, "start a session (the demo agent needs no setup)"),
		row(fr.km.sessions.Open, "open the selected session's tab"),
		row(fr.keys.NextPane, "move between panes (or click one)"),
		row(fr.keys.Help, "the keys of the focused pane"),
		row(fr.keys.Quit, fr.quitHint()),
	}
	for i, l := range lines {
		lines[i] = "  " + ansi.Truncate(l, w-2, "…")
	}
	return lines
}

// waitingMark says, while the side panes are hidden, how many things wait
// on the operator and which key shows them: never only in a hidden pane.
// It is "" when the panes show or nothing waits.
func (fr *chrome) waitingMark() string {
	n := len(fr.actions.Items())
	if n == 0 || fr.scr.onePane() && fr.scr.focus == focusActions || !fr.scr.onePane() && !fr.scr.collapsed() {
		return ""
	}
	k := fr.keys.Sides
	switch {
	case fr.scr.single():
		k = fr.keys.NextPane // the header names the panes: tab reaches Action required
	case fr.scr.zoomed:
		k = fr.keys.Zoom
	}
	return "⚠ " + itoa(n) + " waiting · " + k.Help().Key
}

// place is where the studio works, for the status line: the workspace's
// folder name, short enough to leave the line to the keys, or the engine
// it is attached to on another machine.
func (fr *chrome) place() string {
	if fr.opts.Remote != "" {
		return "attached to " + fr.opts.Remote
	}
	return filepath.Base(fr.opts.Workspace)
}

// statusLine is the bottom line: workspace · execution · key hints, and
// the latest status or error at the right.
func (fr *chrome) statusLine() string {
	left := fr.st.Accent.Render("atelier") + fr.st.StatusLine.Render(" "+fr.place()+" · "+fr.opts.Execution+" · ")
	if m := fr.waitingMark(); m != "" {
		// First, so that no hint or message cuts it off.
		left = fr.st.Accent.Render("atelier") + " " + fr.st.Warning.Render(m) + fr.st.StatusLine.Render(" · ")
	}
	switch {
	case fr.terminalCopying():
		// How to leave first, so that a message at the right never cuts it.
		left = fr.st.Accent.Render("atelier") + " " + fr.st.Warning.Render("COPY MODE") + fr.st.Hint.Render(" · ") +
			fr.st.Key.Render("esc") + fr.st.Hint.Render(" leaves · ") + fr.st.Key.Render("v") + fr.st.Hint.Render(" select · ") +
			fr.st.Key.Render("y") + fr.st.Hint.Render(" copy · arrows, hjkl, w b, g G move")
	case fr.scr.copyMode:
		left += fr.st.Warning.Render("COPY MODE: select with the mouse · M ends it")
	case fr.r.rawFocus() != nil:
		// The mode comes right after the name, before the path, so that no
		// message at the right ever cuts it off.
		left = fr.st.Accent.Render("atelier") + " " + fr.st.Warning.Render("keys → "+rawKind(fr.r.rawFocus())) + fr.st.Hint.Render(" · ") +
			fr.st.Key.Render(fr.keys.Release.Help().Key) + fr.st.Hint.Render(" to release") +
			fr.st.StatusLine.Render(" · "+fr.place())
	default:
		left += fr.r.focusedScope().Hints(fr.st) + fr.st.Hint.Render(" · ") + fr.st.Key.Render("?") + fr.st.Hint.Render(" keys")
		if fr.scr.collapsed() {
			left += fr.st.Hint.Render(" · ") + fr.st.Key.Render("\\") + fr.st.Hint.Render(" panes")
		}
		if fr.scr.zoomed && !fr.scr.single() {
			left += fr.st.Hint.Render(" · ") + fr.st.Key.Render(fr.keys.Zoom.Help().Key) + fr.st.Hint.Render(" unzoom")
		}
	}
	right := ""
	if fr.status.text != "" {
		style := fr.st.StatusLine
		if fr.status.err {
			style = fr.st.StatusError
		}
		right = style.Render(ansi.Truncate(fr.status.text, max(fr.scr.w/2, 10), "…"))
	}
	lw, rw := ansi.StringWidth(left), ansi.StringWidth(right)
	if lw+rw+1 > fr.scr.w {
		left = ansi.Truncate(left, max(fr.scr.w-rw-1, 0), "…")
		lw = ansi.StringWidth(left)
	}
	return frame.Line(left+strings.Repeat(" ", max(fr.scr.w-lw-rw, 0))+right, fr.scr.w)
}

// terminalCopying reports whether the shown terminal tab is in its
// keyboard copy mode.
func (fr *chrome) terminalCopying() bool {
	t, ok := fr.tabs.currentTerminal()
	return ok && fr.scr.focus == focusCenter && t.Copying()
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
func (fr *chrome) singleHeader() string {
	var b strings.Builder
	for i, p := range singlePanes {
		if i > 0 {
			b.WriteString(" ")
		}
		name := p.name
		if p.f == focusActions {
			if n := fr.actions.Count(); n > 0 {
				name += " " + itoa(n)
			}
		}
		switch {
		case p.f == fr.scr.focus:
			b.WriteString(fr.st.TabActive.Render(name))
		case p.f == focusActions && fr.actions.Count() > 0:
			b.WriteString(fr.st.Warning.Render(name))
		default:
			b.WriteString(fr.st.TabInactive.Render(name))
		}
	}
	line := b.String()
	hint := fr.st.Hint.Render(" · ") + fr.st.Key.Render(fr.keys.NextPane.Help().Key) + fr.st.Hint.Render(" next pane")
	if ansi.StringWidth(line)+ansi.StringWidth(hint) <= fr.scr.w {
		line += hint
	}
	return frame.Line(line, fr.scr.w)
}

func (fr *chrome) renderTooSmall() string {
	msg := []string{
		fr.st.Warning.Render("The terminal is too small."),
		fr.st.Subtle.Render("Atelier needs " + itoa(MinWidth) + "x" + itoa(MinHeight) + " (" + itoa(FullWidth) + "x" + itoa(FullHeight) +
			" for every pane at once); this is " + itoa(fr.scr.w) + "x" + itoa(fr.scr.h) + "."),
		fr.st.Subtle.Render("Make it larger, or press q to quit."),
	}
	for i, m := range msg {
		// Wrapped, so that centring never pushes a line past the edge.
		msg[i] = ansi.Wordwrap(m, fr.scr.w, "")
	}
	body := lipgloss.Place(fr.scr.w, fr.scr.h, lipgloss.Center, lipgloss.Center, strings.Join(msg, "\n"))
	return strings.Join(frame.Fit(strings.Split(body, "\n"), fr.scr.w, fr.scr.h), "\n")
}

// absWorkspace is the absolute path of a workspace named relative to the
// current folder ("." from the command line), which names nothing once
// read elsewhere; when the current folder cannot be read, the engine's
// own path for it, absolute too, names it.
func absWorkspace(named, engine string) string {
	if abs, err := filepath.Abs(named); err == nil {
		return abs
	}
	return engine
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
func (fr *chrome) quitHint() string {
	if fr.opts.Attached {
		return "quit; sessions run on in the engine host"
	}
	return "quit; running sessions resume next time"
}
