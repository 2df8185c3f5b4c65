package tui

import (
	"errors"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/instances"
	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/dialog"
	"github.com/atelier-studio/atelier/tui/workspaces"
)

// What the Workspaces tab's keys do: each asks the engine in a command
// and comes back as a message; apply previews first and confirms, discard
// asks (and asks again, by the instance's name, when changes were never
// applied), branch asks for the name.

// Messages of the instance actions.
type (
	// instDiffMsg is an instance's diff, for its tab.
	instDiffMsg struct {
		id   string
		diff instances.Diff
		err  error
	}
	// applyPreviewMsg is what an apply would write.
	applyPreviewMsg struct {
		id       string
		threeWay bool
		res      instances.ApplyResult
		err      error
	}
	// appliedMsg is an apply's outcome.
	appliedMsg struct {
		id  string
		res instances.ApplyResult
		err error
	}
	// discardedMsg is a discard's outcome.
	discardedMsg struct {
		id    string
		force bool
		err   error
	}
	// branchedMsg is a branch's outcome.
	branchedMsg struct {
		id, branch string
		err        error
	}
)

// workspacesAction carries out what the Workspaces tab asked.
func (ins *instancesPart) workspacesAction(act workspaces.Action) tea.Cmd {
	switch act := act.(type) {
	case workspaces.Refresh:
		return ins.loadInstances()
	case workspaces.Notice:
		ins.status.set(act.Text, false)
	case workspaces.Files:
		return ins.showFiles(act.ID, true)
	case workspaces.Diff:
		return ins.instanceDiff(act.ID)
	case workspaces.Apply:
		return ins.previewApply(act.ID, false)
	case workspaces.Discard:
		ins.dlg.confirm("Discard "+act.ID, "Discard instance "+act.ID+"? Its folder"+ins.branchNote(act.ID)+" is removed. "+
			"Sessions that worked on it keep their transcripts.", "discard", func() tea.Cmd { return ins.discard(act.ID, false) })
	case workspaces.Branch:
		id := act.ID
		ins.dlg.open(dialog.NewDefaultPrompt(ins.st, "Branch from "+act.ID,
			"A branch of your repository with the instance's work, for a pull request. Its name:", "atelier-"+act.ID),
			onOK(func(r dialog.Result) tea.Cmd {
				name := strings.TrimSpace(r.Text)
				if name == "" {
					ins.status.set("no branch made: it needs a name", true)
					return nil
				}
				return ins.branch(id, name)
			}))
	}
	return nil
}

// branchNote says what else a discard removes.
func (ins *instancesPart) branchNote(id string) string {
	if ins.instanceKind(id) == instances.Worktree {
		return " (a git worktree) and its branch " + instances.BranchPrefix + id
	}
	return ""
}

// instanceResult takes the instance commands' messages; it reports
// whether msg was one.
func (ins *instancesPart) instanceResult(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case instancesMsg:
		return ins.instancesLoaded(msg), true
	case copyEstimateMsg:
		return ins.copyEstimated(msg), true
	case summaryMsg:
		ins.measured(msg)
		return nil, true
	case instDiffMsg:
		ins.showInstanceDiff(msg)
		return nil, true
	case applyPreviewMsg:
		ins.showApplyPreview(msg)
		return nil, true
	case appliedMsg:
		return ins.applied(msg), true
	case discardedMsg:
		return ins.discarded(msg), true
	case branchedMsg:
		if msg.err != nil {
			ins.status.set("branch from instance "+msg.id+": "+errorText(msg.err), true)
			return nil, true
		}
		ins.status.set("made branch "+msg.branch+" from instance "+msg.id, false)
		ins.act.log("", "instance "+msg.id+" became branch "+msg.branch, themes.ToneSuccess)
		return nil, true
	}
	return ins.filesResult(msg)
}

func (ins *instancesPart) instanceDiff(id string) tea.Cmd {
	eng := ins.eng
	return func() tea.Msg {
		ctx, cancel := instanceCtx()
		defer cancel()
		d, err := eng.InstanceDiff(ctx, id)
		return instDiffMsg{id: id, diff: d, err: err}
	}
}

