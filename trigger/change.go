package trigger

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/files"
)

// pendingChange is a matching change an on_change trigger holds until the
// workspace stays still: its path and who made it.
type pendingChange struct {
	path, by string
}

// runChanges feeds the watcher's batches to the change triggers, each of
// which fires once the workspace has been still for the debounce since its
// last matching change.
func (r *Runner) runChanges(ts []config.Trigger) {
	defer r.wg.Done()
	pending := make([][]pendingChange, len(ts))
	due := make([]time.Time, len(ts))
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	rearm := func() {
		var first time.Time
		for _, d := range due {
			if !d.IsZero() && (first.IsZero() || d.Before(first)) {
				first = d
			}
		}
		timer.Stop()
		if !first.IsZero() {
			timer.Reset(time.Until(first))
		}
	}
	for {
		select {
		case <-r.ctx.Done():
			return
		case batch, ok := <-r.watch.Events():
			if !ok {
				return
			}
			for i, t := range ts {
				if m := r.matching(t, batch); len(m) > 0 {
					pending[i] = append(pending[i], m...)
					due[i] = time.Now().Add(r.opts.Debounce)
				}
			}
		case <-timer.C:
			now := time.Now()
			for i, t := range ts {
				if due[i].IsZero() || due[i].After(now) {
					continue
				}
				batch := pending[i]
				pending[i], due[i] = nil, time.Time{}
				r.fireChanges(t, batch)
			}
		}
		rearm()
	}
}

// matching returns the changes of batch that t's glob matches, leaving
// out the sessions t started (their changes must not fire it again).
func (r *Runner) matching(t config.Trigger, batch []files.Change) []pendingChange {
	var out []pendingChange
	for _, c := range batch {
		if c.Kind == files.Notice || c.IsDir || r.owns(t.Name, c.By) {
			continue
		}
		for _, p := range []string{c.Path, c.OldPath} {
			if ok, _ := doublestar.Match(t.OnChange, p); ok && p != "" {
				out = append(out, pendingChange{path: p, by: c.By})
				break
			}
		}
	}
	return out
}

// fireChanges fires t with a batch of changed paths. The owner check is
// made again: a session t started may have changed a file before its
// create returned. The firing's id is the batch's content and time.
func (r *Runner) fireChanges(t config.Trigger, batch []pendingChange) {
	var paths []string
	for _, c := range batch {
		if !r.owns(t.Name, c.by) {
			paths = append(paths, c.path)
		}
	}
	slices.Sort(paths)
	paths = slices.Compact(paths)
	if len(paths) == 0 {
		return
	}
	now := time.Now().UTC()
	sum := sha256.Sum256([]byte(strings.Join(paths, "\n") + "\n" + now.Format(time.RFC3339Nano)))
	cause := fmt.Sprintf("%d change(s): %s", len(paths), clip(strings.Join(paths, ", ")))
	changed := make([]any, len(paths))
	for i, p := range paths {
		changed[i] = p
	}
	r.fire(t, firing{id: t.Name + "@change/" + now.Format("20060102T150405.000000000Z") + "-" + hex.EncodeToString(sum[:6]),
		cause: cause, data: map[string]any{"changed": changed}})
}
