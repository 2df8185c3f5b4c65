package attach

import (
	"context"

	"github.com/atelier-studio/atelier/files"
	"github.com/atelier-studio/atelier/sessions/history"
)

// Files is the workspace's files as the studio browses them: the tree's
// folders, the editor's reads, downloads to this machine, and the changes
// as they happen. Writes are not here: they go through the Engine
// (SaveFile, FileOp), under the workspace's write lease. LocalFiles is a
// workspace on this machine; RemoteFiles one that another machine's
// engine serves, read through its API.
type Files interface {
	files.TreeSource
	// Download copies a file or a folder of the workspace to host, a path
	// on this machine where nothing is yet.
	Download(actor, p, host string) (files.CopyStats, error)
	// Watch follows the workspace's changes until the watch is closed; ig
	// is given the .gitignore files that change (the tree shares it).
	Watch(ig *files.Ignore) (Watch, error)
}

// Watch delivers batches of the workspace's changes (files.Watcher is
// one). Events is closed after Close.
type Watch interface {
	Events() <-chan []files.Change
	Close() error
}

// LocalFiles is a workspace on this machine, watched by a files.Watcher.
func LocalFiles(ws *files.Workspace) Files { return localFiles{ws} }

type localFiles struct{ *files.Workspace }

func (l localFiles) Watch(ig *files.Ignore) (Watch, error) {
	return files.NewWatcher(l.Workspace, files.WatcherOptions{Ignore: ig})
}

// History is the workspace's history as the studio reads it: a session's
// commits, the files a commit changed, a commit's diff, the blame of a
// path, and what a restore would do. *history.History is one, on this
// machine; a remote engine's is read through its API. A restore is made
// through the Engine (Restore), under the workspace's write lease.
type History interface {
	Log(ctx context.Context, sessionID string) ([]history.Commit, error)
	Changes(ctx context.Context, hash string) ([]history.FileChange, error)
	Diff(ctx context.Context, hash string, paths ...string) (string, error)
	Blame(ctx context.Context, path string) (history.Commit, error)
	PreviewRestore(ctx context.Context, hash string, paths []string) (history.RestorePreview, error)
}

var _ History = (*history.History)(nil)
