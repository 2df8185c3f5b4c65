package tui

import (
	"path"
	"sort"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/core"
	afiles "github.com/atelier-studio/atelier/files"
	sess "github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/actions"
	"github.com/atelier-studio/atelier/tui/activity"
	"github.com/atelier-studio/atelier/tui/files"
	"github.com/atelier-studio/atelier/tui/sessions"
)

// applySnapshot replaces the studio's view of the workspace.
func (a *App) applySnapshot(snap core.Snapshot) {
	a.live.reset(snap)
	a.sessions.Set(snap.Sessions)
	a.files.SetMarks(snap.Marks)
	for _, st := range a.tabs.sessions() {
		if rec, ok := a.live.recs[st.ID()]; ok {
			st.SetRecord(rec)
		} else {
			a.closeTab(a.tabs.index(st.TabID()))
		}
	}
	a.refreshWaiting()
}

// applyEvents folds a batch of live-view events into the studio.
func (a *App) applyEvents(evs []core.Event) tea.Cmd {
	var cmds []tea.Cmd
	turnEnded, runsChanged, triggersChanged := false, false, false
	for _, ev := range evs {
		if !a.live.admit(ev) {
			continue // already in the snapshot we hold
		}
		runsChanged = runsChanged || touchesRuns(ev)
		triggersChanged = triggersChanged || touchesTriggers(ev)
		switch ev.Kind {
		case core.EvSession:
			turnEnded = a.sessionChanged(*ev.Session) || turnEnded
			if ev.SessionID == a.ctl.opening {
				a.ctl.opening = ""
				cmds = append(cmds, a.openSession(ev.SessionID, true))
			}
		case core.EvRemoved:
			a.sessionRemoved(ev.SessionID)
		case core.EvMessage, core.EvDelta:
			if t := a.tabs.session(ev.SessionID); t != nil {
				if !t.Apply(ev) {
					cmds = append(cmds, a.ctl.reloadTranscript(ev.SessionID))
				}
			}
		case core.EvInteraction:
			a.interactionChanged(ev.SessionID, *ev.Interaction)
		case core.EvQueue:
			if t := a.tabs.session(ev.SessionID); t != nil {
				t.SetQueue(ev.Queue)
			}
		case core.EvNotice:
			a.act.log(ev.SessionID, ev.Text, themes.ToneSubtle)
		case core.EvSignal:
			a.act.log("", signalText(ev), themes.ToneSubtle)
		case core.EvCommit:
			// A turn's commit changes the session's history and the last
			// turn of its files.
			a.files.ForgetBlame()
			cmds = append(cmds, a.hist.reloadHistory(ev.SessionID), a.files.BlameSelected())
		case core.EvMarks:
			a.files.SetMarks(ev.Marks) // the host's set, whole
		case core.EvResync:
			// The bridge answers a resync with a snapshot; nothing to do.
		}
	}
	a.refreshWaiting()
	cmds = append(cmds, a.set.notifyNew(), a.ensureTick(), a.inst.instanceEvents(evs))
	if turnEnded {
		cmds = append(cmds, a.files.Refresh())
	}
	if runsChanged {
		cmds = append(cmds, a.set.loadRuns())
	}
	if triggersChanged && a.set.settingsTab() != nil {
		cmds = append(cmds, a.set.loadTriggers())
	}
	return tea.Batch(cmds...)
}

// sessionChanged takes a new record; it reports whether a turn ended (so
// files may have changed).
func (a *App) sessionChanged(s sess.Session) bool {
	prev, known := a.live.upsert(s)
	a.sessions.Upsert(s)
	if t := a.tabs.session(s.ID); t != nil {
		t.SetRecord(s)
	}
	if !known {
		a.act.log(s.ID, s.Title+": created", themes.ToneSubtle)
		return false
	}
	if prev.Status == s.Status && prev.WaitReason == s.WaitReason {
		return false
	}
	text, tone := transition(s)
	a.act.log(s.ID, s.Title+": "+text, tone)
	if s.ID != a.tabs.visibleSession() {
		switch s.Status {
		case sess.Waiting:
			a.sessions.SetMark(s.ID, sessions.MarkNeedsYou)
		case sess.Ended:
			if a.sessions.Mark(s.ID) != sessions.MarkNeedsYou {
				a.sessions.SetMark(s.ID, sessions.MarkDone)
			}
		}
	}
	return prev.Status == sess.Running && s.Status != sess.Running
}

// fileChanges applies a watcher batch to the tree and logs it.
func (a *App) fileChanges(batch files.Changes) {
	a.files.ApplyChanges(batch)
	logged := 0
	for _, c := range batch {
		if c.Kind == afiles.Notice {
			a.act.log("", c.Message, themes.ToneSubtle)
			continue
		}
		if logged == 5 {
			a.act.log("", "and "+itoa(len(batch)-logged)+" more changes", themes.ToneSubtle)
			break
		}
		if a.act.ownEcho(c) {
			continue // logged when the operator made it
		}
		if editorScratch(c.Path) {
			continue // an editor's swap file or backup: not a change of the work
		}
		who, sid := c.By, ""
		if rec, ok := a.live.recs[c.By]; ok {
			who, sid = rec.Title, rec.ID
		}
		text := c.Path + " " + string(c.Kind)
		if c.Kind == afiles.Renamed {
			text = c.OldPath + " → " + c.Path
		}
		if who != "" && who != afiles.External {
			text += " by " + who
		}
		a.act.log(sid, text, themes.ToneSubtle)
		logged++
	}
}

// echoWindow is how long after this studio wrote a path the watcher's
// report of it is taken for the echo of that write.
const echoWindow = 5 * time.Second

