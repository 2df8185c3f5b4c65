package tui

import (
	"context"
	"errors"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/attach"
	"github.com/atelier-studio/atelier/sessions/history"
	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/dialog"
	"github.com/atelier-studio/atelier/tui/transcript"
)

// maxHistoryCommits bounds the commits a session's history lists (each
// needs one git call for its files).
const maxHistoryCommits = 200

// historyFilesFirst is how many of the newest commits come with their
// files in the first load (one git call each); the others' load as the
// list scrolls near them.
const historyFilesFirst = 20

// historyTimeout bounds one history command: git on a large workspace is
// slow, never endless.
const historyTimeout = 2 * time.Minute

// Messages of the history's commands.
type (
	// historyMsg is a session's turn history, newest first.
	historyMsg struct {
		id    string
		turns []transcript.Turn
		more  int
		err   error
	}
	// filesLoadedMsg is the files of some commits of a session's history.
	filesLoadedMsg struct {
		id    string
		turns []transcript.Turn
	}
	// commitDiffMsg is a commit's diff, to show in a tab.
	commitDiffMsg struct {
		sessionID, title, text string
		err                    error
	}
	// previewMsg is what a restore would do.
	previewMsg struct {
		req     transcript.Restore
		preview history.RestorePreview
		err     error
	}
	// restoredMsg is the outcome of a restore.
	restoredMsg struct {
		req   transcript.Restore
		hash  string // the restore's commit
		files int
		err   error
	}
)

// loadHistory reads a session's commits and each one's files.
func (hp *historyPart) loadHistory(id string) tea.Cmd {
	eng := hp.eng
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), historyTimeout)
		defer cancel()
		turns, more, err := sessionHistory(ctx, eng, id)
		return historyMsg{id: id, turns: turns, more: more, err: err}
	}
}

// sessionHistory lists the commits of one session, newest first, the
// newest with their changed files (the others pending); more counts the
// commits left out.
func sessionHistory(ctx context.Context, eng attach.Engine, id string) ([]transcript.Turn, int, error) {
	h, err := eng.History()
	if err != nil {
		return nil, 0, err
	}
	log, err := h.Log(ctx, id)
	if err != nil {
		return nil, 0, err
	}
	more := max(len(log)-maxHistoryCommits, 0)
	log = log[:len(log)-more]
	turns := make([]transcript.Turn, len(log))
	for i, c := range log {
		turns[i] = transcript.Turn{Commit: c, Pending: i >= historyFilesFirst}
		if i < historyFilesFirst {
			commitFiles(ctx, h, &turns[i])
		}
	}
	return turns, more, nil
}

// commitFiles fills in the files a commit changed.
func commitFiles(ctx context.Context, h attach.History, t *transcript.Turn) {
	files, err := h.Changes(ctx, t.Commit.Hash)
	if err != nil {
		t.FilesErr = err.Error()
		return
	}
	t.Files = files
}

// loadFiles reads the files of some commits.
func (hp *historyPart) loadFiles(act transcript.LoadFiles) tea.Cmd {
	eng := hp.eng
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), historyTimeout)
		defer cancel()
		turns := make([]transcript.Turn, len(act.Commits))
		h, err := eng.History()
		for i, hash := range act.Commits {
			turns[i].Commit.Hash = hash
			if err != nil {
				turns[i].FilesErr = err.Error()
				continue
			}
			commitFiles(ctx, h, &turns[i])
		}
		return filesLoadedMsg{id: act.ID, turns: turns}
	}
}

// reloadHistory loads again the history of a session whose tab shows it.
func (hp *historyPart) reloadHistory(id string) tea.Cmd {
	if t := hp.tabs.session(id); t != nil && t.ShowsHistory() {
		return hp.loadHistory(id)
	}
	return nil
}

// openCommitDiff reads a commit's diff (of some paths) for a tab.
func (hp *historyPart) openCommitDiff(act transcript.OpenDiff) tea.Cmd {
	eng := hp.eng
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), historyTimeout)
		defer cancel()
		h, err := eng.History()
		if err != nil {
			return commitDiffMsg{sessionID: act.ID, title: act.Title, err: err}
		}
		text, err := h.Diff(ctx, act.Commit, act.Paths...)
		return commitDiffMsg{sessionID: act.ID, title: act.Title, text: text, err: err}
	}
}

// previewRestore asks the history what a restore would do.
func (hp *historyPart) previewRestore(req transcript.Restore) tea.Cmd {
	if req.Commit == "" {
		hp.status.set("nothing comes before the first commit of the history: there is no state to go back to", true)
		return nil
	}
	eng := hp.eng
	hp.status.set("previewing the restore "+req.Label+"…", false)
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), historyTimeout)
		defer cancel()
		h, err := eng.History()
		if err != nil {
			return previewMsg{req: req, err: err}
		}
		p, err := h.PreviewRestore(ctx, req.Commit, req.Paths)
		return previewMsg{req: req, preview: p, err: err}
	}
}

// restore runs a confirmed restore, made for the session so it shows in
// the session's history (where b undoes it).
func (hp *historyPart) restore(req transcript.Restore, files int) tea.Cmd {
	eng := hp.eng
	hp.status.set("restoring "+req.Label+"…", false)
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), historyTimeout)
		defer cancel()
		hash, err := eng.Restore(ctx, req.Commit, req.Paths, req.ID)
		return restoredMsg{req: req, hash: hash, files: files, err: err}
	}
}

