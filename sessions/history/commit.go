package history

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// TurnCommit describes the end of one agent turn.
type TurnCommit struct {
	SessionID string
	Turn      int
	// Summary is one line saying what the turn did; folded to one line.
	Summary string
	// Changed lists the paths known to have changed during the turn (from
	// the watcher and the tools), relative to the workspace or absolute
	// inside it; directories stand for everything under them. nil means
	// unknown: the whole workspace is scanned. An empty, non-nil list means
	// no workspace file changed.
	Changed []string
	// Logs are the session's files under .state/ to record with the turn
	// (messages.jsonl, turns.jsonl...). They are added although .state/ is
	// otherwise left out; one that no longer exists is dropped.
	Logs []string
}

// CommitTurn records the workspace at the end of a turn as one commit on the
// history, even when nothing changed. It stages only the known changed
// paths (or scans everything when they are unknown) under the rules of what
// the history records, plus the session's logs. A known list is committed
// without the index when it can be (see fastTurn): a few files' cost, not
// the workspace's.
func (h *History) CommitTurn(ctx context.Context, tc TurnCommit) (Commit, error) {
	if !validSessionID(tc.SessionID) {
		return Commit{}, fmt.Errorf("commit turn: session id %q: %w", tc.SessionID, ErrBadInput)
	}
	if tc.Turn < 0 {
		return Commit{}, fmt.Errorf("commit turn %d of %s: negative turn: %w", tc.Turn, tc.SessionID, ErrBadInput)
	}
	known, err := h.knownPaths(tc.Changed)
	if err != nil {
		return Commit{}, fmt.Errorf("commit turn %d of %s: %w", tc.Turn, tc.SessionID, err)
	}
	logs, err := h.logPaths(tc.Logs)
	if err != nil {
		return Commit{}, fmt.Errorf("commit turn %d of %s: %w", tc.Turn, tc.SessionID, err)
	}
	summary := oneLine(tc.Summary)
	if summary == "" {
		summary = "(no summary)"
	}
	c := Commit{SessionID: tc.SessionID, Turn: tc.Turn, Summary: summary, Kind: KindTurn}
	// A known list may skip the index (see fastTurn); the lock is then
	// taken without bringing the index up to date, which the staging
	// path does itself if the fast one declines.
	fast := known != nil && len(known) <= maxKnownPaths && h.ownsIndexState()
	release, err := h.lock(ctx, !fast)
	if err != nil {
		return Commit{}, fmt.Errorf("commit turn %d of %s: %w", tc.Turn, tc.SessionID, err)
	}
	defer release()
	if fast {
		fc, err := h.fastTurn(ctx, c, known, logs)
		if err == nil {
			return fc, nil
		}
		if !errors.Is(err, errSlowPath) {
			return Commit{}, fmt.Errorf("commit turn %d of %s: %w", tc.Turn, tc.SessionID, err)
		}
		if err := h.syncIndex(ctx); err != nil {
			return Commit{}, fmt.Errorf("commit turn %d of %s: %w", tc.Turn, tc.SessionID, err)
		}
	}
	skipped, err := h.stage(ctx, "", known, logs)
	if err != nil {
		return Commit{}, fmt.Errorf("commit turn %d of %s: %w", tc.Turn, tc.SessionID, err)
	}
	c.Skipped = skipped
	if c, err = h.commitIndex(ctx, c, true); err != nil {
		return Commit{}, fmt.Errorf("commit turn %d of %s: %w", tc.Turn, tc.SessionID, err)
	}
	return c, nil
}

// Snapshot records every change in the workspace since the last commit as a
// commit of its own (KindSnapshot), for changes made outside any turn. It
// makes no commit and returns the last one when nothing changed.
func (h *History) Snapshot(ctx context.Context, summary string) (Commit, error) {
	release, err := h.acquire(ctx)
	if err != nil {
		return Commit{}, fmt.Errorf("snapshot: %w", err)
	}
	defer release()
	c, _, err := h.snapshotLocked(ctx, summary)
	if err != nil {
		return Commit{}, fmt.Errorf("snapshot: %w", err)
	}
	return c, nil
}

