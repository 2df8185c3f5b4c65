package tui

import (
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/engine"
	sess "github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/actions"
	"github.com/atelier-studio/atelier/tui/dialog"
	"github.com/atelier-studio/atelier/tui/sessions"
	"github.com/atelier-studio/atelier/tui/transcript"
)

// requestQuit quits, asking first while sessions run. A second ctrl+c in
// the question quits at once.
func (a *App) requestQuit(ctrlC bool) tea.Cmd {
	if _, asking := a.dlg.dialog.(*dialog.Confirm); asking && ctrlC {
		return tea.Quit
	}
	running := a.live.running()
	n := len(running)
	if a.opts.Attached {
		n = 0 // they run on in the host: nothing to ask about them
	}
	var dirty []string
	for _, et := range a.tabs.editors() {
		if et.Dirty() {
			dirty = append(dirty, et.Path())
		}
	}
	if n == 0 && len(dirty) == 0 {
		return a.quit()
	}
	var text []string
	if len(dirty) > 0 {
		text = append(text, "Unsaved changes are lost in: "+strings.Join(dirty, ", ")+".")
	}
	if n == 0 {
		a.dlg.confirm("Quit?", strings.Join(text, " "), "quit", a.quit)
		return nil
	}
	what := "1 session is running"
	if n > 1 {
		what = strings.Replace("N sessions are running", "N", itoa(n), 1)
	}
	text = append([]string{what + " in this studio (--in-process). Hand them to a detached host, " +
		"which runs them on after the studio closes (`atelier` reattaches), pause them, or cancel them?"}, text...)
	a.dlg.open(dialog.NewChoice(a.st, "Quit?", strings.Join(text, " "), nil, []dialog.Option{
		{Key: "h", Label: "hand them over and quit"}, {Key: "p", Label: "pause them and quit"},
		{Key: "c", Label: "cancel them and quit"}, {Key: "k", Label: "keep the studio open"}}, "k"),
		onOK(func(r dialog.Result) tea.Cmd { return a.leave(running, r.Text) }))
	return nil
}

// quit ends the studio. Attached, it says on the terminal what runs on in
// the host and how to come back to it or stop it.
func (a *App) quit() tea.Cmd {
	if what := keepsRunning(len(a.live.running()), a.keptTabs()); a.opts.Attached && what != "" && a.exitNote == "" {
		a.exitNote = what + " · `atelier` reattaches · `atelier serve --stop` stops them"
		if a.opts.Remote != "" {
			a.exitNote = what + " on " + a.opts.Remote + " · `atelier attach " + a.opts.Remote + "` reattaches"
		}
	}
	return tea.Quit
}

// keptTabs counts the terminal tabs whose programs the host keeps running
// once the studio has quit.
func (a *App) keptTabs() int {
	n := 0
	for _, tt := range a.tabs.terminals() {
		if tt.HostID() != "" && !tt.Exited() {
			n++
		}
	}
	return n
}

// keepsRunning says what runs on in the host: "1 session keeps running",
// "2 sessions and 1 terminal keep running", or "" for nothing.
func keepsRunning(sessions, terminals int) string {
	var parts []string
	for _, c := range []struct {
		n    int
		noun string
	}{{sessions, "session"}, {terminals, "terminal"}} {
		switch {
		case c.n == 1:
			parts = append(parts, "1 "+c.noun)
		case c.n > 1:
			parts = append(parts, itoa(c.n)+" "+c.noun+"s")
		}
	}
	if len(parts) == 0 {
		return ""
	}
	if sessions+terminals == 1 {
		return parts[0] + " keeps running"
	}
	return strings.Join(parts, " and ") + " keep running"
}

// leave carries out the in-process studio's choice for its running
// sessions, then quits: a hand-over is the caller's to make once the
// engine is closed (Options.Leave); a pause or a cancel is asked of each
// session now, and closing the engine after it stops their turns.
func (a *App) leave(running []string, key string) tea.Cmd {
	var do func(id string) (core.Receipt, error)
	verb := ""
	switch key {
	case "h":
		if a.opts.Leave != nil {
			*a.opts.Leave = LeaveHandOver
		}
		return tea.Quit
	case "p":
		do, verb = a.eng.Pause, "pause"
	case "c":
		do, verb = a.eng.Cancel, "cancel"
	default:
		return nil
	}
	return func() tea.Msg {
		var failed []string
		for _, id := range running {
			if _, err := do(id); err != nil {
				failed = append(failed, verb+" "+id+": "+err.Error())
			}
		}
		return leftMsg{failed: failed}
	}
}