// historyResult takes the answers of the history's commands; it reports
// whether msg was one.
func (hp *historyPart) historyResult(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case commitDiffMsg:
		switch {
		case msg.err != nil:
			hp.status.set("diff: "+msg.err.Error(), true)
		case strings.TrimSpace(msg.text) == "":
			hp.status.set(msg.title+": no text changes to show (binary files, or nothing changed)", false)
		default:
			hp.r.addTab(newDiffTab(hp.studio, msg.title, msg.text, msg.sessionID))
		}
	case previewMsg:
		hp.showRestorePreview(msg)
	case restoredMsg:
		return hp.restored(msg), true
	default:
		return nil, false
	}
	return nil, true
}

// showRestorePreview opens the dialog that shows what a restore changes
// and asks to go on.
func (hp *historyPart) showRestorePreview(msg previewMsg) {
	if msg.err != nil {
		hp.status.set("preview the restore "+msg.req.Label+": "+msg.err.Error(), true)
		return
	}
	title := hp.live.recs[msg.req.ID].Title
	var lines []string
	changing, flagged, blocked := 0, 0, 0
	for _, f := range msg.preview.Files {
		if f.Blocked != "" {
			blocked++
			lines = append(lines, hp.st.Subtle.Render("⊘ "+f.Path+" — left alone: "+f.Blocked))
			continue
		}
		changing++
		line := restoreWord(hp.st, f.Action) + " " + hp.st.Base.Render(f.Path)
		if who := hp.changedBy(f, msg.req.ID); who != "" {
			flagged++
			line += "  " + hp.st.Warning.Render("⚠ changed since by "+who)
		}
		lines = append(lines, line)
	}
	target := "commit " + shortHash(msg.preview.Target.Hash)
	if changing == 0 {
		hp.status.set("nothing to restore "+msg.req.Label+": the files already match "+target, false)
		if blocked > 0 {
			hp.dlg.open(dialog.NewChoice(hp.st, "Nothing to restore", "Every file that differs from "+target+
				" is one the restore must leave alone:", lines, nil, ""), nil)
		}
		return
	}
	text := []string{"Restore " + msg.req.Label + " of " + quote(title) + " (" + target + "): " +
		plural(changing, "file changes", "files change") + "."}
	if flagged > 0 {
		text = append(text, plural(flagged, "file was", "files were")+" changed since by you or another session (⚠): "+
			"what they hold now is saved in a snapshot commit first.")
	}
	if blocked > 0 {
		text = append(text, plural(blocked, "file is", "files are")+" left alone (⊘): the history does not hold what they are now.")
	}
	if len(hp.live.running()) > 0 {
		text = append(text, "Sessions are running: a turn that ends after this commits its own files on top.")
	}
	text = append(text, "The restore is a commit of its own: b on it in this history undoes it.")
	req := msg.req
	hp.dlg.open(dialog.NewChoice(hp.st, "Restore "+msg.req.Label, strings.Join(text, " "), lines,
		[]dialog.Option{{Key: "y", Label: "restore"}, {Key: "n", Label: "keep things as they are"}}, "n"),
		onKey("y", func() tea.Cmd { return hp.restore(req, changing) }))
	hp.status.set("", false)
}

// changedBy words who changed a file since the restore's target: you,
// sessions other than the one restored (its own later turns are what the
// restore is meant to take back), by title.
func (hp *historyPart) changedBy(f history.RestoreFile, self string) string {
	var who []string
	if f.UserChanged {
		who = append(who, "you")
	}
	for _, by := range f.ChangedBy {
		switch {
		case by == self:
		case by == "operator":
			if !f.UserChanged {
				who = append(who, "you (a restore)")
			}
		case hp.live.recs[by].Title != "":
			who = append(who, quote(hp.live.recs[by].Title))
		default:
			who = append(who, "session "+by)
		}
	}
	return strings.Join(who, ", ")
}

func restoreWord(st themes.Styles, act history.Action) string {
	switch act {
	case history.ActionCreate:
		return st.Success.Render("create")
	case history.ActionDelete:
		return st.Error.Render("delete")
	}
	return st.Warning.Render("modify")
}

// restored reports a restore in the status line and the activity stream
// and refreshes what shows the workspace.
func (hp *historyPart) restored(msg restoredMsg) tea.Cmd {
	title := hp.live.recs[msg.req.ID].Title
	if title == "" {
		title = msg.req.ID
	}
	if errors.Is(msg.err, history.ErrNothingToRestore) {
		hp.status.set("nothing to restore "+msg.req.Label+": the files already match", false)
		return nil
	}
	if msg.err != nil {
		hp.status.set("restore "+msg.req.Label+": "+msg.err.Error(), true)
		hp.act.log(msg.req.ID, title+": restore "+msg.req.Label+" failed: "+msg.err.Error(), themes.ToneError)
		return nil
	}
	text := title + ": you restored " + msg.req.Label + " (" + plural(msg.files, "file", "files") +
		", commit " + shortHash(msg.hash) + ")"
	hp.status.set(text+" · b on it in the history undoes it", false)
	hp.act.log(msg.req.ID, text, themes.ToneAccent)
	hp.files.ForgetBlame()
	return tea.Batch(hp.reloadHistory(msg.req.ID), hp.files.Refresh(), hp.files.BlameSelected())
}

func shortHash(h string) string {
	if len(h) > 7 {
		return h[:7]
	}
	return h
}

// plural writes "1 file" or "3 files" (one and many are the words after
// the number).
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return itoa(n) + " " + many
}