// showInstanceDiff opens the instance's diff in the diff view.
func (ins *instancesPart) showInstanceDiff(msg instDiffMsg) {
	switch {
	case msg.err != nil:
		ins.status.set("diff of instance "+msg.id+": "+errorText(msg.err), true)
		return
	case len(msg.diff.Files) == 0:
		ins.status.set("instance "+msg.id+" has no changes against its base", false)
		return
	}
	add, del := msg.diff.Lines()
	title := fmt.Sprintf("instance %s · %d files +%d −%d", msg.id, len(msg.diff.Files), add, del)
	ins.r.addTab(newDiffTab(ins.studio, title, msg.diff.Patch, ""))
}

func (ins *instancesPart) previewApply(id string, threeWay bool) tea.Cmd {
	eng := ins.eng
	return func() tea.Msg {
		ctx, cancel := instanceCtx()
		defer cancel()
		res, err := eng.ApplyInstance(ctx, id, instances.ApplyOptions{Preview: true, ThreeWay: threeWay})
		return applyPreviewMsg{id: id, threeWay: threeWay, res: res, err: err}
	}
}

// showApplyPreview asks to confirm an apply after showing what it would
// write; a conflict names its files and offers the 3-way apply.
func (ins *instancesPart) showApplyPreview(msg applyPreviewMsg) {
	var conflict *instances.ConflictError
	switch {
	case errors.As(msg.err, &conflict):
		lines := make([]string, 0, len(conflict.Files))
		for _, f := range conflict.Files {
			lines = append(lines, ins.st.Warning.Render("  ≠ "+f))
		}
		ins.dlg.open(dialog.NewChoice(ins.st, "Apply "+msg.id+": conflict",
			"You changed these files in the workspace since the instance was made, and the instance changed them too. "+
				"Nothing was written. A 3-way merge combines both where git can; what it cannot merge stays as you have it, and is named.",
			lines, []dialog.Option{{Key: "3", Label: "preview a 3-way apply"}, {Key: "n", Label: "cancel"}}, "n"),
			onKey("3", func() tea.Cmd { return ins.previewApply(msg.id, true) }))
		return
	case msg.err != nil:
		ins.status.set("apply instance "+msg.id+": "+errorText(msg.err), true)
		return
	case len(msg.res.Files) == 0:
		text := "instance " + msg.id + " has nothing to apply"
		if len(msg.res.Unchanged) > 0 {
			text += ": the workspace already holds its " + count(len(msg.res.Unchanged), "change")
		}
		if len(msg.res.Unmerged) > 0 {
			text += "; " + count(len(msg.res.Unmerged), "file") + " could not be merged: " + unmergedText(msg.res.Unmerged)
		}
		ins.status.set(text, len(msg.res.Unmerged) > 0)
		return
	}
	ins.dlg.open(dialog.NewChoice(ins.st, "Apply "+msg.id, applyText(msg), ins.applyLines(msg.res),
		[]dialog.Option{{Key: "y", Label: "apply"}, {Key: "n", Label: "cancel"}}, "n"),
		onKey("y", func() tea.Cmd { return ins.apply(msg.id, msg.threeWay) }))
}

// applyText says what confirming an apply does.
func applyText(msg applyPreviewMsg) string {
	s := "Write " + count(len(msg.res.Files), "file") + " of instance " + msg.id + " into the workspace, as one history commit " +
		"(undone like a restore)."
	if n := len(msg.res.Unmerged); n > 0 {
		s += " " + count(n, "file") + " could not be merged and stay as you have them."
	}
	return s
}

// applyLines is an apply's preview: each file with what happens to it.
func (ins *instancesPart) applyLines(res instances.ApplyResult) []string {
	var out []string
	for _, f := range res.Files {
		mark, style := "~", ins.st.Base
		switch f.Status {
		case instances.Added:
			mark, style = "+", ins.st.Success
		case instances.Removed:
			mark, style = "−", ins.st.Error
		}
		line := "  " + mark + " " + f.Path
		if f.Merged {
			line += "  (merged 3-way)"
		}
		out = append(out, style.Render(line))
	}
	for _, u := range res.Unmerged {
		out = append(out, ins.st.Warning.Render("  ≠ "+u.Path+"  not merged: "+u.Why))
	}
	for _, p := range res.Unchanged {
		out = append(out, ins.st.Subtle.Render("  = "+p+"  already as the instance has it"))
	}
	return out
}

