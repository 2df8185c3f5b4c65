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

// indexStateName is the file under .state/git that vouches for the
// workspace's index: "<base> <head>\n" says the index holds exactly the
// tree of commit base and the workspace branch was at head when it was
// written. A turn's fast commit (see fastturn.go) builds its tree from the
// branch's last tree without touching the 20,000-entry index, so it leaves
// the index at base and only moves head; the next operation that uses the
// index brings it up to head first (syncIndex), for the cost of the paths
// that changed in between. Without the file nothing is vouched for: the
// fast path is not taken until a commit made from the index writes it again.
const indexStateName = "atelier-index-state"

// indexState is what indexStateName holds; the zero value vouches for
// nothing.
type indexState struct {
	base, head string
}

func (h *History) indexStatePath() string {
	return filepath.Join(h.git.gitDir, indexStateName)
}

// ownsIndexState reports whether this History keeps the index state file:
// the workspace's history only (an instance's index is its own, and its
// turns never take the fast path).
func (h *History) ownsIndexState() bool { return h.parent == nil }

// readIndexState returns the vouched state, or the zero value when there
// is none or the file is not one we wrote (then it vouches for nothing).
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
		return indexState{}, nil
	}
	return indexState{base: f[0], head: f[1]}, nil
}

// writeIndexState vouches that the index holds base's tree and the branch
// is at head.
func (h *History) writeIndexState(s indexState) error {
	if err := writeAtomic(h.indexStatePath(), []byte(s.base+" "+s.head+"\n")); err != nil {
		return fmt.Errorf("write index state: %w", err)
	}
	return nil
}

// forgetIndexState withdraws the vouching before the index is changed by
// anything but a commit of it (a staging that may fail half way, dropped
// secrets, a restore), so a fast commit never builds on a tree the index
// has left. The caller holds the lock.
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
// behind: the entries that differ between the tree it holds and head's are
// written into it (their cached file times are lost, so the next scan
// hashes those few files again). head is the branch's tip, or "" to look
// it up when the state says the index is behind. Should the state name a
// commit git no longer has, the index is read afresh from head's tree:
// slower for the next scan (every file is hashed again), never wrong. The
// caller holds the lock.
func (h *History) syncIndex(ctx context.Context, head string) error {
	if !h.ownsIndexState() {
		return nil
	}
	s, err := h.readIndexState()
	if err != nil || s.base == "" {
		return err
	}
	if head == "" {
		if s.base == s.head {
			return nil // in step: the common case costs no git at all
		}
		if head, err = h.head(ctx); err != nil {
			return err
		}
	}
	if head == "" {
		return h.forgetIndexState()
	}
	if s.base == head {
		if s.head != head {
			return h.writeIndexState(indexState{base: head, head: head})
		}
		return nil
	}
	if err := h.forgetIndexState(); err != nil {
		return err
	}
	var info []byte
	out, err := h.git.run(ctx, call{}, "diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", s.base, head)
	if err == nil {
		info, err = indexInfo(out)
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