// leftMsg ends the studio after its running sessions were paused or
// cancelled; what was refused is said on the terminal as it closes (the
// session then stops at a safe point with the engine, as it would have).
type leftMsg struct{ failed []string }

func (a *App) left(msg leftMsg) tea.Cmd {
	if len(msg.failed) > 0 {
		a.exitNote = "atelier: could not " + strings.Join(msg.failed, "\natelier: could not ")
	}
	return tea.Quit
}

// dialogs holds the open dialog and the continuation it answers to. Every
// part opens its dialogs here; the root draws the dialog, hands it the
// keys and closes it with its result.
type dialogs struct {
	st     *themes.Styles // the studio's, as the theme changes
	km     *keymaps       // the studio's: a dialog takes its kind's table
	dialog dialog.Dialog
	then   func(dialog.Result) tea.Cmd
}

// open shows d, over whatever else is open, with its kind's keys. then
// is the continuation: it gets the Result when d closes, confirmed or
// dismissed, and returns what to do (nil: nothing). A dialog that only
// informs has no then.
func (ds *dialogs) open(d dialog.Dialog, then func(dialog.Result) tea.Cmd) {
	if ds.km != nil {
		d = dialog.WithKeys(d, ds.km.dialogs)
	}
	ds.dialog, ds.then = d, then
}

// onOK is a continuation that acts only on a confirmed dialog.
func onOK(do func(dialog.Result) tea.Cmd) func(dialog.Result) tea.Cmd {
	return func(r dialog.Result) tea.Cmd {
		if !r.OK {
			return nil
		}
		return do(r)
	}
}

// onKey is a continuation for a Choice that acts only when its answer is
// key.
func onKey(key string, do func() tea.Cmd) func(dialog.Result) tea.Cmd {
	return func(r dialog.Result) tea.Cmd {
		if !r.OK || r.Text != key {
			return nil
		}
		return do()
	}
}

// confirm asks yes or no; yes runs do.
func (ds *dialogs) confirm(title, text, yes string, do func() tea.Cmd) {
	ds.open(dialog.NewConfirm(*ds.st, title, text, yes), onOK(func(dialog.Result) tea.Cmd { return do() }))
}

// prompt asks for one line, value pre-filled; do gets the line submitted.
func (ds *dialogs) prompt(title, text, value string, do func(line string) tea.Cmd) {
	ds.open(dialog.NewPrompt(*ds.st, title, text, value), onOK(func(r dialog.Result) tea.Cmd { return do(r.Text) }))
}

// closeDialog closes the open dialog and runs its continuation on res.
func (ds *dialogs) closeDialog(res dialog.Result) tea.Cmd {
	then := ds.then
	ds.dialog, ds.then = nil, nil
	if then == nil {
		return nil
	}
	return then(res)
}

// sessionsAction carries out what the sessions pane asked.
func (cp *controlPart) sessionsAction(act sessions.Action) tea.Cmd {
	switch act := act.(type) {
	case sessions.Open:
		return cp.r.openSession(act.ID, true)
	case sessions.Start:
		return cp.control(act.ID, core.ActStart)
	case sessions.Archive:
		word := "archived"
		if !act.Archived {
			word = "unarchived"
		}
		id, on := act.ID, act.Archived
		return cp.callErr(id, word, func() error { return cp.eng.Archive(id, on) })
	case sessions.Fork:
		id := act.ID
		cp.dlg.prompt("Fork", "Fork "+quote(act.Title)+" into a new session with its whole history. Title:",
			act.Title+" (fork)", func(title string) tea.Cmd { return cp.fork(id, "", title) })
	case sessions.Delete:
		text := "Delete " + quote(act.Title) + "? Its folder and transcript go; its turn commits stay in the history."
		if act.Live {
			text = "Delete " + quote(act.Title) + "? It is still live: its turn is stopped and it ends force_deleted, then its folder goes."
		}
		id := act.ID
		cp.dlg.confirm("Delete session", text, "delete", func() tea.Cmd { return cp.control(id, core.ActDelete) })
	}
	return nil
}

