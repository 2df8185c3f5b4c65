package core

import (
	"fmt"

	"github.com/atelier-studio/atelier/engine"
	"github.com/atelier-studio/atelier/files"
)

// The engine watches its workspace for the change marks (marks.go): one
// watcher on the host, whatever the number of studios, started with a
// running engine (a passive one runs nothing and keeps no marks). The
// watcher's batches carry who made each change (the files.Workspace's
// attribution), so a mark names its session. When any session starts a
// new turn the set empties, in every studio at once: the marks are what
// changed since the last turn started.

// startMarks starts the workspace watcher of the change marks. A watcher
// that cannot start leaves the marks empty and says so on the stream.
func (e *Engine) startMarks() {
	e.marks = changeMarks{}
	w, err := files.NewWatcher(e.opts.Files, files.WatcherOptions{})
	if err != nil {
		e.noticeSession("", fmt.Sprintf("the file tree's change marks are off: watch the workspace: %v", err))
		return
	}
	e.wg.Add(1)
	go e.watchMarks(w)
}

// watchMarks folds the watcher's batches into the marks until the engine
// closes; the watcher's own failure to close is Close's to report.
func (e *Engine) watchMarks(w *files.Watcher) {
	defer e.wg.Done()
	defer func() {
		if err := w.Close(); err != nil {
			e.mu.Lock()
			e.marksErr = fmt.Errorf("close the change marks' watcher: %w", err)
			e.mu.Unlock()
		}
	}()
	for {
		select {
		case <-e.ctx.Done():
			return
		case batch, ok := <-w.Events():
			if !ok {
				return
			}
			e.mu.Lock()
			if e.marks.apply(batch) {
				e.publishMarksLocked()
			}
			e.mu.Unlock()
		}
	}
}

// clearMarksLocked empties the marks: a turn starts.
func (e *Engine) clearMarksLocked() {
	if len(e.marks) == 0 {
		return
	}
	clear(e.marks)
	e.publishMarksLocked()
}

// publishMarksLocked tells every view the whole set now.
func (e *Engine) publishMarksLocked() {
	e.bus.publish(Event{Kind: EvMarks, Marks: e.marks.list()})
}

// ChangeMarks returns the workspace's change marks now, sorted by path:
// what was created, changed or deleted since the last turn started.
func (e *Engine) ChangeMarks() []engine.ChangeMark {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.marks.list()
}
