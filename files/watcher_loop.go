package files

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// loop owns the watcher's state: it turns fsnotify events into pending
// changes, flushes them as batches, rescans and polls.
func (w *Watcher) loop() {
	defer close(w.stopped)
	defer close(w.out)
	defer func() { closeWatches(w.fsw) }()
	w.fillStats()
	close(w.statsDone)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	armed := false
	var ticker *time.Ticker
	defer func() {
		if ticker != nil {
			ticker.Stop()
		}
	}()
	for {
		var poll <-chan time.Time
		if w.polling {
			if ticker == nil {
				ticker = time.NewTicker(w.opt.PollInterval)
			}
			poll = ticker.C
		}
		var events chan fsnotify.Event
		var errs chan error
		if !w.polling && w.fsw != nil {
			events, errs = w.fsw.Events, w.fsw.Errors
		}
		var out chan []Change
		if len(w.ready) > 0 {
			out = w.out
		}
		if len(w.pending) > 0 && !armed {
			timer.Reset(time.Until(w.deadline()))
			armed = true
		}
		select {
		case <-w.done:
			return
		case ev, ok := <-events:
			if ok && !w.dropping.Load() {
				w.handle(ev)
			}
		case err, ok := <-errs:
			if ok {
				w.handleErr(err)
			}
		case err := <-w.inject:
			w.handleErr(err)
		case <-timer.C:
			armed = false
			if !time.Now().Before(w.deadline()) {
				w.flush()
			}
		case <-poll:
			w.rescan("")
		case out <- w.ready:
			w.ready = nil
		}
	}
}

// fillStats records the size and time of every file the initial walk found
// (it did not stat them, to be quick), so a rescan after an overflow can
// tell exactly which files changed. Events that arrive meanwhile wait in the
// queue and are applied after.
func (w *Watcher) fillStats() {
	for dir, ents := range w.snap {
		for name, e := range ents {
			if e.dir || e.known {
				continue
			}
			fi, err := os.Lstat(w.abs(joinRel(dir, name)))
			if err != nil {
				continue
			}
			e.known, e.size, e.mtime = true, fi.Size(), fi.ModTime().UnixNano()
			ents[name] = e
		}
	}
}

// deadline is when the pending batch must go out: after a quiet window, and
// no later than MaxDelay after its first change.
func (w *Watcher) deadline() time.Time {
	d := w.last.Add(w.opt.Quiet)
	if m := w.first.Add(w.opt.MaxDelay); m.Before(d) {
		return m
	}
	return d
}

func (w *Watcher) handleErr(err error) {
	if errors.Is(err, fsnotify.ErrEventOverflow) {
		w.flush()
		w.rescan("the file event queue overflowed: rescanned the workspace")
		return
	}
	if isNoSpace(err) {
		w.flush()
		w.fallBack()
		w.rescan("")
		return
	}
	w.notice("file watcher: %v", err)
}

// handle records one fsnotify event as a pending change, watching new
// folders at once (and reporting what they already hold) and forgetting
// removed ones.
func (w *Watcher) handle(ev fsnotify.Event) {
	if w.barrier != "" && strings.HasPrefix(ev.Name, w.barrier+"/") {
		w.handleBarrier(ev)
		return
	}
	rel, ok := w.rel(ev.Name)
	if !ok || rel == "" {
		return
	}
	now := time.Now()
	renamed := w.renamed
	w.renamed = nil
	base := rel[strings.LastIndexByte(rel, '/')+1:]
	if isDefaultHidden(base) || isTemp(base) {
		return
	}
	if base == ".gitignore" {
		w.loadIgnore(parentOf(rel))
		w.regather = true
	}
	by := w.streamBy(rel, now)
	switch {
	case ev.Has(fsnotify.Create):
		fi, err := os.Lstat(ev.Name)
		if err != nil {
			w.note(rel, by, now)
			return
		}
		if w.ig.MatchEntry(rel, fi.IsDir()) {
			return
		}
		w.note(rel, by, now)
		if renamed != nil {
			w.pending[rel].from = renamed.rel
		}
		if fi.IsDir() {
			w.enter(rel, by, now, renamed == nil)
		}
	case ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename):
		wasDir := w.isDir(rel)
		w.note(rel, by, now)
		if wasDir {
			w.unwatch(rel)
		}
		if ev.Has(fsnotify.Rename) {
			w.renamed = &pendingRename{rel: rel, wasDir: wasDir}
		}
	default: // Write, Chmod
		if _, known := w.entry(rel); known {
			w.note(rel, by, now)
		}
	}
}

