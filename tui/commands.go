package tui

import (
	"errors"

	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/core"
	sess "github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/themes"
)

// Results of engine calls, each run in a tea.Cmd.
type (
	// doneMsg reports a control or an answer.
	doneMsg struct {
		sessionID string
		what      string // "paused", "allowed exec `ls` once"...: past tense, for the log
		receipt   core.Receipt
		err       error
	}
	// stoppedMsg reports the operator's stop of a session's turn: once
	// the engine took it, the session's tab marks it in the transcript.
	stoppedMsg struct{ done doneMsg }
	// editedMsg reports the edit of a queued input; text is the new text,
	// put back in the input line when the engine refused it.
	editedMsg struct {
		done doneMsg
		text string
	}
	// createdMsg reports a new session (created or forked).
	createdMsg struct {
		rec  sess.Session
		verb string
		err  error
	}
	// loadedMsg is a session's transcript, whole or (more) its tail.
	loadedMsg struct {
		id   string
		msgs []sess.Message
		seq  uint64
		more bool
		err  error
	}
)

// tailSize is how many of its newest messages a session's tab opens with
// when the engine is not running the session: a huge transcript opens at
// once, and the rest loads on request.
const tailSize = 500

// call runs an engine call that returns a receipt.
func (cp *controlPart) call(sid, what string, f func() (core.Receipt, error)) tea.Cmd {
	return func() tea.Msg {
		r, err := f()
		return doneMsg{sessionID: sid, what: what, receipt: r, err: err}
	}
}

// callErr runs an engine call that returns only an error.
func (cp *controlPart) callErr(sid, what string, f func() error) tea.Cmd {
	return cp.call(sid, what, func() (core.Receipt, error) { return core.Receipt{}, f() })
}

// EngineDefaultAgent is the agent the new-session form offers attached
// to another machine's engine: that engine's default, whose agents this
// machine does not know.
const EngineDefaultAgent = "the engine's default"

// engineChooses leaves to another machine's engine what the form left at
// its defaults (the agent, read-write access, local execution): its
// configuration decides them, and a host that does not let TCP clients
// choose agents or policies (no --allow-settings) accepts the session.
func engineChooses(o core.CreateOptions) core.CreateOptions {
	if o.Agent == EngineDefaultAgent {
		o.Agent = ""
	}
	if o.Access == sess.ReadWrite {
		o.Access = ""
	}
	if o.Execution == "local" {
		o.Execution = ""
	}
	return o
}

func (cp *controlPart) create(o core.CreateOptions) tea.Cmd {
	if cp.opts.Remote != "" {
		o = engineChooses(o)
	}
	eng := cp.eng
	return func() tea.Msg {
		rec, err := eng.Create(o)
		return createdMsg{rec: rec, verb: "created", err: err}
	}
}

func (cp *controlPart) fork(id, upTo, title string) tea.Cmd {
	eng := cp.eng
	return func() tea.Msg {
		rec, err := eng.Fork(id, upTo, title)
		return createdMsg{rec: rec, verb: "forked", err: err}
	}
}

func (cp *controlPart) loadTranscript(id string) tea.Cmd {
	eng := cp.eng
	return func() tea.Msg {
		msgs, seq, err := eng.Transcript(id)
		return loadedMsg{id: id, msgs: msgs, seq: seq, err: err}
	}
}

// loadTail loads a session's newest messages.
func (cp *controlPart) loadTail(id string) tea.Cmd {
	eng := cp.eng
	return func() tea.Msg {
		msgs, seq, more, err := eng.TranscriptTail(id, tailSize)
		// A full tail may hide older messages even when the store says
		// none are left (its reader stops mid-chunk); offering to load
		// them costs one read and never hides any.
		more = more || len(msgs) >= tailSize
		return loadedMsg{id: id, msgs: msgs, seq: seq, more: more, err: err}
	}
}

// openTranscript loads a new tab's transcript: whole for a session the
// engine runs (it holds it in memory), its tail otherwise.
func (cp *controlPart) openTranscript(id string) tea.Cmd {
	if cp.live.recs[id].Status == sess.Running {
		return cp.loadTranscript(id)
	}
	return cp.loadTail(id)
}

