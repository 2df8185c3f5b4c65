package tui

import (
	"errors"

	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/attach"
	afiles "github.com/atelier-studio/atelier/files"
	"github.com/atelier-studio/atelier/instances"
	"github.com/atelier-studio/atelier/tui/dialog"
	"github.com/atelier-studio/atelier/tui/files"
)

// The file pane follows the instance of the selected session: selecting a
// session that works on an instance shows that instance's files (read
// through the engine's FilesOf, so attached to another machine it is
// that machine's), selecting one that works in place shows the workspace
// again; the Workspaces tab's f shows any instance. The pane's title says
// which instance it shows. An instance's files are for reading: the
// session works there, and apply brings its changes back, so the file
// operations and the editor stay the workspace's, and a file of an
// instance opens in a read-only view. The instance's tree is listed
// again at the end of each turn (the workspace watcher sees only the
// workspace).

// followState is what the file pane shows.
type followState struct {
	// show is the instance the pane shows ("" the workspace); want is
	// the one asked for while its files are fetched (gen numbers the
	// asks, so a late answer is dropped).
	show, want string
	gen        int
	// files are the shown instance's; wsTree is the workspace's tree,
	// kept (with its open folders) while an instance's is shown.
	files  attach.Files
	wsTree *afiles.Tree
	// followed is the session whose selection the pane last followed.
	followed string
}

// Messages of the file pane's following.
type (
	// filesOfMsg is an instance's file access, fetched.
	filesOfMsg struct {
		gen   int
		id    string
		files attach.Files
		err   error
	}
	// instFileMsg is a file of an instance, read for the read-only view.
	instFileMsg struct {
		id, path string
		data     []byte
		err      error
	}
)

// followSelection shows the selected session's instance in the file pane
// when the selection moved to another session.
func (ins *instancesPart) followSelection() tea.Cmd {
	s, ok := ins.sessions.Selected()
	if !ok || s.ID == ins.follow.followed {
		return nil
	}
	ins.follow.followed = s.ID
	return ins.showFiles(s.Instance, false)
}

// showFiles makes the file pane show an instance's files ("" the
// workspace's); focus gives the pane the keys.
func (ins *instancesPart) showFiles(id string, focus bool) tea.Cmd {
	if focus {
		ins.r.setFocus(focusFiles)
	}
	if id == ins.follow.want {
		return nil
	}
	ins.follow.gen++
	ins.follow.want = id
	if id == "" {
		return ins.swapFiles("", nil)
	}
	gen, eng := ins.follow.gen, ins.eng
	return func() tea.Msg {
		f, err := eng.FilesOf(id)
		return filesOfMsg{gen: gen, id: id, files: f, err: err}
	}
}

// swapFiles puts an instance's tree (or, for "", the workspace's) in the
// file pane and lists it.
func (ins *instancesPart) swapFiles(id string, f attach.Files) tea.Cmd {
	ins.follow.show, ins.follow.files = id, f
	defer ins.showInstances()
	if id == "" {
		if ins.follow.wsTree == nil {
			return nil // the workspace's is in the pane already
		}
		ins.files.Swap(ins.follow.wsTree, true)
		ins.follow.wsTree = nil
		ins.files.SetBlamer(blamer(ins.eng))
		return ins.files.Refresh()
	}
	prev := ins.files.Swap(afiles.NewTree(f, afiles.NewIgnore()), false)
	if ins.follow.wsTree == nil {
		ins.follow.wsTree = prev
	}
	// The history's blame is the workspace's: an instance's file is not
	// that path of the workspace.
	ins.files.SetBlamer(nil)
	return ins.files.Init()
}

// filesTitle is the file pane's title: it names the instance it shows.
func (ins *instancesPart) filesTitle() string {
	if ins.follow.show == "" {
		return "Files"
	}
	t := "Files · instance " + ins.follow.show
	if k := ins.instanceKind(ins.follow.show); k != "" {
		t += " (" + string(k) + ")"
	}
	return t
}

// filesResult takes the following's messages, and the file pane's opens
// and operations while it shows an instance; it reports whether msg was
// one.
func (ins *instancesPart) filesResult(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case filesOfMsg:
		if msg.gen != ins.follow.gen {
			return nil, true // asked for another since
		}
		if msg.err != nil {
			ins.follow.want = ""
			text := "the files of instance " + msg.id + ": " + errorText(msg.err) + " · the file pane shows the workspace"
			if errors.Is(msg.err, instances.ErrNotFound) {
				text = "instance " + msg.id + " is gone (discarded): the file pane shows the workspace"
			}
			ins.status.set(text, !errors.Is(msg.err, instances.ErrNotFound))
			return ins.swapFiles("", nil), true
		}
		return ins.swapFiles(msg.id, msg.files), true
	case instFileMsg:
		if msg.err != nil {
			ins.status.set("open "+msg.path+" of instance "+msg.id+": "+errorText(msg.err), true)
			return nil, true
		}
		ins.dlg.open(dialog.NewText(ins.st, "instance "+msg.id+": "+msg.path+" (read-only)", string(msg.data)), nil)
		return nil, true
	case files.Open:
		if ins.follow.show == "" {
			return nil, false
		}
		return ins.readInstanceFile(msg.Path), true
	case files.Op:
		if ins.follow.show == "" {
			return nil, false
		}
		ins.status.set("the file pane shows instance "+ins.follow.show+": its files are its sessions' to change (apply brings them back); "+
			"select a session in place, or f on the folder in the Workspaces tab, for the workspace's", true)
		return nil, true
	}
	return nil, false
}

// readInstanceFile reads a file of the shown instance, in a command.
func (ins *instancesPart) readInstanceFile(p string) tea.Cmd {
	f, id := ins.follow.files, ins.follow.show
	return func() tea.Msg {
		c, err := f.ReadFile(afiles.Operator, p, afiles.ReadOptions{MaxBytes: maxEditBytes})
		if err != nil {
			return instFileMsg{id: id, path: p, err: err}
		}
		return instFileMsg{id: id, path: c.Path, data: c.Data}
	}
}
