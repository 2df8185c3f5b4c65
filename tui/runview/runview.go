// Package runview draws a workflow run for the studio: its status word
// and its steps on one line, each with its state (✓ done, ▶ running,
// ✗ failed, · pending) and an exec step's exit code. The sessions list
// draws it on a run's group row, a run's session tab above its
// transcript. It draws only; the root reads the runs (attach's
// WorkflowRuns) in a command.
package runview

import (
	"strconv"
	"strings"

	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/workflow/runs"
)

// Status is the run's status as the studio words it (running, suspended,
// failed, done) and its tone.
func Status(r runs.Run) (string, themes.Tone) {
	switch r.Status {
	case runs.Running:
		return "running", themes.ToneAccent
	case runs.Suspended:
		return "suspended", themes.ToneWarning
	case runs.Failed:
		return "failed", themes.ToneError
	case runs.Completed:
		return "done", themes.ToneSuccess
	}
	return string(r.Status), themes.ToneSubtle
}

// Title names the run: its workflow and key.
func Title(r runs.Run) string { return r.Workflow + " · " + r.Key }

// mark is a step state's mark and tone.
func mark(state string) (string, themes.Tone) {
	switch state {
	case runs.StepDone:
		return "✓", themes.ToneSuccess
	case runs.StepRunning:
		return "▶", themes.ToneAccent
	case runs.StepWaiting:
		return "▶", themes.ToneWarning
	case runs.StepFailed:
		return "✗", themes.ToneError
	case runs.StepUncertain:
		return "?", themes.ToneWarning
	}
	return "·", themes.ToneSubtle
}

// Steps is the run's steps on one line: "✓ install 0  ▶ implement
// · test  · report", the current one bold. An exec step that ran shows
// its exit code; a suspended run's current step says it waits.
func Steps(st themes.Styles, r runs.Run) string {
	var parts []string
	for _, s := range r.StepStates() {
		m, tone := mark(s.State)
		text := s.Key
		if s.ExitCode != nil {
			text += " exit " + strconv.Itoa(*s.ExitCode)
		}
		switch s.State {
		case runs.StepWaiting:
			text += " (waits on you)"
		case runs.StepUncertain:
			text += " (uncertain)"
		}
		label := st.Base.Render(text)
		if s.State == runs.StepRunning || s.State == runs.StepWaiting {
			label = st.Bold.Render(text)
		}
		parts = append(parts, st.Tone(tone).Render(m)+" "+label)
	}
	return strings.Join(parts, "  ")
}

// Line is the run on one line for its session's tab: "workflow implement
// · fix-001 · running  ✓ install exit 0  ▶ implement  · test".
func Line(st themes.Styles, r runs.Run) string {
	word, tone := Status(r)
	return st.Subtle.Render("workflow "+Title(r)+" · ") + st.Tone(tone).Render(word) + "  " + Steps(st, r)
}

// Of returns the run a session belongs to (see runs.Run.Owns), and
// whether there is one.
func Of(all []runs.Run, sessionID, sessionKey string) (runs.Run, bool) {
	for _, r := range all {
		if r.Owns(sessionID, sessionKey) {
			return r, true
		}
	}
	return runs.Run{}, false
}