// noteWrite records that this studio wrote path for the operator.
func (jl *journal) noteWrite(path string) {
	if path == "" {
		return
	}
	if jl.wrote == nil {
		jl.wrote = map[string]time.Time{}
	}
	now := jl.opts.Now()
	for p, at := range jl.wrote {
		if now.Sub(at) > echoWindow {
			delete(jl.wrote, p)
		}
	}
	jl.wrote[path] = now
}

// ownEcho says whether a watcher change is the echo of a write this
// studio made and logged (one save is one activity entry): the operator's
// or an unattributed change (an attached studio's write reaches its
// watcher through the host) of a path it wrote moments ago. A session's
// change is always logged.
func (jl *journal) ownEcho(c afiles.Change) bool {
	if c.By != afiles.Operator && c.By != afiles.External {
		return false
	}
	now := jl.opts.Now()
	mine := func(p string) bool {
		for ; p != "" && p != "."; p = path.Dir(p) {
			// The path, or a folder above it the operation made, moved
			// or deleted with everything in it.
			if at, ok := jl.wrote[p]; ok && now.Sub(at) <= echoWindow {
				return true
			}
		}
		return false
	}
	return mine(c.Path) || (c.OldPath != "" && mine(c.OldPath))
}

// transition words a status change for the activity stream.
func transition(s sess.Session) (string, themes.Tone) {
	switch s.Status {
	case sess.Running:
		return "running", themes.ToneAccent
	case sess.Waiting:
		return "waiting (" + string(s.WaitReason) + ")", themes.ToneWarning
	case sess.Paused:
		return "paused", themes.ToneWarning
	case sess.Ended:
		switch s.EndReason {
		case sess.Completed:
			return "completed", themes.ToneSuccess
		case sess.Failed:
			msg := "failed"
			if s.Error != "" {
				msg += ": " + s.Error
			}
			return msg, themes.ToneError
		}
		return "ended (" + string(s.EndReason) + ")", themes.ToneSubtle
	}
	return string(s.Status), themes.ToneBase
}

func (a *App) sessionRemoved(id string) {
	title := a.live.remove(id).Title
	a.sessions.Remove(id)
	if i := a.tabs.sessionIndex(id); i >= 0 {
		a.closeTab(i)
	}
	a.act.log("", title+": deleted", themes.ToneSubtle)
}

// interactionChanged records an interaction opened or resolved.
func (a *App) interactionChanged(sid string, it sess.Interaction) {
	title := a.live.recs[sid].Title
	if !it.Resolved {
		a.live.asks[it.ID] = core.OpenInteraction{SessionID: sid, Interaction: it}
		switch it.Kind {
		case sess.Approval:
			a.act.log(sid, title+" asks to "+approvalSubject(it), themes.ToneWarning)
		case sess.Question:
			a.act.log(sid, title+" asks: "+it.Text, themes.ToneWarning)
		case sess.Park:
			a.act.log(sid, title+" parked", themes.ToneSubtle)
		case sess.Stuck:
			a.act.log(sid, title+" looks stuck: "+it.Text, themes.ToneError)
		}
		if sid != a.tabs.visibleSession() && it.Kind != sess.Park {
			a.sessions.SetMark(sid, sessions.MarkNeedsYou)
		}
		return
	}
	delete(a.live.asks, it.ID)
	if it.By == "operator" {
		return // the operator's own decision is logged when it is made
	}
	switch it.Kind {
	case sess.Approval:
		a.act.log(sid, title+": "+approvalSubject(it)+" "+decisionWord(it.Decision)+" by "+it.By, decisionTone(it.Decision))
	case sess.Question:
		a.act.log(sid, title+": answered "+quote(it.Answer)+" by "+it.By, themes.ToneSuccess)
	case sess.Park:
		a.act.log(sid, title+": woke ("+it.By+")", themes.ToneSubtle)
	}
}

func approvalSubject(it sess.Interaction) string {
	switch {
	case it.Command != "":
		return it.Tool + " `" + it.Command + "`"
	case it.Path != "":
		return it.Tool + " " + it.Path
	}
	return it.Tool
}

func decisionWord(d sess.Decision) string {
	switch d {
	case sess.AllowOnce:
		return "allowed once"
	case sess.AllowSession:
		return "allowed for the session"
	case sess.Deny:
		return "denied"
	}
	return "closed"
}

func decisionTone(d sess.Decision) themes.Tone {
	if d == sess.Deny || d == "" {
		return themes.ToneError
	}
	return themes.ToneSuccess
}

func quote(s string) string { return "“" + s + "”" }

// log adds an entry to the activity stream.
func (jl *journal) log(sid, text string, tone themes.Tone) {
	e := activity.Entry{Time: jl.opts.Now(), SessionID: sid, Text: text, Tone: tone}
	jl.activity.Add(e)
	jl.actlog.add(e)
}

// refreshWaiting recomputes every session's wait and the Action required
// list.
func (a *App) refreshWaiting() {
	waiting := map[string]bool{}
	var items []actions.Item
	for _, it := range a.live.asks {
		cp := it.Interaction
		items = append(items, actions.Item{Session: a.live.recs[it.SessionID], Interaction: &cp})
		waiting[it.SessionID] = true
	}
	for id, s := range a.live.recs {
		a.sessions.SetWait(id, a.live.waitOf(id))
		if s.Status == sess.Waiting && !waiting[id] && !s.Archived {
			items = append(items, actions.Item{Session: s})
		}
	}
	sort.Slice(items, func(i, j int) bool {
		if !items[i].Since().Equal(items[j].Since()) {
			return items[i].Since().Before(items[j].Since())
		}
		return items[i].Key() < items[j].Key()
	})
	a.actions.Set(items)
	for _, st := range a.tabs.sessions() {
		st.SetWait(a.live.waitOf(st.ID()))
		st.SetPending(a.live.waitsOf(st.ID()))
	}
}
