package tui

import (
	"context"
	"sort"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/attach"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/instances"
	sess "github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/tui/dialog"
	"github.com/atelier-studio/atelier/tui/keys"
	"github.com/atelier-studio/atelier/tui/workspaces"
)

// workspacesTab is the Workspaces tab (W): the workspace folder and its
// instances. What it shows is read in commands (instancesMsg,
// summaryMsg) and composed with the sessions the studio already holds.
type workspacesTab struct {
	*workspaces.Pane
	r workspacesRoot
}

// Label implements tab.
func (t *workspacesTab) Label(int) string { return "⧉ workspaces" }

// TakesText implements tab.
func (t *workspacesTab) TakesText() bool { return false }

// Scope implements tab.
func (t *workspacesTab) Scope() keys.Scope { return t.KeyMap().Scope() }

// instState is what the studio last read of the workspace's instances:
// the list (each with its sessions' ids) and each one's summary. It is
// read when the studio opens, when the tab opens or asks again, after the
// operator's own apply, discard or branch, on the engine's EvInstance
// events and when a session appears on an instance the list lacks.
type instState struct {
	list      []core.InstanceInfo
	listErr   string
	loaded    bool
	summaries map[string]attach.InstanceSummary
	sumErr    map[string]string
	// busy: a read is in flight; again: read once more when it is back
	// (something changed meanwhile).
	busy, again bool
}

// Messages of the instance commands.
type (
	// instancesMsg is a read of the instance list.
	instancesMsg struct {
		list []core.InstanceInfo
		err  error
	}
	// summaryMsg is one instance's size and changes.
	summaryMsg struct {
		id  string
		sum attach.InstanceSummary
		err error
	}
)

// instanceTimeout bounds one instance request: a diff or a size of a huge
// instance is slow, never endless.
const instanceTimeout = 2 * time.Minute

// instanceCtx is the context of one instance request.
func instanceCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), instanceTimeout)
}

// openWorkspaces shows the Workspaces tab, opening it when needed, and
// reads the instances again.
func (ins *instancesPart) openWorkspaces() tea.Cmd {
	if _, i := ins.tabs.workspaces(); i >= 0 {
		ins.r.selectTab(i)
		ins.r.setFocus(focusCenter)
		return ins.loadInstances()
	}
	p := workspaces.New(ins.st)
	p.SetKeyMap(ins.km.workspaces)
	p.SetNow(ins.now)
	p.SetShowing(ins.follow.show)
	t := &workspacesTab{Pane: p, r: ins}
	ins.r.addTab(t)
	ins.showInstances()
	return ins.loadInstances()
}

// workspacesTab returns the open Workspaces tab, or nil.
func (ins *instancesPart) workspacesTab() *workspacesTab {
	t, _ := ins.tabs.workspaces()
	return t
}

// loadInstances reads the instance list in a command; a read asked for
// while one is in flight is made once it is back.
func (ins *instancesPart) loadInstances() tea.Cmd {
	if ins.insts.busy {
		ins.insts.again = true
		return nil
	}
	ins.insts.busy = true
	eng := ins.eng
	return func() tea.Msg {
		ctx, cancel := instanceCtx()
		defer cancel()
		list, err := eng.ListInstances(ctx)
		return instancesMsg{list: list, err: err}
	}
}

// instancesLoaded takes a read of the list and measures each instance.
func (ins *instancesPart) instancesLoaded(msg instancesMsg) tea.Cmd {
	ins.insts.busy = false
	st := &ins.insts
	st.loaded = true
	st.listErr = ""
	if msg.err != nil {
		st.list, st.listErr = nil, errorText(msg.err)
	} else {
		st.list = msg.list
	}
	for _, t := range ins.tabs.sessions() {
		t.SetIsolation(ins.isolationOf(t.Record().Instance))
	}
	var cmds []tea.Cmd
	if st.again {
		st.again = false
		cmds = append(cmds, ins.loadInstances())
	}
	if ins.workspacesTab() != nil {
		// Sizes and diffs are measured only for the operator looking; the
		// last measures show until the new ones come.
		if st.summaries == nil {
			st.summaries, st.sumErr = map[string]attach.InstanceSummary{}, map[string]string{}
		}
		for id := range st.summaries {
			if !ins.knownInstance(id) {
				delete(st.summaries, id)
			}
		}
		for id := range st.sumErr {
			if !ins.knownInstance(id) {
				delete(st.sumErr, id)
			}
		}
		for _, in := range st.list {
			cmds = append(cmds, ins.measure(in.ID))
		}
	}
	if show := ins.follow.show; msg.err == nil && show != "" && !ins.knownInstance(show) {
		// Discarded elsewhere (another studio, the command line).
		ins.status.set("instance "+show+" is gone (discarded): the file pane shows the workspace", false)
		ins.follow.want = ""
		cmds = append(cmds, ins.swapFiles("", nil))
	}
	ins.showInstances()
	return tea.Batch(cmds...)
}

// measure reads an instance's size and changes in a command.
func (ins *instancesPart) measure(id string) tea.Cmd {
	eng := ins.eng
	return func() tea.Msg {
		ctx, cancel := instanceCtx()
		defer cancel()
		s, err := eng.InstanceSummary(ctx, id)
		return summaryMsg{id: id, sum: s, err: err}
	}
}