// enter watches a folder that appeared and everything in it; report says
// whether its contents are news (a new folder) or came along (a rename).
func (w *Watcher) enter(rel, by string, now time.Time, report bool) {
	if w.polling {
		return
	}
	sub, err := w.walk(rel, true, false)
	if errors.Is(err, errBudget) {
		w.fallBack()
		return
	}
	for dir, ents := range sub {
		w.snap[dir] = ents
		if !report {
			continue
		}
		for name := range ents {
			p := joinRel(dir, name)
			if _, ok := w.pending[p]; !ok {
				w.pending[p] = &pend{by: by}
			}
		}
	}
}

// note adds rel to the pending batch, remembering whether it existed before.
func (w *Watcher) note(rel, by string, now time.Time) {
	p, ok := w.pending[rel]
	if !ok {
		e, existed := w.entry(rel)
		p = &pend{existed: existed, wasDir: e.dir, by: by}
		w.pending[rel] = p
	} else if by != External || p.by == "" {
		p.by = by
	}
	if len(w.pending) == 1 || w.first.IsZero() {
		w.first = now
	}
	w.last = now
}

func (w *Watcher) entry(rel string) (snapEntry, bool) {
	dir, name := parentOf(rel), rel[strings.LastIndexByte(rel, '/')+1:]
	e, ok := w.snap[dir][name]
	return e, ok
}

func (w *Watcher) isDir(rel string) bool {
	e, ok := w.entry(rel)
	return ok && e.dir
}

// streamBy attributes a change seen now: a recorded write first, then the
// scopes open at this point of the event stream (the barrier makes that
// exact), else nobody.
func (w *Watcher) streamBy(rel string, now time.Time) string {
	if by, ok := w.attr.recorded(rel, now); ok {
		return by
	}
	if w.barrier == "" || w.polling {
		return w.attr.Lookup(rel, now)
	}
	var best uint64
	for id := range w.scopes {
		if id > best {
			best = id
		}
	}
	if best > 0 {
		return w.scopes[best]
	}
	return External
}

// setupBarrier watches a private folder outside the workspace. When a scope
// begins or ends, a file is created there before Begin or Release returns;
// the kernel queues that event after every change made before it and before
// every change made after it, so the loop knows exactly which changes fall
// inside the scope however late it reads them. The folder is named for this
// process, so that a later one removes it if this one is killed before
// Close (makeBarrierFolder).
func (w *Watcher) setupBarrier() {
	dir, err := w.makeBarrierFolder()
	if err != nil {
		w.notice("no folder for exact attribution of changes (%v): they are attributed by time", err)
		return
	}
	if err := w.fsw.Add(dir); err != nil {
		_ = os.RemoveAll(dir) // best effort: the folder is empty and unused
		return
	}
	w.barrier = dir
	for id, by := range w.attr.openScopes() {
		w.scopes[id] = by
	}
	w.unlisten = w.attr.listen(func(id uint64, begin bool) {
		flag := 0
		if begin {
			flag = 1
		}
		name := filepath.Join(dir, fmt.Sprintf("b%d-%d", id, flag))
		if f, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600); err == nil {
			// Only the creation matters (its event is the barrier): the
			// file is empty, and one left behind goes with the folder
			// when the watcher closes.
			_ = f.Close()
			_ = os.Remove(name)
		}
	})
}

func (w *Watcher) handleBarrier(ev fsnotify.Event) {
	if !ev.Has(fsnotify.Create) {
		return
	}
	var id uint64
	var begin int
	if _, err := fmt.Sscanf(filepath.Base(ev.Name), "b%d-%d", &id, &begin); err != nil {
		return
	}
	if begin == 1 {
		if by := w.attr.scopeBy(id); by != "" {
			w.scopes[id] = by
		}
		return
	}
	delete(w.scopes, id)
}

func parentOf(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return ""
}
