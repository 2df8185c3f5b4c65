package tui

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/trigger/state"
	"github.com/atelier-studio/atelier/tui/runview"
	"github.com/atelier-studio/atelier/workflow/runs"
)

// What runs beside the engine on its host, as the studio shows it: the
// workflow runs (a group in the sessions list, a line above a run's
// session's transcript) and the triggers (the settings tab). Both are
// read through the attach seam in commands, when the engine's live view
// says they changed: a run's runner tells each step and the run's end
// (a notice, once the run's record says so), a trigger's firing is a
// notice too. Nothing polls.

// programTimeout bounds one read of the runs or the triggers.
const programTimeout = 10 * time.Second

type (
	// runsMsg is a read of the workflow runs.
	runsMsg struct {
		runs []runs.Run
		err  error
	}
	// triggersMsg is a read of the triggers.
	triggersMsg struct {
		triggers []state.Trigger
		err      error
	}
)

// loadRuns reads the runs in a command; a read asked for while one is in
// flight runs once that one is back (the newest record wins).
func (sp *settingsPart) loadRuns() tea.Cmd {
	if sp.runsBusy {
		sp.runsAgain = true
		return nil
	}
	sp.runsBusy = true
	eng := sp.eng
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), programTimeout)
		defer cancel()
		all, err := eng.WorkflowRuns(ctx)
		return runsMsg{runs: all, err: err}
	}
}

// runsLoaded shows the runs read: the sessions list groups their
// sessions, each open session tab of a run shows its steps.
func (sp *settingsPart) runsLoaded(msg runsMsg) tea.Cmd {
	sp.runsBusy = false
	if msg.err != nil {
		if sp.runsErr != msg.err.Error() {
			sp.runsErr = msg.err.Error()
			sp.act.log("", "the workflow runs could not be read: "+msg.err.Error(), themes.ToneWarning)
		}
	} else {
		sp.runsErr = ""
		sp.runs = msg.runs
		sp.sessions.SetRuns(sp.runs)
		for _, st := range sp.tabs.sessions() {
			sp.showRun(st)
		}
	}
	if sp.runsAgain {
		sp.runsAgain = false
		return sp.loadRuns()
	}
	return nil
}

// showRun gives a session tab the line of its run (none for a session of
// no run).
func (sp *settingsPart) showRun(t *sessionTab) {
	rec := t.Record()
	if r, ok := runview.Of(sp.runs, rec.ID, rec.Key); ok {
		t.SetRun(runview.Line(sp.st, r))
		return
	}
	t.SetRun("")
}

// touchesRuns reports whether an event may follow a change of a run's
// record: the runner's notice of a step or of the run's end, or a change
// of a run's session.
func touchesRuns(ev core.Event) bool {
	switch ev.Kind {
	case core.EvNotice:
		return strings.HasPrefix(ev.Text, "workflow ")
	case core.EvSession:
		return ev.Session != nil && strings.HasPrefix(ev.Session.Key, "workflow/")
	}
	return false
}

// loadTriggers reads the host's triggers in a command, for the settings
// tab.
func (sp *settingsPart) loadTriggers() tea.Cmd {
	eng := sp.eng
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), programTimeout)
		defer cancel()
		ts, err := eng.Triggers(ctx)
		return triggersMsg{triggers: ts, err: err}
	}
}

// touchesTriggers reports whether an event may follow a trigger's firing
// (the host's notice of it, or a named event).
func touchesTriggers(ev core.Event) bool {
	return ev.Kind == core.EvSignal || (ev.Kind == core.EvNotice && strings.HasPrefix(ev.Text, "trigger "))
}

// signalText words a fired event for the activity: its name, a short form
// of its data, and the parked sessions it woke.
func signalText(ev core.Event) string {
	name, data, woken := ev.Text, "", 0
	if s := ev.Signal; s != nil {
		name, data, woken = s.Name, s.Data, s.Woken
	}
	text := "event " + name + " fired"
	if data != "" {
		text += " with " + shortData(data)
	}
	if woken > 0 {
		text += " · woke " + strconv.Itoa(woken) + " parked session"
		if woken > 1 {
			text += "s"
		}
	}
	return text
}

// shortDataRunes bounds the data an activity line shows.
const shortDataRunes = 60

// shortData is an event's data on one line: compact JSON, cut short.
func shortData(data string) string {
	var v any
	if json.Unmarshal([]byte(data), &v) == nil {
		if b, err := json.Marshal(v); err == nil {
			data = string(b)
		}
	}
	data = printable(data)
	if r := []rune(data); len(r) > shortDataRunes {
		data = string(r[:shortDataRunes-1]) + "…"
	}
	return data
}
