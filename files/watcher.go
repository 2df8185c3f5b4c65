package files

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Watcher defaults.
const (
	DefaultQuiet        = 200 * time.Millisecond
	DefaultMaxDelay     = 2 * time.Second
	DefaultPollInterval = time.Second
)

// WatcherOptions tunes a Watcher; the zero value gives the defaults.
type WatcherOptions struct {
	// Quiet is how long the workspace must stay still before a batch goes
	// out; MaxDelay bounds how long a change may wait in a busy one.
	Quiet, MaxDelay time.Duration
	// WatchLimit caps the number of directory watches (0: only the kernel's
	// limit). Past it, as past the kernel's, the watcher polls instead.
	WatchLimit int
	// PollInterval is the period of the polling fallback.
	PollInterval time.Duration
	// Ignore holds the .gitignore rules; nil loads them as the watcher walks.
	// Ignored folders are not watched, ignored files not reported.
	Ignore *Ignore
}

// Watcher reports the changes of a workspace as coalesced, attributed
// batches. It watches every folder that is neither ignored nor one of
// DefaultHidden (inotify watches are per folder), reports what a new folder
// already holds, rescans after the kernel's queue overflowed, and polls when
// it runs out of watches. All its state belongs to one goroutine.
type Watcher struct {
	ws   *Workspace
	opt  WatcherOptions
	ig   *Ignore
	attr *Attribution
	root string

	fsw      *fsnotify.Watcher
	out      chan []Change
	done     chan struct{}
	stopped  chan struct{}
	once     sync.Once
	unlisten func()

	// Test hooks: inject delivers errors as if from fsnotify; drop makes the
	// loop lose fsnotify events, as an overflowing kernel queue does.
	inject   chan error
	dropping atomic.Bool
	// statsDone is closed once the initial snapshot has its sizes and
	// times: from then on a rescan tells exactly which files changed
	// (before, a change whose events were lost would be taken for the
	// starting point).
	statsDone chan struct{}

	// Loop-owned state.
	watches   map[string]bool                 // watched folders
	snap      map[string]map[string]snapEntry // folder -> entries
	pending   map[string]*pend
	first     time.Time
	last      time.Time
	ready     []Change
	polling   bool
	started   time.Time
	renamed   *pendingRename
	barrier   string // private folder outside the workspace for scope barriers
	scopes    map[uint64]string
	regather  bool // a .gitignore changed: rebuild watches after the flush
	noticeFor map[string]bool
}

type snapEntry struct {
	dir   bool
	known bool // size and mtime hold what the watcher last saw
	size  int64
	mtime int64
}

type pend struct {
	existed bool
	wasDir  bool
	by      string
	from    string // rename source
}

type pendingRename struct {
	rel    string
	wasDir bool
}

// errBudget says the watch budget is spent.
var errBudget = errors.New("no watch left")

// NewWatcher starts watching the workspace. Changes made through ws's file
// operations and during its Attribution's scopes carry their actor.
func NewWatcher(ws *Workspace, opt WatcherOptions) (*Watcher, error) {
	if opt.Quiet <= 0 {
		opt.Quiet = DefaultQuiet
	}
	if opt.MaxDelay <= 0 {
		opt.MaxDelay = DefaultMaxDelay
	}
	if opt.PollInterval <= 0 {
		opt.PollInterval = DefaultPollInterval
	}
	w := &Watcher{
		ws: ws, opt: opt, ig: opt.Ignore, attr: ws.Attribution(), root: ws.Root(),
		out: make(chan []Change), done: make(chan struct{}), stopped: make(chan struct{}),
		inject: make(chan error, 1), statsDone: make(chan struct{}),
		watches: map[string]bool{}, snap: map[string]map[string]snapEntry{},
		pending: map[string]*pend{}, scopes: map[uint64]string{}, noticeFor: map[string]bool{},
	}
	if w.ig == nil {
		w.ig = NewIgnore()
	}
	w.started = time.Now()
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		w.polling = true
		w.notice("file watching is unavailable (%v): polling every %v", err, opt.PollInterval)
	} else {
		w.fsw = fsw
		w.setupBarrier()
	}
	if err := w.gather(); err != nil {
		_ = w.Close() // best effort: gather's error is the one to report
		return nil, fmt.Errorf("watch %s: %w", w.root, err)
	}
	go w.loop()
	return w, nil
}

// Events delivers batches of changes. A slow reader gets bigger batches,
// never a blocked watcher. The channel closes after Close.
func (w *Watcher) Events() <-chan []Change { return w.out }