// tabAction carries out what a session tab asked.
func (cp *controlPart) tabAction(act transcript.Action) tea.Cmd {
	switch act := act.(type) {
	case transcript.Respond:
		// The card at the foot of a session's tab answers as the Action
		// required pane does.
		return cp.actionRequired(act.Act)
	case transcript.Control:
		if act.Action == core.ActCancel {
			id := act.ID
			cp.dlg.confirm("Cancel session", "Cancel "+quote(cp.live.recs[act.ID].Title)+"? This ends it for good: "+
				"the turn in flight is interrupted and the session cannot be resumed.", "cancel it",
				func() tea.Cmd { return cp.control(id, core.ActCancel) })
			return nil
		}
		return cp.control(act.ID, act.Action)
	case transcript.Input:
		return cp.input(act.ID, act.Text, act.Steer)
	case transcript.Fork:
		what := "its whole history"
		if act.UpTo != "" {
			what = "its history up to the selected message"
		}
		id, upTo := act.ID, act.UpTo
		cp.dlg.prompt("Fork", "Fork "+quote(act.Title)+" with "+what+". Title:", act.Title+" (fork)",
			func(title string) tea.Cmd { return cp.fork(id, upTo, title) })
	case transcript.Compact:
		id := act.ID
		return cp.call(id, "compaction requested", func() (core.Receipt, error) { return cp.eng.Compact(id) })
	case transcript.Clear:
		return cp.clearConversation(act)
	case transcript.LoadPaths:
		return cp.at.load()
	case transcript.Unqueue:
		id, cid := act.ID, act.ControlID
		return cp.callErr(id, "removed a queued input", func() error { return cp.eng.RemoveQueued(id, cid) })
	case transcript.Reload:
		return cp.reloadTranscript(act.ID)
	case transcript.MoveQueued:
		id, cid, to := act.ID, act.ControlID, act.To
		return cp.callErr(id, "moved a queued input to position "+itoa(to+1), func() error { return cp.eng.MoveQueued(id, cid, to) })
	case transcript.EditQueued:
		id, cid, text, e := act.ID, act.ControlID, act.Text, cp.eng
		return func() tea.Msg {
			err := e.EditQueued(id, cid, text)
			return editedMsg{done: doneMsg{sessionID: id, what: "edited a queued input: " + quote(clip(text)), err: err}, text: text}
		}
	case transcript.LoadHistory:
		return cp.hist.loadHistory(act.ID)
	case transcript.LoadFiles:
		return cp.hist.loadFiles(act)
	case transcript.OpenDiff:
		return cp.hist.openCommitDiff(act)
	case transcript.Restore:
		return cp.hist.previewRestore(act)
	case transcript.Terminal:
		return cp.work.sessionTerminal(act.ID, act.Title)
	case transcript.LoadAll:
		return cp.loadTranscript(act.ID)
	case transcript.Grants:
		id, title, eng := act.ID, act.Title, cp.eng
		return func() tea.Msg {
			g, err := eng.Grants(id)
			return grantsMsg{id: id, title: title, grants: g, err: err}
		}
	}
	return nil
}

// grantsMsg is a session's grants, loaded to pick one to revoke.
type grantsMsg struct {
	id, title string
	grants    []string
	err       error
}

// showGrants lists a session's grants to revoke one.
func (cp *controlPart) showGrants(msg grantsMsg) {
	if msg.err != nil {
		cp.status.set("grants: "+errorText(msg.err), true)
		return
	}
	if len(msg.grants) == 0 {
		cp.status.set(msg.title+" has no \"allow for this session\" grants", false)
		return
	}
	sort.Strings(msg.grants)
	entries := make([]dialog.Entry, 0, len(msg.grants))
	for _, g := range msg.grants {
		entries = append(entries, dialog.Entry{Scope: "allowed for " + msg.title, Desc: g + " · " + engine.ParseGrant(g).Scope()})
	}
	id, grants := msg.id, msg.grants
	cp.dlg.open(dialog.NewPalette(cp.st, "Revoke a grant of "+msg.title+" (enter revokes)", entries), onOK(func(r dialog.Result) tea.Cmd {
		g := grants[r.Chosen]
		return cp.callErr(id, "revoked the grant "+quote(g)+": the next such call asks again", func() error { return cp.eng.Revoke(id, g) })
	}))
}

