package settings

import (
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/trigger/state"
)

// SetTriggers gives the triggers as the engine's host runs them, or why
// they could not be read.
func (p *Pane) SetTriggers(ts []state.Trigger, err error) {
	p.triggers, p.triggersRead, p.triggersErr = ts, true, ""
	if err != nil {
		p.triggers, p.triggersErr = nil, err.Error()
	}
}

// triggerLines is the triggers' section: each trigger's name, when it
// fires, what it starts, its last firing and a schedule's next time; none
// when the host runs no triggers.
func (p *Pane) triggerLines() []string {
	st := p.st
	head := []string{"", st.Bold.Render("Triggers") + st.Subtle.Render("  run by the engine host · each firing is kept in .state/triggers.jsonl")}
	expected := p.cfg != nil && len(p.cfg.Triggers) > 0
	switch {
	case p.triggersErr != "":
		if !expected {
			return nil // none configured here: a host that cannot say is no news
		}
		return append(head, "  "+st.Error.Render(p.triggersErr))
	case !p.triggersRead:
		if !expected {
			return nil // none configured here: nothing to wait for
		}
		return append(head, "  "+st.Subtle.Render("asking the host…"))
	case len(p.triggers) == 0:
		return nil // no section: docs/configuration.md says how to write one
	}
	out := head
	nw := 0
	for _, t := range p.triggers {
		nw = max(nw, ansi.StringWidth(t.Name))
	}
	for _, t := range p.triggers {
		line := "  " + st.Accent.Render(t.Name) + strings.Repeat(" ", nw-ansi.StringWidth(t.Name)+1) +
			st.Base.Render(t.Condition+" → "+t.Starts) + st.Subtle.Render("  last: "+lastFiring(t.Last))
		if t.Next != nil {
			line += st.Subtle.Render(" · next: " + t.Next.Local().Format(time.DateTime))
		}
		out = append(out, line)
	}
	return out
}

// lastFiring words a trigger's last firing: its time and state, and what
// it started, why it failed or what it missed.
func lastFiring(f *state.Firing) string {
	if f == nil {
		return "never fired"
	}
	text := f.Time.Local().Format(time.DateTime) + " " + f.State
	switch {
	case f.Error != "":
		text += ": " + f.Error
	case f.Session != "":
		text += " session " + f.Session
	case f.Run != "":
		text += " run " + f.Run
	case f.Missed > 0:
		text += " " + f.Cause
	}
	return printable(text)
}

// printable drops what would move the cursor or change colours (an error
// or a cause can carry what a trigger's data held).
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, ansi.Strip(s))
}
