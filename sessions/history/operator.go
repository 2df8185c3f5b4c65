package history

import (
	"context"
	"fmt"
	"strings"
)

// KindOperator records changes the operator made outside any turn (an edit
// in a shell or the studio's editor), committed before a turn starts so
// that the turn's commit, blame and restore previews never credit an agent
// with them. Its author is "operator" and it names no session.
const KindOperator Kind = "operator"

// operatorName is the author of operator commits.
const operatorName = "operator"

// OperatorCommit records every change in the workspace since the last
// commit, except under the paths in exclude (files other sessions' open
// turns wrote: their turns will commit them), as one operator commit. made
// is false, and the last commit is returned, when nothing changed.
func (h *History) OperatorCommit(ctx context.Context, exclude []string) (c Commit, made bool, err error) {
	release, err := h.acquire(ctx)
	if err != nil {
		return Commit{}, false, fmt.Errorf("operator commit: %w", err)
	}
	defer release()
	entries, err := h.status(ctx, "", nil)
	if err != nil {
		return Commit{}, false, fmt.Errorf("operator commit: %w", err)
	}
	kept := entries[:0]
	for _, en := range entries {
		if !underAny(en.path, exclude) {
			kept = append(kept, en)
		}
	}
	p := h.classify(kept)
	if len(p.update) == 0 && len(p.drop) == 0 {
		last, err := h.head(ctx)
		if err != nil || last == "" {
			return Commit{}, false, err
		}
		c, err := h.commit(ctx, last)
		return c, false, err
	}
	if err := h.apply(ctx, "", p, nil); err != nil {
		return Commit{}, false, fmt.Errorf("operator commit: %w", err)
	}
	before, err := h.head(ctx)
	if err != nil {
		return Commit{}, false, fmt.Errorf("operator commit: %w", err)
	}
	c = Commit{Summary: "changes made outside any turn", Kind: KindOperator, Skipped: p.skipped}
	if c, err = h.commitIndex(ctx, c, false); err != nil {
		return Commit{}, false, fmt.Errorf("operator commit: %w", err)
	}
	return c, c.Hash != before, nil
}

// underAny reports whether rel is one of paths or lies under one of them.
func underAny(rel string, paths []string) bool {
	for _, p := range paths {
		p = strings.TrimSuffix(p, "/")
		if rel == p || strings.HasPrefix(rel, p+"/") {
			return true
		}
	}
	return false
}
