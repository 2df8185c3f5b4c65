package tui

import (
	"context"
	"errors"
	"os"
	"path"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/attach"
	afiles "github.com/atelier-studio/atelier/files"
	"github.com/atelier-studio/atelier/sessions/history"
	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/files"
)

// fileOpMsg is a file operation's outcome.
type fileOpMsg struct {
	op   files.Op
	what string // past tense, for the status line and the log
	open string // a file to open in the editor after (a new file)
	// wrote are the paths the operation changed, whose watcher echoes are
	// the operation's, logged once as it (the selected row, op.Path, is
	// only the place it started from).
	wrote []string
	err   error
}

// blamer answers the file tree's blames from the workspace history; it
// opens the history, so it runs only in the tree's commands.
func blamer(eng attach.Engine) files.Blamer {
	return func(ctx context.Context, p string) (history.Commit, error) {
		h, err := eng.History()
		if err != nil {
			return history.Commit{}, err
		}
		return h.Blame(ctx, p)
	}
}

// blamed takes a blame answer, naming its session.
func (wp *workPart) blamed(b files.Blamed) {
	if rec, ok := wp.live.recs[b.Commit.SessionID]; ok {
		b.Title = quote(rec.Title)
	}
	wp.files.ApplyBlame(b)
}

// where names a folder of the workspace for people.
func where(dir string) string {
	if dir == "" {
		return "the workspace's root"
	}
	return dir + "/"
}

// fileOp opens the dialog a file operation needs.
func (wp *workPart) fileOp(op files.Op) {
	in := func(text string) tea.Cmd { return wp.runFileOp(op, text) }
	switch op.Kind {
	case files.OpNewFile:
		wp.dlg.prompt("New file", "A new empty file in "+where(op.Dir)+". Its name (a/b.txt makes the folders too):", "", in)
	case files.OpNewFolder:
		wp.dlg.prompt("New folder", "A new folder in "+where(op.Dir)+". Its name:", "", in)
	case files.OpRename:
		wp.dlg.prompt("Rename", "Rename or move "+op.Path+". Its new path in the workspace (nothing is replaced):", op.Path, in)
	case files.OpDelete:
		what := "Delete the file " + op.Path + "?"
		if op.IsDir {
			what = "Delete the folder " + op.Path + "/ with everything in it?"
		}
		wp.dlg.confirm("Delete", what+" It does not go to a trash: only what the history recorded can be restored.", "delete", func() tea.Cmd { return in("") })
	case files.OpUpload:
		wp.dlg.prompt("Upload", "Copy a file or folder from this machine into "+where(op.Dir)+
			". Its path here (~/ is your home; symlinks are skipped, nothing is replaced):", "", in)
	case files.OpDownload:
		wp.dlg.prompt("Download", "Copy "+op.Path+" out of the workspace to a path on this machine that does not exist yet (~/ is your home):",
			filepath.Join(wp.home, path.Base(op.Path)), in)
	}
}

// runFileOp carries out a file operation the operator confirmed, in a
// command, as the operator.
func (wp *workPart) runFileOp(op files.Op, text string) tea.Cmd {
	ws, eng, home := wp.opts.Files, wp.eng, wp.home
	// change makes one change through the engine, under the workspace's
	// write lease (the host's when attached).
	change := func(fo attach.FileOp) (afiles.CopyStats, error) {
		ctx, cancel := context.WithTimeout(context.Background(), saveTimeout)
		defer cancel()
		return eng.FileOp(ctx, fo)
	}
	switch op.Kind {
	case files.OpNewFile:
		p := joinRel(op.Dir, text)
		return func() tea.Msg {
			_, err := change(attach.FileOp{Kind: attach.OpCreate, Path: p})
			return fileOpMsg{op: op, what: "created " + p, open: p, wrote: []string{p}, err: err}
		}
	case files.OpNewFolder:
		p := joinRel(op.Dir, text)
		return func() tea.Msg {
			_, err := change(attach.FileOp{Kind: attach.OpMkdir, Path: p})
			return fileOpMsg{op: op, what: "created " + p + "/", wrote: []string{p}, err: err}
		}
	case files.OpRename:
		to := strings.TrimPrefix(text, "./")
		if to == op.Path {
			return nil
		}
		return func() tea.Msg {
			_, err := change(attach.FileOp{Kind: attach.OpRename, Path: op.Path, To: to})
			return fileOpMsg{op: op, what: "renamed " + op.Path + " → " + to, wrote: []string{op.Path, to}, err: err}
		}
	case files.OpDelete:
		return func() tea.Msg {
			_, err := change(attach.FileOp{Kind: attach.OpDelete, Path: op.Path})
			return fileOpMsg{op: op, what: "deleted " + op.Path, wrote: []string{op.Path}, err: err}
		}
	case files.OpUpload:
		return func() tea.Msg {
			host, err := hostPath(text, home)
			if err != nil {
				return fileOpMsg{op: op, err: err}
			}
			p := joinRel(op.Dir, filepath.Base(host))
			st, err := change(attach.FileOp{Kind: attach.OpUpload, From: host, Path: p})
			return fileOpMsg{op: op, what: "uploaded " + host + " → " + p + copied(st), wrote: []string{p}, err: err}
		}
	case files.OpDownload:
		// Reading needs no lease: it copies out of the workspace.
		return func() tea.Msg {
			host, err := hostPath(text, home)
			if err != nil {
				return fileOpMsg{op: op, err: err}
			}
			st, err := ws.Download(afiles.Operator, op.Path, host)
			return fileOpMsg{op: op, what: "downloaded " + op.Path + " → " + host + copied(st), err: err}
		}
	}
	return nil
}

// fileOpDone reports a file operation and shows its result in the tree.
func (wp *workPart) fileOpDone(msg fileOpMsg) tea.Cmd {
	if msg.err != nil {
		wp.status.set(errorText(msg.err), true)
		return nil
	}
	wp.status.set("you "+msg.what, false)
	wp.act.log("", msg.what+" by you", themes.ToneAccent)
	for _, p := range msg.wrote {
		wp.act.noteWrite(p)
	}
	cmds := []tea.Cmd{wp.files.Refresh()}
	if msg.open != "" {
		cmds = append(cmds, wp.openFile(msg.open))
	}
	return tea.Batch(cmds...)
}

// joinRel joins a workspace folder and a name typed by the operator; the
// workspace refuses what would leave it.
func joinRel(dir, name string) string {
	name = strings.TrimPrefix(strings.TrimSpace(name), "./")
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// hostPath makes a typed host path absolute: ~/ is the home folder, a
// relative path is taken from the studio's working folder.
func hostPath(p, home string) (string, error) {
	p = strings.TrimSpace(p)
	switch {
	case p == "":
		return "", errors.New("no path given")
	case p == "~" || strings.HasPrefix(p, "~/"):
		if home == "" {
			return "", errors.New("~: the home folder is not known")
		}
		p = filepath.Join(home, strings.TrimPrefix(p[1:], "/"))
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return abs, nil
}

// copied sums up an upload or download for the log.
func copied(st afiles.CopyStats) string {
	out := " (" + plural(st.Files, "file", "files") + ", " + plural(int(st.Bytes), "byte", "bytes")
	if len(st.Skipped) > 0 {
		out += "; skipped " + strings.Join(st.Skipped, ", ")
	}
	return out + ")"
}

// homeDir is the operator's home folder, "" when unknown (read once at
// New: the environment, not the disk).
func homeDir() string {
	h, _ := os.UserHomeDir()
	return h
}
