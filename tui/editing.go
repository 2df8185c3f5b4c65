package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/attach"
	afiles "github.com/atelier-studio/atelier/files"
	"github.com/atelier-studio/atelier/internal/textdiff"
	eterm "github.com/atelier-studio/atelier/terminal"
	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/dialog"
	"github.com/atelier-studio/atelier/tui/diff"
	"github.com/atelier-studio/atelier/tui/editor"
	"github.com/atelier-studio/atelier/tui/terminal"
)

// maxEditBytes is the largest file the editor opens.
const maxEditBytes = 64 << 20

// saveTimeout bounds how long a save waits for the workspace's write lease
// (a session's command may hold it) before it says so.
const saveTimeout = 30 * time.Second

// Messages of the editor's file I/O, each the answer of a command.
type (
	// fileReadMsg is a file read to open it (editor 0) or to check an open
	// editor against the disk.
	fileReadMsg struct {
		editor int
		path   string
		by     string // who changed it, for a disk check
		data   []byte
		err    error
		// restore opens the tab behind the one in view, without the
		// keys: a tab of the previous studio coming back.
		restore bool
	}
	// diskDiffMsg is the diff from an open editor's unsaved text to the
	// file read again from disk, made by a command, with its lines styled
	// for the question it goes with.
	diskDiffMsg struct {
		read    fileReadMsg
		preview []string
	}
	// diskDiffTabMsg is that diff made by a command into a view, for a
	// tab of its own.
	diskDiffTabMsg struct{ view *diff.View }
	// fileSavedMsg is the outcome of a save.
	fileSavedMsg struct {
		editor    int
		path      string
		data      []byte
		history   uint64
		err       error
		thenClose bool
	}
)

// openFile shows a file's editor, reading the file first when it is not
// open yet.
func (wp *workPart) openFile(p string) tea.Cmd {
	if _, i := wp.tabs.editorAt(p); i >= 0 {
		wp.r.selectTab(i)
		wp.r.setFocus(focusCenter)
		return nil
	}
	return wp.readFile(0, p, "")
}

func (wp *workPart) readFile(id int, p, by string) tea.Cmd {
	ws := wp.opts.Files
	return func() tea.Msg {
		c, err := ws.ReadFile(afiles.Operator, p, afiles.ReadOptions{MaxBytes: maxEditBytes})
		if err != nil {
			return fileReadMsg{editor: id, path: p, by: by, err: err}
		}
		return fileReadMsg{editor: id, path: c.Path, by: by, data: c.Data}
	}
}

// fileRead opens an editor on a file read, or checks an open one against
// the disk.
func (wp *workPart) fileRead(msg fileReadMsg) tea.Cmd {
	if msg.editor != 0 {
		return wp.diskChanged(msg)
	}
	switch {
	case errors.Is(msg.err, afiles.ErrBinary):
		wp.status.set(msg.path+" is a binary file: the editor opens text files only", true)
		return nil
	case errors.Is(msg.err, afiles.ErrTooLarge):
		limit := "over 64 MiB"
		if wp.opts.Remote != "" {
			limit = "over the 16 MB the engine serves in one read"
		}
		wp.status.set(msg.path+" is too large for the editor ("+limit+")", true)
		return nil
	case msg.err != nil:
		wp.status.set("open "+msg.path+": "+msg.err.Error(), true)
		return nil
	}
	if _, i := wp.tabs.editorAt(msg.path); i >= 0 { // opened twice in a row
		wp.r.selectTab(i)
		return nil
	}
	wp.nextID++
	ed := editor.New(wp.st, editor.Options{ID: wp.nextID, Path: msg.path, Data: msg.data, Clipboard: &wp.clip})
	ed.SetKeyMap(wp.km.editor)
	t := &editorTab{Editor: ed, r: wp}
	if msg.restore {
		wp.tabs.add(t)
		t.release()
		return t.Highlight()
	}
	wp.r.addTab(t)
	wp.status.set("opened "+msg.path, false)
	return t.Highlight()
}

// editorAction carries out what an editor asked.
func (wp *workPart) editorAction(t *editorTab, act editor.Action) tea.Cmd {
	switch act := act.(type) {
	case editor.Save:
		if t.deleted {
			wp.dlg.confirm("Recreate "+act.Path, act.Path+" was deleted on disk since you opened it. Saving writes it again.",
				"recreate it", func() tea.Cmd { return wp.recreate(act) })
			return nil
		}
		return wp.save(act, false)
	case editor.Copy:
		return tea.SetClipboard(act.Text)
	case editor.Close:
		if !act.Dirty {
			return wp.r.closeTabID(editorTabID(act.ID))
		}
		id := act.ID
		wp.dlg.open(dialog.NewChoice(wp.st, "Unsaved changes", path.Base(t.Path())+" has changes that are not saved.", nil,
			[]dialog.Option{{Key: "s", Label: "save and close"}, {Key: "d", Label: "discard them and close"}, {Key: "k", Label: "keep editing"}},
			"k"), onOK(func(r dialog.Result) tea.Cmd { return wp.closeEditor(id, r.Text) }))
	case editor.External:
		return wp.openTerminal("$EDITOR "+path.Base(act.Path), []string{"/bin/sh", "-c", `exec ${VISUAL:-${EDITOR:-vi}} "$1"`, "sh", act.Path})
	case editor.Leave:
		t.release()
	}
	return nil
}

