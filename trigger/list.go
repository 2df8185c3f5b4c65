package trigger

import (
	"fmt"
	"time"

	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/trigger/state"
)

// List reads the record of workspace ws and returns each of triggers with
// its last firing and, for a schedule, when it is next due as of now: the
// time a host running it arms it for, computed as the host does (from the
// record), so any process can say it without asking the runner.
func List(ws string, triggers []config.Trigger, now time.Time) ([]state.Trigger, error) {
	lines, err := ReadAll(ws)
	if err != nil {
		return nil, err
	}
	last := map[string]Firing{}
	for _, f := range lines {
		if f.State != StateArmed {
			last[f.Trigger] = f
		}
	}
	out := make([]state.Trigger, 0, len(triggers))
	for _, t := range triggers {
		st := state.Trigger{Name: t.Name, Condition: t.Condition(), Event: t.OnEvent, Starts: t.Starts(), KeepsAlive: t.KeepsAlive(), File: t.File, Line: t.Line}
		if f, ok := last[t.Name]; ok {
			f.Text = "" // a prompt can be long: the record keeps it
			st.Last = &f
		}
		if t.Schedule != "" && t.Cron != nil {
			if next, _, _, _ := skip(t, scheduleRef(t, lines, now), now); !next.IsZero() {
				next = next.UTC()
				st.Next = &next
			}
		}
		out = append(out, st)
	}
	return out, nil
}

// Report is a firing of the record worded as the host's activity notice
// said it.
type Report struct {
	Time    time.Time
	Session string
	Text    string
	Failed  bool
}

// Reports words the firings recorded in workspace ws that ended (started,
// failed, missed) after since, oldest first: what a studio that was not
// attached when they fired adds to its activity.
func Reports(ws string, since time.Time) ([]Report, error) {
	lines, err := ReadAll(ws)
	if err != nil {
		return nil, err
	}
	cause := map[string]string{}
	for _, f := range lines {
		if f.ID != "" && f.Cause != "" {
			cause[f.ID] = f.Cause
		}
	}
	var out []Report
	for _, f := range lines {
		if !f.Time.After(since) {
			continue
		}
		c := cause[f.ID]
		switch f.State {
		case StateStarted:
			what := "started session " + f.Session
			if f.Run != "" {
				what = "started workflow run " + f.Run
			}
			out = append(out, Report{Time: f.Time, Session: f.Session, Text: fmt.Sprintf("trigger %s fired (%s): %s", f.Trigger, c, what)})
		case StateFailed:
			out = append(out, Report{Time: f.Time, Text: fmt.Sprintf("trigger %s (%s) could not start: %s", f.Trigger, c, f.Error), Failed: true})
		case StateMissed:
			out = append(out, Report{Time: f.Time, Text: fmt.Sprintf("trigger %s missed schedules: %s", f.Trigger, f.Cause), Failed: true})
		}
	}
	return out, nil
}