// input sends a prompt or a steer.
func (cp *controlPart) input(id, text string, steer bool) tea.Cmd {
	e := cp.eng
	if steer {
		return cp.call(id, "steered: "+quote(clip(text)), func() (core.Receipt, error) { return e.Steer(id, text) })
	}
	return cp.call(id, "sent: "+quote(clip(text)), func() (core.Receipt, error) { return e.Send(id, text) })
}

// actionRequired carries out what the Action required pane asked.
func (cp *controlPart) actionRequired(act actions.Action) tea.Cmd {
	switch act := act.(type) {
	case actions.AllowPrefix:
		cp.dlg.prompt("Allow commands starting with…", act.Title+" wants to run `"+act.Command+"` ("+act.Tool+").\n"+
			"Allow for the rest of the session the commands starting with these words (no command chained on after them):",
			engine.SuggestPrefix(act.Command), func(p string) tea.Cmd {
				return cp.allowPrefix(act.SessionID, act.InteractionID, strings.TrimSpace(p))
			})
		return nil
	case actions.AlwaysHere:
		return cp.set.alwaysHere(act)
	case actions.Decide:
		if act.WithMessage {
			cp.dlg.prompt("Deny", act.Title+" wants to "+act.Subject+".\nWhat should the agent hear instead?", "",
				func(m string) tea.Cmd { return cp.decide(act.SessionID, act.InteractionID, act.Subject, sess.Deny, m) })
			return nil
		}
		return cp.decide(act.SessionID, act.InteractionID, act.Subject, act.Decision, "")
	case actions.Answer:
		if act.TakeDefault {
			return cp.answer(act.SessionID, act.InteractionID, act.Default)
		}
		text := act.Question
		if len(act.Choices) > 0 {
			text += "\nchoices: " + strings.Join(act.Choices, ", ")
		}
		cp.dlg.open(dialog.NewDefaultPrompt(cp.st, "Answer "+act.Title, text, act.Default),
			onOK(func(r dialog.Result) tea.Cmd { return cp.answer(act.SessionID, act.InteractionID, r.Text) }))
	case actions.SendNext:
		cp.dlg.prompt("Next instruction", act.Title+" waits for its next instruction.", "",
			func(text string) tea.Cmd { return cp.input(act.SessionID, text, false) })
	case actions.Control:
		return cp.tabAction(transcript.Control{ID: act.SessionID, Action: core.Action(act.Control)})
	case actions.ViewDiff:
		t := newDiffTab(cp.studio, act.Title+": "+act.Path, act.Diff, act.SessionID)
		cp.tabs.add(t)
		cp.r.selectTab(cp.tabs.len() - 1)
		cp.r.setFocus(focusCenter)
	}
	return nil
}

func (cp *controlPart) decide(sid, iid, subject string, d sess.Decision, message string) tea.Cmd {
	e := cp.eng
	what := decisionWord(d) + " " + subject
	if message != "" {
		what += ": " + quote(clip(message))
	}
	return cp.callErr(sid, what, func() error {
		return e.Answer(sid, iid, core.Answer{Decision: d, Message: message, By: "operator"})
	})
}

// allowPrefix allows an approval's command with a grant of the commands
// starting with prefix; the engine refuses a prefix the command does not
// start with, and the approval stays open.
func (cp *controlPart) allowPrefix(sid, iid, prefix string) tea.Cmd {
	e := cp.eng
	return cp.callErr(sid, "allowed for the session the commands starting with "+quote(clip(prefix)), func() error {
		return e.Answer(sid, iid, core.Answer{Decision: sess.AllowSession, Prefix: prefix, By: "operator"})
	})
}

func (cp *controlPart) answer(sid, iid, text string) tea.Cmd {
	e := cp.eng
	return cp.callErr(sid, "answered "+quote(clip(text)), func() error {
		return e.Answer(sid, iid, core.Answer{Text: text, By: "operator"})
	})
}

func clip(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return s
}