// Close stops the watcher and closes the Events channel.
func (w *Watcher) Close() error {
	w.once.Do(func() {
		close(w.done)
		if w.unlisten != nil {
			w.unlisten()
		}
	})
	select {
	case <-w.stopped:
	default:
		// The loop never started (NewWatcher failed): clean up here.
		closeWatches(w.fsw)
	}
	if w.barrier != "" {
		if err := os.RemoveAll(w.barrier); err != nil {
			return fmt.Errorf("watch %s: remove barrier folder: %w", w.root, err)
		}
	}
	return nil
}

// closeWatches closes fsw, when there is one. Its error (from closing the
// inotify descriptor) leaves nothing to undo: the watches are gone with it.
func closeWatches(fsw *fsnotify.Watcher) {
	if fsw != nil {
		_ = fsw.Close()
	}
}

// gather walks the whole workspace, watching every folder, and takes the
// baseline snapshot; past the budget it switches to polling.
func (w *Watcher) gather() error {
	if err := w.ig.Load(w.ws, ""); err != nil {
		return err
	}
	snap, err := w.walk("", !w.polling, w.polling)
	if errors.Is(err, errBudget) {
		w.fallBack()
		snap, err = w.walk("", false, true)
	}
	if err != nil {
		return err
	}
	w.snap = snap
	return nil
}

// fallBack drops every watch and polls from now on, saying so once.
func (w *Watcher) fallBack() {
	if w.polling {
		return
	}
	w.polling = true
	n := len(w.watches)
	closeWatches(w.fsw)
	w.watches = map[string]bool{}
	w.notice("the workspace needs more file watches than the system allows (%d used): polling for changes every %v; raise fs.inotify.max_user_watches for live updates", n, w.opt.PollInterval)
}

func (w *Watcher) notice(format string, args ...any) {
	w.ready = append(w.ready, Change{Kind: Notice, Time: time.Now(), By: External, Message: fmt.Sprintf(format, args...)})
}

// addWatch watches folder rel, within the budget.
func (w *Watcher) addWatch(rel string) error {
	if w.watches[rel] {
		return nil
	}
	if w.opt.WatchLimit > 0 && len(w.watches) >= w.opt.WatchLimit {
		return errBudget
	}
	err := w.fsw.Add(w.abs(rel))
	switch {
	case err == nil:
		w.watches[rel] = true
		return nil
	case errors.Is(err, os.ErrNotExist) || errors.Is(err, fsnotify.ErrClosed):
		return nil
	case isNoSpace(err):
		return errBudget
	default:
		if !w.noticeFor[rel] {
			w.noticeFor[rel] = true
			w.notice("cannot watch %s: %v", rel, err)
		}
		return nil
	}
}

// dropWatch stops watching folder rel. The folder is usually gone, and the
// kernel dropped its watch with it (Remove then reports the watch unknown):
// either way it is no longer watched, so Remove's error says nothing new.
func (w *Watcher) dropWatch(rel string) {
	_ = w.fsw.Remove(w.abs(rel))
	delete(w.watches, rel)
}

// loadIgnore reads folder dir's .gitignore into the ignore rules. One that
// cannot be read keeps the rules it had (none at first), and the watcher
// says so once.
func (w *Watcher) loadIgnore(dir string) {
	if err := w.ig.Load(w.ws, dir); err != nil {
		if p := joinRel(dir, ".gitignore"); !w.noticeFor[p] {
			w.noticeFor[p] = true
			w.notice("cannot read %s, its rules are not applied: %v", p, err)
		}
	}
}

// unwatch stops watching folder rel and everything under it, and forgets
// their snapshot.
func (w *Watcher) unwatch(rel string) {
	for d := range w.snap {
		if d == rel || rel == "" || strings.HasPrefix(d, rel+"/") {
			if w.watches[d] {
				w.dropWatch(d)
			}
			delete(w.snap, d)
		}
	}
}

func (w *Watcher) abs(rel string) string {
	if rel == "" {
		return w.root
	}
	return w.root + "/" + rel
}

// rel maps a host path from fsnotify back to the workspace.
func (w *Watcher) rel(p string) (string, bool) {
	if p == w.root {
		return "", true
	}
	if strings.HasPrefix(p, w.root+"/") {
		return filepath.ToSlash(p[len(w.root)+1:]), true
	}
	return "", false
}

// hidden reports whether a path is never watched nor reported: a default
// hidden name, a temporary file of an atomic write, or ignored.
func (w *Watcher) hidden(rel string, isDir bool) bool {
	base := rel[strings.LastIndexByte(rel, '/')+1:]
	return isDefaultHidden(base) || isTemp(base) || w.ig.MatchEntry(rel, isDir)
}