// snapshotLocked is Snapshot for a caller that holds the lock; made reports
// whether a new commit was written.
func (h *History) snapshotLocked(ctx context.Context, summary string) (c Commit, made bool, err error) {
	skipped, err := h.stage(ctx, "", nil, nil)
	if err != nil {
		return Commit{}, false, err
	}
	summary = oneLine(summary)
	if summary == "" {
		summary = "changes made outside any turn"
	}
	c = Commit{Summary: summary, Kind: KindSnapshot, Skipped: skipped}
	before, err := h.head(ctx)
	if err != nil {
		return Commit{}, false, err
	}
	c, err = h.commitIndex(ctx, c, false)
	if err != nil {
		return Commit{}, false, err
	}
	return c, c.Hash != before, nil
}

// commitIndex writes the index as a tree and commits it on our chain with
// its tip as parent (an instance's first commit: the workspace branch's
// tip). Unless allowEmpty, an unchanged tree makes no commit and the tip is
// returned (an empty history gets a commit anyway). The caller holds the
// lock.
func (h *History) commitIndex(ctx context.Context, c Commit, allowEmpty bool) (Commit, error) {
	out, err := h.git.run(ctx, call{locked: true}, "write-tree")
	if err != nil {
		return Commit{}, fmt.Errorf("write tree: %w", err)
	}
	tree := strings.TrimSpace(string(out))
	own, err := h.head(ctx)
	if err != nil {
		return Commit{}, err
	}
	parent := own
	if parent == "" && h.parent != nil {
		if parent, err = h.parent.head(ctx); err != nil {
			return Commit{}, err
		}
		allowEmpty = true // the instance's chain must begin
	}
	if h.instance != "" {
		c.Instance = h.instance
	}
	if parent != "" && !allowEmpty {
		out, err := h.git.run(ctx, call{}, "rev-parse", parent+"^{tree}")
		if err != nil {
			return Commit{}, fmt.Errorf("read last tree: %w", err)
		}
		if strings.TrimSpace(string(out)) == tree {
			if err := h.vouchIndex(parent); err != nil {
				return Commit{}, err
			}
			return h.commit(ctx, parent)
		}
	}
	now := time.Now().Truncate(time.Second)
	date := "@" + strconv.FormatInt(now.Unix(), 10) + " +0000"
	args := []string{"commit-tree", tree}
	if parent != "" {
		args = append(args, "-p", parent)
	}
	c.Parent = parent
	c.Time = now
	extra := []string{"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date}
	if c.Kind == KindOperator {
		extra = append(extra, "GIT_AUTHOR_NAME="+operatorName)
	}
	out, err = h.git.run(ctx, call{locked: true, stdin: []byte(message(c)), extra: extra}, args...)
	if err != nil {
		return Commit{}, fmt.Errorf("commit tree: %w", err)
	}
	c.Hash = strings.TrimSpace(string(out))
	old := own
	if old == "" {
		old = strings.Repeat("0", len(c.Hash))
	}
	if _, err := h.git.run(ctx, call{locked: true}, "update-ref", "-m", string(c.Kind), h.ref, c.Hash, old); err != nil {
		return Commit{}, fmt.Errorf("advance history: %w", err)
	}
	if err := h.vouchIndex(c.Hash); err != nil {
		return Commit{}, err
	}
	if h.commits.Add(1)%gcEvery == 0 {
		// Packing is housekeeping: a failure must not fail the turn.
		_, _ = h.git.run(ctx, call{locked: true}, "gc", "--auto", "--quiet")
	}
	return c, nil
}

// vouchIndex records that the index holds the tree of commit, the
// branch's new tip, so the next turn may commit without reading it.
func (h *History) vouchIndex(commit string) error {
	if !h.ownsIndexState() {
		return nil
	}
	return h.writeIndexState(indexState{base: commit, head: commit})
}