// save writes an editor's content through the workspace, as the operator.
func (wp *workPart) save(s editor.Save, thenClose bool) tea.Cmd {
	if t, i := wp.tabs.editor(s.ID); i >= 0 {
		t.saving = s.Data
	}
	eng := wp.eng
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), saveTimeout)
		defer cancel()
		err := eng.SaveFile(ctx, s.Path, s.Data)
		return fileSavedMsg{editor: s.ID, path: s.Path, data: s.Data, history: s.History, err: err, thenClose: thenClose}
	}
}

func (wp *workPart) saved(msg fileSavedMsg) tea.Cmd {
	t, i := wp.tabs.editor(msg.editor)
	if i >= 0 {
		t.saving = nil
	}
	if msg.err != nil {
		wp.status.set("save "+msg.path+": "+msg.err.Error(), true)
		return nil
	}
	wp.status.set("saved "+msg.path, false)
	wp.act.log("", msg.path+" saved by you", themes.ToneAccent)
	wp.act.noteWrite(msg.path)
	if i < 0 {
		return nil
	}
	t.Saved(msg.history, msg.data)
	if msg.thenClose {
		return wp.r.closeTabCmd(i)
	}
	return nil
}

// checkEditors reads again each open file a watcher batch says changed,
// the operator's changes too: who made a change is a guess that stays on a
// path for seconds after a save (another program's write then reads as
// the operator's), and another studio's save is the operator's as well.
// What the read finds decides (diskChanged): the editor's own save reads
// the same as its text, and nothing happens.
func (wp *workPart) checkEditors(batch []afiles.Change) tea.Cmd {
	var cmds []tea.Cmd
	for _, c := range batch {
		if c.Kind == afiles.Notice || c.IsDir {
			continue
		}
		t, i := wp.tabs.editorAt(c.Path)
		if i < 0 {
			continue
		}
		who := c.By
		if rec, ok := wp.live.recs[c.By]; ok {
			who = rec.Title
		} else if who == afiles.Operator {
			who = "another studio or program" // this studio's own save reads the same as its text
		} else if who == afiles.External || who == "" {
			who = "another program"
		}
		if c.Kind == afiles.Deleted {
			t.KeepMine(nil)
			t.deleted = true
			wp.status.set(c.Path+" was deleted on disk by "+who+": saving asks before it writes it again", true)
			continue
		}
		t.deleted = false // it is back
		cmds = append(cmds, wp.readFile(t.ID(), c.Path, who))
	}
	return tea.Batch(cmds...)
}

// diskChanged takes an open file read again after a change on disk: a
// clean editor reloads, a dirty one asks with the diff, which a command
// makes (diffing a large file is no work for Update).
func (wp *workPart) diskChanged(msg fileReadMsg) tea.Cmd {
	t, i := wp.tabs.editor(msg.editor)
	if i < 0 {
		return nil
	}
	if msg.err != nil {
		wp.status.set("read "+msg.path+" again: "+msg.err.Error(), true)
		return nil
	}
	if t.SameAsDisk(msg.data) || (t.saving != nil && bytes.Equal(msg.data, t.saving)) {
		return nil // as it was, or the echo of the save in flight
	}
	if mine, _ := t.Content(); bytes.Equal(mine, msg.data) {
		return nil // the disk has what the editor holds: nothing to take or ask
	}
	if !t.Dirty() {
		t.Reload(msg.data)
		wp.status.set(msg.path+" changed on disk by "+msg.by+": reloaded (ctrl+z takes it back)", false)
		return t.Highlight()
	}
	mine, _ := t.Content()
	st := wp.st
	return func() tea.Msg {
		d := textdiff.Unified("yours", "on disk", splitLines(string(mine)), splitLines(string(msg.data)), 3)
		var preview []string
		for _, l := range strings.Split(strings.TrimRight(d, "\n"), "\n") {
			preview = append(preview, diff.Line(st, l))
		}
		return diskDiffMsg{read: msg, preview: preview}
	}
}

// askDiskChange asks what to do about a change on disk to a dirty
// editor, once its diff is made. When the editor is no longer dirty
// (saved or undone meanwhile), what was read may be stale: the file is
// read again and checked afresh.
func (wp *workPart) askDiskChange(msg diskDiffMsg) tea.Cmd {
	t, i := wp.tabs.editor(msg.read.editor)
	if i < 0 {
		return nil
	}
	p, by := msg.read.path, msg.read.by
	if !t.Dirty() || t.SameAsDisk(msg.read.data) {
		return wp.readFile(msg.read.editor, p, by)
	}
	id, data := msg.read.editor, msg.read.data
	wp.dlg.open(dialog.NewChoice(wp.st, path.Base(p)+" changed on disk",
		by+" changed "+p+" while you have unsaved changes in it. The diff goes from your version to the one on disk:",
		msg.preview, []dialog.Option{{Key: "r", Label: "reload: take the disk's, drop yours"}, {Key: "k", Label: "keep yours (saving overwrites)"},
			{Key: "d", Label: "open the diff in a tab and keep yours"}},
		"k"), func(r dialog.Result) tea.Cmd { return wp.diskChangeAnswered(id, data, by, r.Text) })
	return nil
}

