package tui

import (
	"path"

	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/attach"
	afiles "github.com/atelier-studio/atelier/files"
	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/files"
)

// The workspace's paths that an "@" in a prompt completes: walked once in
// a command (through the files seam: the disk in process, the engine's
// files API attached), with the tree's ignore rules, kept, and walked
// again when the watcher reports a path created, deleted or renamed. A
// key only filters the kept list (transcript/mentions.go).

// maxMentionPaths bounds the walk: a huge workspace offers its first
// paths rather than holding a list of millions.
const maxMentionPaths = 50_000

// pathsMsg is a walk of the workspace's paths.
type pathsMsg struct {
	paths []string
	err   error
}

// mentionPart keeps the list and its walk's state.
type mentionPart struct {
	*studio
	ignore      *afiles.Ignore // the tree's
	list        []string       // nil until a walk came back
	wanted      bool           // a tab asked: keep the list fresh from now on
	busy, again bool
	errSaid     string
}

// load walks the paths in a command, unless a walk is in flight.
func (mp *mentionPart) load() tea.Cmd {
	mp.wanted = true
	if mp.busy {
		return nil
	}
	mp.busy = true
	src, ig := mp.opts.Files, mp.ignore
	return func() tea.Msg {
		paths, err := walkPaths(src, ig)
		return pathsMsg{paths: paths, err: err}
	}
}

// loaded keeps the walk's list and gives it to the session tabs.
func (mp *mentionPart) loaded(msg pathsMsg) tea.Cmd {
	mp.busy = false
	if msg.err != nil {
		if mp.errSaid != msg.err.Error() {
			mp.errSaid = msg.err.Error()
			mp.act.log("", "the paths to complete could not be read: "+msg.err.Error(), themes.ToneWarning)
		}
	} else {
		mp.errSaid = ""
		mp.list = msg.paths
		for _, t := range mp.tabs.sessions() {
			t.SetPaths(mp.list)
		}
	}
	if mp.again {
		mp.again = false
		return mp.load()
	}
	return nil
}

// changed walks again after a batch that adds or removes a path, once a
// tab has asked for the list.
func (mp *mentionPart) changed(batch files.Changes) tea.Cmd {
	if !mp.wanted {
		return nil
	}
	for _, c := range batch {
		if c.Kind == afiles.Created || c.Kind == afiles.Deleted || c.Kind == afiles.Renamed {
			if mp.busy {
				mp.again = true // the walk in flight may have missed it
				return nil
			}
			return mp.load()
		}
	}
	return nil
}

// walkPaths lists the workspace's files and folders (folders ending in
// "/"), breadth first, without what the ignore rules ignore (each
// folder's .gitignore read as the walk reaches it, as the tree does) and
// never inside .git.
func walkPaths(src attach.Files, ig *afiles.Ignore) ([]string, error) {
	out := []string{}
	queue := []string{""}
	for len(queue) > 0 && len(out) < maxMentionPaths {
		dir := queue[0]
		queue = queue[1:]
		if err := ig.Load(src, dir); err != nil {
			return nil, err
		}
		entries, err := src.ReadDir(dir)
		if err != nil {
			if dir == "" {
				return nil, err
			}
			continue // a folder gone or unreadable since it was listed
		}
		for _, e := range entries {
			p := e.Path
			if p == "" {
				p = path.Join(dir, e.Name)
			}
			isDir := e.Kind == afiles.KindDir
			if e.Name == ".git" || ig.Match(p, isDir) {
				continue
			}
			if isDir {
				out = append(out, p+"/")
				queue = append(queue, p)
			} else {
				out = append(out, p)
			}
			if len(out) == maxMentionPaths {
				break
			}
		}
	}
	return out, nil
}