// reloadTranscript loads an open tab's transcript again, as much of it as
// the tab held.
func (cp *controlPart) reloadTranscript(id string) tea.Cmd {
	if t := cp.tabs.session(id); t != nil && t.More() {
		return cp.loadTail(id)
	}
	return cp.loadTranscript(id)
}

// reloadTabs loads every open session tab again (after a resync).
func (cp *controlPart) reloadTabs() tea.Cmd {
	var cmds []tea.Cmd
	for _, st := range cp.tabs.sessions() {
		cmds = append(cmds, cp.reloadTranscript(st.ID()))
	}
	return tea.Batch(cmds...)
}

// control runs one of the engine's session controls.
func (cp *controlPart) control(id string, act core.Action) tea.Cmd {
	e := cp.eng
	switch act {
	case core.ActStart:
		return cp.callErr(id, "started", func() error { return e.Start(id) })
	case core.ActPause:
		return cp.call(id, "pause requested", func() (core.Receipt, error) { return e.Pause(id) })
	case core.ActResume:
		return cp.call(id, "resumed", func() (core.Receipt, error) { return e.Resume(id) })
	case core.ActStop:
		stop := cp.call(id, "stopped", func() (core.Receipt, error) { return e.Stop(id) })
		return func() tea.Msg { return stoppedMsg{done: stop().(doneMsg)} }
	case core.ActCancel:
		return cp.call(id, "cancelled", func() (core.Receipt, error) { return e.Cancel(id) })
	case core.ActClose:
		return cp.call(id, "closed", func() (core.Receipt, error) { return e.CloseSession(id) })
	case core.ActNudge:
		return cp.call(id, "nudged", func() (core.Receipt, error) { return e.Nudge(id) })
	case core.ActDelete:
		return cp.callErr(id, "deleted", func() error { return e.Delete(id) })
	}
	return nil
}

// handleResult takes the result of an engine call.
func (cp *controlPart) handleResult(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case doneMsg:
		title := cp.live.recs[msg.sessionID].Title
		if title == "" {
			title = msg.sessionID
		}
		if msg.err != nil {
			cp.status.set(errorText(msg.err), true)
			cp.act.log(msg.sessionID, title+": "+errorText(msg.err), themes.ToneError)
			return nil
		}
		text := "you: " + msg.what
		if msg.receipt.When != "" && msg.receipt.When != "now" {
			text += " (" + msg.receipt.When + ")"
		}
		cp.status.set(title+": "+text, false)
		cp.act.log(msg.sessionID, title+": "+text, themes.ToneAccent)
	case stoppedMsg:
		if t := cp.tabs.session(msg.done.sessionID); t != nil && msg.done.err == nil {
			t.Interrupted(cp.opts.Now())
		}
		return cp.handleResult(msg.done)
	case editedMsg:
		if t := cp.tabs.session(msg.done.sessionID); t != nil && msg.done.err != nil {
			// The input left the queue before the edit came (a turn took
			// it): the text is not lost, it waits in the line.
			t.Unedited(msg.text)
		}
		return cp.handleResult(msg.done)
	case createdMsg:
		if msg.err != nil {
			// Kept in the activity too: a status message fades.
			cp.status.set(errorText(msg.err), true)
			cp.act.log("", "creating a session failed: "+errorText(msg.err), themes.ToneError)
			return nil
		}
		cp.status.set(msg.rec.Title+": "+msg.verb, false)
		if _, known := cp.live.recs[msg.rec.ID]; known {
			return cp.r.openSession(msg.rec.ID, true)
		}
		// The record arrives with its event, which may come after this
		// reply: open the tab then.
		cp.opening = msg.rec.ID
		return nil
	case grantsMsg:
		cp.showGrants(msg)
	}
	return nil
}

// errorText words an engine error for the status line.
func errorText(err error) string {
	var te *core.TransitionError
	if errors.As(err, &te) {
		msg := "cannot " + te.Action + " a " + string(te.Status) + " session"
		if te.Why != "" {
			msg += ": " + te.Why
		}
		return msg
	}
	return err.Error()
}
