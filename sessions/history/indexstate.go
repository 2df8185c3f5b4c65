package history

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// indexStateName is the file under .state/git that says which tree the
// workspace's index holds: "<base> <head>\n". base is the commit whose tree
// the index holds exactly; head equal to base says the index is in step
// with the branch. A turn's fast commit (see fastturn.go) builds its tree
// from the branch's last tree without touching the 20,000-entry index, so
// before its first such commit it records head as zeros ("the branch may
// have moved on") and from then on leaves the index at base; the next
// operation that uses the index brings it up to the branch first
// (syncIndex), for the cost of the paths that changed in between.
//
// No file is what an index kept by staging alone looks like (a history
// from before this file, or one whose index was changed since): nothing to
// catch up, and no fast commit until a commit of the index writes the file
// again. A file we cannot read as ours (cut short by a crash) says the
// index may be behind an unknown base: it is read afresh from the branch.
const indexStateName = "atelier-index-state"

// indexState is what indexStateName holds. bad marks a file that is there
// but unreadable as ours; the zero value, a missing file.
type indexState struct {
	base, head string
	bad        bool
}

// behind reports whether the index may be behind the branch.
func (s indexState) behind() bool { return s.bad || (s.base != "" && s.base != s.head) }

func (h *History) indexStatePath() string {
	return filepath.Join(h.git.gitDir, indexStateName)
}

// ownsIndexState reports whether this History keeps the index state file:
// the workspace's history only (an instance's index is its own, and its
// turns never take the fast path).
func (h *History) ownsIndexState() bool { return h.parent == nil }

// readIndexState returns the recorded state (see indexStateName).
func (h *History) readIndexState() (indexState, error) {
	b, err := os.ReadFile(h.indexStatePath())
	if errors.Is(err, os.ErrNotExist) {
		return indexState{}, nil
	}
	if err != nil {
		return indexState{}, fmt.Errorf("read index state: %w", err)
	}
	f := strings.Fields(string(b))
	if len(f) != 2 || !fullHash(f[0]) || !fullHash(f[1]) {
		return indexState{bad: true}, nil
	}
	return indexState{base: f[0], head: f[1]}, nil
}

// writeIndexState records s, durably (unless the file holds it already):
// a fast commit relies on it to find the index's tree again after a crash.
func (h *History) writeIndexState(s indexState) error {
	if err := writeIfDifferent(h.indexStatePath(), []byte(s.base+" "+s.head+"\n")); err != nil {
		return fmt.Errorf("write index state: %w", err)
	}
	return nil
}

// forgetIndexState removes the state before the index is changed by
// anything but a commit of it (a staging that may fail half way, dropped
// secrets, a restore), so a fast commit never builds on a tree the index
// has left. The index is in step then (acquire synced it). The caller
// holds the lock.
func (h *History) forgetIndexState() error {
	if !h.ownsIndexState() {
		return nil
	}
	if err := os.Remove(h.indexStatePath()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("forget index state: %w", err)
	}
	return nil
}

// syncIndex brings the index up to the branch after fast commits left it
// behind: the entries that differ between the tree it holds and the
// branch's are written into it (their cached file times are lost, so the
// next scan hashes those few files again). An index in step costs no git
// at all. Should the state be unreadable or name a commit git no longer
// has, the index is read afresh from the branch's tree: slower for the
// next scan (every file is hashed again), never wrong. Each step can be
// repeated, so a crash part way leaves a state the next sync finishes.
// The caller holds the lock.
func (h *History) syncIndex(ctx context.Context) error {
	if !h.ownsIndexState() {
		return nil
	}
	s, err := h.readIndexState()
	if err != nil || !s.behind() {
		return err
	}
	head, err := h.head(ctx)
	if err != nil {
		return err
	}
	if head == "" {
		return h.forgetIndexState()
	}
	if !s.bad && s.base == head {
		return h.writeIndexState(indexState{base: head, head: head})
	}
	var info []byte
	err = errors.New("unreadable index state")
	if !s.bad {
		var out []byte
		out, err = h.git.run(ctx, call{}, "diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", s.base, head)
		if err == nil {
			info, err = indexInfo(out)
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("sync index: %w", err)
		}
		if _, err := h.git.run(ctx, call{locked: true}, "read-tree", head); err != nil {
			return fmt.Errorf("sync index: %w", err)
		}
	} else if len(info) > 0 {
		if _, err := h.git.run(ctx, call{locked: true, stdin: info}, "update-index", "--add", "--replace", "-z", "--index-info"); err != nil {
			return fmt.Errorf("sync index: %w", err)
		}
	}
	return h.writeIndexState(indexState{base: head, head: head})
}

// indexInfo turns `diff-tree -r -z` raw output into `update-index
// --index-info -z` input: each path's new mode and object, or mode 0 for
// a path that is gone. Removals come first, so a file replaced by a folder
// (or the reverse) never meets itself.
func indexInfo(raw []byte) ([]byte, error) {
	f := splitNul(raw)
	var gone, set bytes.Buffer
	for i := 0; i+1 < len(f); i += 2 {
		meta := strings.Fields(strings.TrimPrefix(f[i], ":"))
		if len(meta) != 5 {
			return nil, fmt.Errorf("unexpected diff-tree line %q", f[i])
		}
		mode, hash, status, path := meta[1], meta[3], meta[4], f[i+1]
		if status == "D" {
			fmt.Fprintf(&gone, "0 %s\t%s\x00", strings.Repeat("0", len(hash)), path)
			continue
		}
		fmt.Fprintf(&set, "%s %s\t%s\x00", mode, hash, path)
	}
	if len(f)%2 != 0 {
		return nil, fmt.Errorf("truncated diff-tree output")
	}
	return append(gone.Bytes(), set.Bytes()...), nil
}

// fullHash reports whether s is a whole object name, never abbreviated.
func fullHash(s string) bool {
	return (len(s) == 40 || len(s) == 64) && isHash(s)
}
