package client

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Codes of the problems the history routes report (see the note on the
// files codes).
const (
	// CodeUnknownCommit: a commit hash (or prefix) names no commit of the
	// workspace's history: 404.
	CodeUnknownCommit = "unknown_commit"
	// CodeNotInHistory: the history never recorded the path: 404.
	CodeNotInHistory = "not_in_history"
	// CodeNothingToRestore: the files already match the commit: 409.
	CodeNothingToRestore = "nothing_to_restore"
	// CodeHistoryMoved: a restore's Head is no longer the history's newest
	// commit: what was previewed may not be what would be done: 409.
	CodeHistoryMoved = "history_moved"
	// CodeHistoryUnavailable: the workspace runs without a history (no
	// usable git, a read-only state): 503.
	CodeHistoryUnavailable = "history_unavailable"
	// CodeDiffTooLarge: a diff over the size one answer holds; ask for
	// fewer paths: 413.
	CodeDiffTooLarge = "diff_too_large"
)

// Commit is one commit of the workspace's history: a session's turn, a
// restore, or a snapshot of edits made outside any turn.
type Commit struct {
	Hash   string `json:"hash"`
	Parent string `json:"parent,omitempty"`
	// Kind is turn, restore or snapshot.
	Kind      string    `json:"kind"`
	SessionID string    `json:"session_id,omitempty"`
	Turn      int       `json:"turn,omitempty"`
	Summary   string    `json:"summary"`
	Time      time.Time `json:"time"`
	// RestoredFrom is the commit a restore went back to.
	RestoredFrom string `json:"restored_from,omitempty"`
	// Skipped lists files left out of the commit: over the size limit, or
	// unreadable (with a reason).
	Skipped []SkippedFile `json:"skipped,omitempty"`
}

// SkippedFile is a file a commit left out.
type SkippedFile struct {
	Path   string `json:"path"`
	Size   int64  `json:"size,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// FileChange is one workspace file a commit changed against its parent.
type FileChange struct {
	Path    string `json:"path"`
	OldPath string `json:"old_path,omitempty"`
	// Status is added, modified, deleted or renamed.
	Status    string `json:"status"`
	Additions int    `json:"additions"`
	Deletions int    `json:"deletions"`
	Binary    bool   `json:"binary,omitempty"`
}

// CommitPage is a page of the history, newest first. More says older
// commits match; Next is the cursor (the before) of the next page.
type CommitPage struct {
	Commits []Commit `json:"commits"`
	More    bool     `json:"more"`
	Next    string   `json:"next,omitempty"`
}

// CommitDetail is a commit with the files it changed.
type CommitDetail struct {
	Commit
	Files []FileChange `json:"files"`
}

// CommitQuery selects a page of the history: the commits of one session,
// those that changed a path (a file, or anything under a folder), older
// than the commit Before; Limit 0 takes the server's default.
type CommitQuery struct {
	Session string
	Path    string
	Before  string
	Limit   int
}

// Blame names the commit that last changed a path.
type Blame struct {
	Path   string `json:"path"`
	Commit Commit `json:"commit"`
}

// RestorePreviewRequest is the body of restore/preview: put Paths (every
// recorded file when empty) back as they were after Commit.
type RestorePreviewRequest struct {
	Commit string   `json:"commit"`
	Paths  []string `json:"paths,omitempty"`
}

// RestoreRequest is the body of restore. Head, when set, is the Head of
// the preview the caller saw: the restore is refused (CodeHistoryMoved) if
// commits were made since. Session is the session the restore is made for
// ("" for the operator).
type RestoreRequest struct {
	Commit  string   `json:"commit"`
	Paths   []string `json:"paths,omitempty"`
	Head    string   `json:"head,omitempty"`
	Session string   `json:"session,omitempty"`
}

// RestoreFile is one file a restore would change.
type RestoreFile struct {
	Path string `json:"path"`
	// Action is modify, create or delete.
	Action string `json:"action"`
	// UserChanged says it was changed outside any turn since the target;
	// the restore records such edits in a snapshot first.
	UserChanged bool `json:"user_changed,omitempty"`
	// ChangedBy lists the other sessions whose later commits touched it.
	ChangedBy []string `json:"changed_by,omitempty"`
	// Blocked says why the restore leaves the file alone, if it does.
	Blocked string `json:"blocked,omitempty"`
}

// RestorePreview is what a restore would do, computed without changing
// anything. Head is the history's newest commit it was computed at.
type RestorePreview struct {
	Target Commit        `json:"target"`
	Head   string        `json:"head"`
	Files  []RestoreFile `json:"files"`
}

// History is the history of one workspace instance ("main" is the
// workspace itself).
type History struct {
	c    *Client
	base string
}

// History returns the history of an instance ("main" for the workspace).
func (c *Client) History(instance string) *History {
	return &History{c: c, base: "/v1/instances/" + url.PathEscape(instance) + "/history/"}
}

// Commits returns a page of the history, newest first.
func (h *History) Commits(ctx context.Context, cq CommitQuery) (CommitPage, error) {
	q := url.Values{}
	for k, v := range map[string]string{"session": cq.Session, "path": cq.Path, "before": cq.Before} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if cq.Limit > 0 {
		q.Set("limit", strconv.Itoa(cq.Limit))
	}
	p := h.base + "commits"
	if len(q) > 0 {
		p += "?" + q.Encode()
	}
	var page CommitPage
	return page, h.c.do(ctx, http.MethodGet, p, nil, &page)
}

// Commit returns one commit and the files it changed.
func (h *History) Commit(ctx context.Context, hash string) (CommitDetail, error) {
	var d CommitDetail
	return d, h.c.do(ctx, http.MethodGet, h.base+"commits/"+url.PathEscape(hash), nil, &d)
}

// Diff returns the unified diff of a commit against its parent, of the
// files under paths (all of them when none is given).
func (h *History) Diff(ctx context.Context, hash string, paths ...string) (string, error) {
	p := h.base + "commits/" + url.PathEscape(hash) + "/diff"
	if len(paths) > 0 {
		p += "?" + url.Values{"path": paths}.Encode()
	}
	resp, err := h.c.send(ctx, http.MethodGet, p, nil, nil)
	if err != nil {
		return "", err
	}
	defer func() { _ = resp.Body.Close() }() // a read error below says what went wrong
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", fmt.Errorf("diff of %s: %w", hash, err)
	}
	return string(b), nil
}

// Blame returns the commit that last changed path.
func (h *History) Blame(ctx context.Context, path string) (Blame, error) {
	var b Blame
	return b, h.c.do(ctx, http.MethodGet, h.base+"blame?"+url.Values{"path": {path}}.Encode(), nil, &b)
}

// PreviewRestore says what restoring would change, changing nothing.
func (h *History) PreviewRestore(ctx context.Context, r RestorePreviewRequest) (RestorePreview, error) {
	var p RestorePreview
	return p, h.c.do(ctx, http.MethodPost, h.base+"restore/preview", r, &p)
}

// Restore puts files back as they were after a commit and returns the new
// commit that records it; restoring that commit's parent undoes it.
func (h *History) Restore(ctx context.Context, r RestoreRequest) (Commit, error) {
	var c Commit
	return c, h.c.do(ctx, http.MethodPost, h.base+"restore", r, &c)
}
