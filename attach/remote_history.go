package attach

import (
	"context"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/sessions/history"
)

// remoteHistory reads the workspace's history through the host's history
// routes: the studio on another machine has no copy of it.
type remoteHistory struct{ h *client.History }

// historyPage is how many commits one request of Log asks for.
const historyPage = 200

// Log lists a session's commits, newest first, page by page.
func (r remoteHistory) Log(ctx context.Context, sessionID string) ([]history.Commit, error) {
	var out []history.Commit
	before := ""
	for {
		p, err := r.h.Commits(ctx, client.CommitQuery{Session: sessionID, Before: before, Limit: historyPage})
		if err != nil {
			return nil, Err(err)
		}
		for _, c := range p.Commits {
			out = append(out, commitOf(c))
		}
		if !p.More || p.Next == "" {
			return out, nil
		}
		before = p.Next
	}
}

func (r remoteHistory) Changes(ctx context.Context, hash string) ([]history.FileChange, error) {
	d, err := r.h.Commit(ctx, hash)
	if err != nil {
		return nil, Err(err)
	}
	out := make([]history.FileChange, 0, len(d.Files))
	for _, f := range d.Files {
		out = append(out, history.FileChange{Path: f.Path, OldPath: f.OldPath, Status: history.Status(f.Status),
			Additions: f.Additions, Deletions: f.Deletions, Binary: f.Binary})
	}
	return out, nil
}

func (r remoteHistory) Diff(ctx context.Context, hash string, paths ...string) (string, error) {
	d, err := r.h.Diff(ctx, hash, paths...)
	return d, Err(err)
}

func (r remoteHistory) Blame(ctx context.Context, path string) (history.Commit, error) {
	b, err := r.h.Blame(ctx, path)
	if err != nil {
		return history.Commit{}, Err(err)
	}
	return commitOf(b.Commit), nil
}

func (r remoteHistory) PreviewRestore(ctx context.Context, hash string, paths []string) (history.RestorePreview, error) {
	p, err := r.h.PreviewRestore(ctx, client.RestorePreviewRequest{Commit: hash, Paths: paths})
	if err != nil {
		return history.RestorePreview{}, Err(err)
	}
	out := history.RestorePreview{Target: commitOf(p.Target), Files: make([]history.RestoreFile, 0, len(p.Files))}
	for _, f := range p.Files {
		out.Files = append(out.Files, history.RestoreFile{Path: f.Path, Action: history.Action(f.Action),
			UserChanged: f.UserChanged, ChangedBy: f.ChangedBy, Blocked: f.Blocked})
	}
	return out, nil
}

// commitOf is a commit of the API as the history's.
func commitOf(c client.Commit) history.Commit {
	out := history.Commit{Hash: c.Hash, Parent: c.Parent, SessionID: c.SessionID, Turn: c.Turn, Summary: c.Summary,
		Time: c.Time, Kind: history.Kind(c.Kind), RestoredFrom: c.RestoredFrom}
	for _, s := range c.Skipped {
		out.Skipped = append(out.Skipped, history.SkippedFile{Path: s.Path, Size: s.Size, Reason: s.Reason})
	}
	return out
}