func unmergedText(us []instances.Unmerged) string {
	parts := make([]string, len(us))
	for i, u := range us {
		parts[i] = u.Path + " (" + u.Why + ")"
	}
	return strings.Join(parts, ", ")
}

func (ins *instancesPart) apply(id string, threeWay bool) tea.Cmd {
	eng := ins.eng
	return func() tea.Msg {
		ctx, cancel := instanceCtx()
		defer cancel()
		res, err := eng.ApplyInstance(ctx, id, instances.ApplyOptions{ThreeWay: threeWay})
		return appliedMsg{id: id, res: res, err: err}
	}
}

// applied says what an apply did and reads the instances again.
func (ins *instancesPart) applied(msg appliedMsg) tea.Cmd {
	var conflict *instances.ConflictError
	switch {
	case errors.As(msg.err, &conflict):
		// The workspace changed between the preview and the apply.
		ins.showApplyPreview(applyPreviewMsg{id: msg.id, err: msg.err})
		return nil
	case msg.err != nil:
		ins.status.set("apply instance "+msg.id+": "+errorText(msg.err), true)
		return nil
	}
	text := "applied instance " + msg.id + ": " + count(len(msg.res.Files), "file") + " written"
	isErr := false
	if n := len(msg.res.Unmerged); n > 0 {
		text += "; not merged: " + unmergedText(msg.res.Unmerged)
		isErr = true
	}
	if msg.res.CommitErr != nil {
		text += "; the history commit failed: " + msg.res.CommitErr.Error()
		isErr = true
	}
	ins.status.set(text, isErr)
	ins.act.log("", text, themes.ToneSuccess)
	return tea.Batch(ins.loadInstances(), ins.files.Refresh())
}

func (ins *instancesPart) discard(id string, force bool) tea.Cmd {
	eng := ins.eng
	return func() tea.Msg {
		ctx, cancel := instanceCtx()
		defer cancel()
		return discardedMsg{id: id, force: force, err: eng.DiscardInstance(ctx, id, force)}
	}
}

// discarded says what a discard did; changes never applied make it ask
// again, by the instance's name.
func (ins *instancesPart) discarded(msg discardedMsg) tea.Cmd {
	var unapplied *instances.UnappliedError
	var inUse *core.InUseError
	switch {
	case errors.As(msg.err, &unapplied) && !msg.force:
		text := []string{
			"Instance " + msg.id + " has changes that were never applied to the workspace:",
		}
		for _, f := range unapplied.Files {
			text = append(text, "  "+f)
		}
		text = append(text, "Discarding it loses them for good (apply them first with a, or make a branch with b).")
		ins.dlg.open(dialog.NewTyped(ins.st, "Discard "+msg.id+" and its unapplied changes", text, msg.id),
			onOK(func(dialog.Result) tea.Cmd { return ins.discard(msg.id, true) }))
		return nil
	case errors.As(msg.err, &inUse):
		ins.status.set("instance "+msg.id+" is in use by "+ins.titles(inUse.Sessions)+": close or cancel them first", true)
		return nil
	case msg.err != nil:
		ins.status.set("discard instance "+msg.id+": "+errorText(msg.err), true)
		return nil
	}
	ins.status.set("discarded instance "+msg.id, false)
	ins.act.log("", "instance "+msg.id+" discarded", themes.ToneSubtle)
	var cmds []tea.Cmd
	if ins.follow.show == msg.id {
		cmds = append(cmds, ins.showFiles("", false))
	}
	return tea.Batch(append(cmds, ins.loadInstances())...)
}

// titles names sessions by their titles.
func (ins *instancesPart) titles(ids []string) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id
		if r, ok := ins.live.recs[id]; ok && r.Title != "" {
			out[i] = r.Title
		}
	}
	return strings.Join(out, ", ")
}

func (ins *instancesPart) branch(id, name string) tea.Cmd {
	eng := ins.eng
	return func() tea.Msg {
		ctx, cancel := instanceCtx()
		defer cancel()
		b, err := eng.BranchInstance(ctx, id, name)
		return branchedMsg{id: id, branch: b, err: err}
	}
}

// count says "1 file", "3 files".
func count(n int, what string) string { return plural(n, what, what+"s") }