// showDiskDiff opens the tab of a diff from an editor's text to the disk.
func (wp *workPart) showDiskDiff(msg diskDiffTabMsg) {
	msg.view.SetStyles(wp.st) // the theme may have changed meanwhile
	msg.view.SetKeyMap(wp.km.diff)
	wp.r.addTab(&diffTab{v: msg.view, id: wp.tabs.nextDiffID()})
}

// recreate saves a file deleted on disk, as the operator confirmed.
func (wp *workPart) recreate(save editor.Save) tea.Cmd {
	if t, _ := wp.tabs.editor(save.ID); t != nil {
		t.deleted = false
	}
	return wp.save(save, false)
}

// closeEditor carries out the answer about a dirty editor's close: s
// saves then closes, d drops the changes.
func (wp *workPart) closeEditor(id int, key string) tea.Cmd {
	t, i := wp.tabs.editor(id)
	if i < 0 {
		return nil
	}
	switch key {
	case "s":
		data, h := t.Content()
		return wp.save(editor.Save{ID: id, Path: t.Path(), Data: data, History: h}, true)
	case "d":
		return wp.r.closeTabCmd(i)
	}
	return nil
}

// diskChangeAnswered carries out the answer about a change on disk to a
// dirty editor: r reloads, d opens the diff and keeps the operator's, and
// anything else (esc included) keeps theirs.
func (wp *workPart) diskChangeAnswered(id int, data []byte, by, key string) tea.Cmd {
	t, i := wp.tabs.editor(id)
	if i < 0 {
		return nil
	}
	switch key {
	case "r":
		t.Reload(data)
		wp.status.set(t.Path()+" reloaded from disk (ctrl+z takes it back)", false)
		return t.Highlight()
	case "d":
		mine, _ := t.Content()
		t.KeepMine(data)
		p, st := t.Path(), wp.st
		return func() tea.Msg {
			d := textdiff.Unified("a/"+p+" (yours)", "b/"+p+" (on disk)", splitLines(string(mine)), splitLines(string(data)), 3)
			return diskDiffTabMsg{view: diff.New(st, p+": yours → disk", d)}
		}
	default:
		t.KeepMine(data)
		wp.status.set("kept your "+t.Path()+"; saving overwrites what "+by+" wrote", false)
	}
	return nil
}

func splitLines(s string) []string { return strings.Split(strings.TrimSuffix(s, "\n"), "\n") }

// openTerminal starts a program (the shell when command is empty) in a
// new terminal tab on the host, in the workspace.
func (wp *workPart) openTerminal(name string, command []string) tea.Cmd {
	terms, kept := wp.keeper()
	if wp.host == nil && !kept {
		wp.status.set("no terminal: "+wp.hostErr, true)
		return nil
	}
	wp.nextID++
	wp.status.set("starting "+name+"…", false)
	if kept {
		wp.termsOpening++
		return terminal.Start(hostShells{terms, "", name}, wp.st, wp.nextID, name, wp.r.termSize(), command)
	}
	return terminal.Start(wp.host, wp.st, wp.nextID, name, wp.r.termSize(), command)
}

// termSize is the inside size a new terminal tab gets.
func (a *App) termSize() eterm.Size {
	ar := a.scr.areas()
	size := eterm.Size{Cols: max(ar.center.w-2, 10), Rows: max(ar.center.h-2, 3)}
	if a.scr.narrow() { // the tab will take the whole width
		size.Cols = max(a.scr.w-2, 10)
	}
	return size
}

// sessionTerminal starts a shell in a session's execution environment: its
// container for a Docker session (made now if the session has none yet),
// the host for a local one. Getting the environment is I/O, so it happens
// in the command; an environment that refuses (a read-only local session)
// answers with its error.
func (wp *workPart) sessionTerminal(id, title string) tea.Cmd {
	wp.nextID++
	eng, st, tid, size, name := wp.eng, wp.st, wp.nextID, wp.r.termSize(), "shell · "+title
	wp.status.set("starting a shell in "+quote(title)+"'s environment…", false)
	if terms, ok := wp.keeper(); ok {
		wp.termsOpening++
		return terminal.Start(hostShells{terms, id, name}, st, tid, name, size, nil)
	}
	return terminal.Start(sessionShells{eng, id, title}, st, tid, name, size, nil)
}

// sessionShells starts shells in one session's environment.
type sessionShells struct {
	eng       attach.Engine
	id, title string
}

func (s sessionShells) Shell(ctx context.Context, size eterm.Size, command []string) (eterm.PTY, error) {
	p, err := s.eng.SessionShell(ctx, s.id, size, command)
	if err != nil {
		return nil, fmt.Errorf("terminal for %s: %w", s.title, err)
	}
	return p, nil
}