// measured takes one instance's summary.
func (ins *instancesPart) measured(msg summaryMsg) {
	if ins.insts.summaries == nil {
		return // measured for a tab since closed
	}
	if msg.err != nil {
		ins.insts.sumErr[msg.id] = errorText(msg.err)
	} else {
		ins.insts.summaries[msg.id] = msg.sum
		delete(ins.insts.sumErr, msg.id)
	}
	ins.showInstances()
}

// showInstances gives the tab, if open, what the studio knows now.
func (ins *instancesPart) showInstances() {
	if t := ins.workspacesTab(); t != nil {
		t.SetNow(ins.now)
		t.SetData(ins.workspacesData())
		t.SetShowing(ins.follow.show)
	}
}

// workspacesData composes the tab's data: the list as last read, each
// instance's summary, and the sessions' records the studio holds (their
// titles and statuses are live; which instance each is on is in its
// record).
func (ins *instancesPart) workspacesData() workspaces.Data {
	st := ins.insts
	d := workspaces.Data{Loaded: st.loaded, Err: st.listErr}
	on := map[string][]sess.Session{}
	for _, r := range ins.live.recs {
		on[r.Instance] = append(on[r.Instance], r)
	}
	for _, ss := range on {
		sort.Slice(ss, func(i, j int) bool { return ss[i].CreatedAt.Before(ss[j].CreatedAt) })
	}
	d.Folder = on[""]
	for _, in := range st.list {
		row := workspaces.Instance{ID: in.ID, Kind: in.Kind, Branch: in.Branch, Sessions: on[in.ID], Err: st.sumErr[in.ID]}
		if s, ok := st.summaries[in.ID]; ok {
			row.Summary = &workspaces.Summary{Bytes: s.Size.Bytes, Files: s.Files, Added: s.Added, Removed: s.Removed}
		}
		d.Instances = append(d.Instances, row)
	}
	return d
}

// knownInstance reports whether the list as last read holds id.
func (ins *instancesPart) knownInstance(id string) bool {
	for _, in := range ins.insts.list {
		if in.ID == id {
			return true
		}
	}
	return false
}

// isolationOf is the kind of instance id ("worktree", "copy"), for a
// session tab's header; "" for none, or while the list does not hold it.
func (ins *instancesPart) isolationOf(id string) string {
	for _, in := range ins.insts.list {
		if id != "" && in.ID == id {
			return string(in.Kind)
		}
	}
	return ""
}

// instanceEvents refreshes what the studio knows of the instances after
// a batch of events: an instance made, applied or discarded (EvInstance),
// or a session on an instance the list lacks.
func (ins *instancesPart) instanceEvents(evs []core.Event) tea.Cmd {
	reload := false
	remeasure := map[string]bool{}
	for _, ev := range evs {
		switch {
		case ev.Kind == core.EvInstance:
			reload = true
		case ev.Kind == core.EvSession && ev.Session != nil && ev.Session.Instance != "" && !ins.knownInstance(ev.Session.Instance):
			reload = true
		case ev.Kind == core.EvCommit && ins.live.recs[ev.SessionID].Instance != "":
			// A turn on an instance changed it: its size and changes.
			remeasure[ins.live.recs[ev.SessionID].Instance] = true
		case ev.Kind == core.EvSession && ev.Session != nil && ev.Session.Instance != "" && ev.Session.Status != sess.Running:
			// A turn on it ended (or its session did): measured again.
			remeasure[ev.Session.Instance] = true
		}
	}
	ins.showInstances() // the sessions' statuses
	if reload {
		return ins.loadInstances()
	}
	var cmds []tea.Cmd
	if ins.workspacesTab() != nil && ins.insts.summaries != nil {
		for id := range remeasure {
			cmds = append(cmds, ins.measure(id))
		}
	}
	return tea.Batch(cmds...)
}

// newForm is the new-session form, with the isolation a create would
// choose and the instances a session may join, as last read.
func (ins *instancesPart) newForm() *dialog.Form {
	f := dialog.NewForm(ins.st, ins.opts.Agents, ins.opts.Now)
	var join []dialog.Joinable
	for _, in := range ins.insts.list {
		if in.Ready {
			join = append(join, dialog.Joinable{ID: in.ID, Kind: string(in.Kind)})
		}
	}
	f.SetIsolation(ins.defaultIsolation, join)
	return f
}

// defaultIsolation is the isolation a create gives a session of agent
// when it names none: the agent's configured one ("" is in-place).
func (ins *instancesPart) defaultIsolation(agent string) string {
	if ins.opts.Config == nil {
		return ""
	}
	ag, ok := ins.opts.Config.Agent(agent)
	if !ok || ag.Isolation == core.IsolationInPlace {
		return ""
	}
	return ag.Isolation
}

// instanceKind says what an instance is, as far as the list knows.
func (ins *instancesPart) instanceKind(id string) instances.Kind {
	for _, in := range ins.insts.list {
		if in.ID == id {
			return in.Kind
		}
	}
	return ""
}
