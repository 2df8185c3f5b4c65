package sessions

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/tui/runview"
	"github.com/atelier-studio/atelier/workflow/runs"
)

// A workflow run's sessions show as a group: a row with the run's
// workflow, key and status, a row with its steps (the current one
// marked), then its sessions, indented. Only sessions are selectable: the
// group rows move with their first session. A run none of whose sessions
// is shown (filtered out, archived) shows nothing.

// line is one shown row: a session's (session set), or a run's group row
// (run set; steps: its steps' row).
type line struct {
	session string
	run     *runs.Run
	steps   bool
}

// groupIndent is how far a run's sessions sit in under its rows.
const groupIndent = 2

// SetRuns gives the workflow runs, newest first; their sessions group
// under them.
func (l *List) SetRuns(all []runs.Run) {
	l.runs = all
	l.refresh()
}

// runOf returns the index of the run session id belongs to, or -1.
func (l *List) runOf(id string) int {
	s := l.all[id]
	for i := range l.runs {
		if l.runs[i].Owns(s.ID, s.Key) {
			return i
		}
	}
	return -1
}

// group orders the shown sessions so a run's are together, where its
// first one falls, and lays out the rows.
func (l *List) group() {
	l.lines = l.lines[:0]
	if len(l.runs) == 0 {
		for _, id := range l.order {
			l.lines = append(l.lines, line{session: id})
		}
		return
	}
	of := make(map[string]int, len(l.order))
	members := map[int][]string{}
	for _, id := range l.order {
		r := l.runOf(id)
		of[id] = r
		if r >= 0 {
			members[r] = append(members[r], id)
		}
	}
	order := make([]string, 0, len(l.order))
	done := map[int]bool{}
	for _, id := range l.order {
		r := of[id]
		if r < 0 {
			order = append(order, id)
			l.lines = append(l.lines, line{session: id})
			continue
		}
		if done[r] {
			continue
		}
		done[r] = true
		run := &l.runs[r]
		l.lines = append(l.lines, line{run: run}, line{run: run, steps: true})
		for _, m := range members[r] {
			order = append(order, m)
			l.lines = append(l.lines, line{session: m})
		}
	}
	l.order = order
}

// lineOf returns the row of session id, or -1.
func (l *List) lineOf(id string) int {
	for i, ln := range l.lines {
		if ln.session == id {
			return i
		}
	}
	return -1
}

// lineView draws one row.
func (l *List) lineView(ln line) string {
	switch {
	case ln.session != "":
		indent := 0
		if l.runOf(ln.session) >= 0 {
			indent = groupIndent
		}
		return l.row(ln.session, indent)
	case ln.steps:
		return strings.Repeat(" ", groupIndent) + ansi.Truncate(runview.Steps(l.st, *ln.run), max(l.w-groupIndent, 1), "…")
	}
	word, tone := runview.Status(*ln.run)
	title := ansi.Truncate("▾ workflow "+runview.Title(*ln.run), max(l.w-ansi.StringWidth(word)-2, 1), "…")
	gap := max(l.w-ansi.StringWidth(title)-ansi.StringWidth(word), 1)
	return l.st.Bold.Render(title) + strings.Repeat(" ", gap) + l.st.Tone(tone).Render(word)
}
