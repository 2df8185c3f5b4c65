package core

import (
	"context"
	"fmt"
	"sync"

	"github.com/atelier-studio/atelier/instances"
	"github.com/atelier-studio/atelier/sessions/history"
)

// histories are the workspace's history and its instances' chains in it:
// a part of the engine with a lock of its own. The workspace's history
// opens on first use: opening one for the first time snapshots the whole
// workspace (seconds on a large tree), so a running engine starts it in
// the background at open and only what needs the history (a turn's
// commit, a command) waits for it.
type histories struct {
	once sync.Once
	open func() (*history.History, error) // the workspace's, on first use
	h    *history.History
	err  error // why the workspace runs without a history
	off  bool  // NoHistory: no commit is recorded, not even an apply's
	// dir finds an instance's folder without the manager's lock.
	dir func(id string) (string, error)

	mu      sync.Mutex
	chains  map[string]*history.History // the instances' chains, opened on first use
	applied []string                    // apply commits written and not yet told
}

// newHistories makes the histories of an engine: h when the caller gave
// one, none when off, else one opened on first use.
func newHistories(h *history.History, off bool, open func() (*history.History, error), dir func(string) (string, error)) *histories {
	hs := &histories{open: open, h: h, off: off, dir: dir}
	if h != nil || off {
		hs.once.Do(func() {})
	}
	return hs
}

// workspace returns the workspace's history, opening it if needed, or nil
// when it is off (openErr says why).
func (hs *histories) workspace() *history.History {
	hs.once.Do(func() { hs.h, hs.err = hs.open() })
	return hs.h
}

// openErr says why the workspace runs without a history, if it does.
func (hs *histories) openErr() error {
	hs.workspace()
	return hs.err
}

// of returns the history of an instance: its chain in the workspace's
// history (history.History.Instance), opened on first use; "" or
// MainInstance is the workspace's own. It is nil with no error when the
// engine runs without a history.
func (hs *histories) of(instance string) (*history.History, error) {
	h := hs.workspace()
	if h == nil {
		return nil, hs.err
	}
	if instance == "" || instance == MainInstance {
		return h, nil
	}
	dir, err := hs.dir(instance)
	if err != nil {
		return nil, err
	}
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if ih, ok := hs.chains[instance]; ok {
		return ih, nil
	}
	ih, err := h.Instance(instance, dir)
	if err != nil {
		return nil, err
	}
	if hs.chains == nil {
		hs.chains = map[string]*history.History{}
	}
	hs.chains[instance] = ih
	return ih, nil
}

// drop forgets a discarded instance's chain.
func (hs *histories) drop(id string) error {
	hs.mu.Lock()
	delete(hs.chains, id)
	hs.mu.Unlock()
	h := hs.workspace()
	if h == nil {
		return nil
	}
	return h.DropInstance(id)
}

// recordApply is the Commit hook of an apply: the history commit "applied
// instance X" on the workspace's branch, naming for each file the instance
// session and turn that last changed it (the instance chain's blame; a
// file the apply removes, or one no turn changed, names none). An apply
// the crash recovery finishes calls it again: the history finds the
// apply's id and commits nothing twice. It runs while the manager holds
// its lock: it must not ask the manager anything.
func (hs *histories) recordApply(p instances.Provenance) error {
	if hs.off {
		return nil
	}
	ih, err := hs.of(p.Instance)
	if err != nil {
		return fmt.Errorf("record the apply of instance %s: %w", p.Instance, err)
	}
	if ih == nil {
		return nil
	}
	h := hs.workspace()
	paths := make([]string, 0, len(p.Files))
	for _, f := range p.Files {
		paths = append(paths, f.Path)
	}
	ctx, cancel := context.WithTimeout(context.Background(), commitTimeout)
	defer cancel()
	blame, err := ih.BlameAll(ctx, paths)
	if err != nil {
		return fmt.Errorf("record the apply of instance %s: %w", p.Instance, err)
	}
	a := history.ApplyCommit{Apply: p.Apply, Instance: p.Instance}
	for _, f := range p.Files {
		prov := history.AppliedProvenance{Path: f.Path}
		if c, ok := blame[f.Path]; ok && f.Status != instances.Removed {
			prov.SessionID, prov.Turn, prov.Commit = c.SessionID, c.Turn, c.Hash
		}
		a.Files = append(a.Files, prov)
	}
	c, made, err := h.CommitApply(ctx, a)
	if err != nil {
		return err
	}
	if made {
		// Told by ApplyInstance once the manager is done (takeApplied):
		// the engine's lock is not taken under the manager's (envLocked
		// takes them the other way round).
		hs.mu.Lock()
		hs.applied = append(hs.applied, c.Hash)
		hs.mu.Unlock()
	}
	if afterApplyCommit != nil {
		afterApplyCommit()
	}
	return nil
}

// takeApplied returns the apply commits written since the last call.
func (hs *histories) takeApplied() []string {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	out := hs.applied
	hs.applied = nil
	return out
}

// HistoryOf returns the history of an instance: its chain in the
// workspace's history, opened on first use; "" or MainInstance is the
// workspace's own (History). It is nil with no error when the engine runs
// without a history.
func (e *Engine) HistoryOf(instance string) (*history.History, error) { return e.hist.of(instance) }

// publishApplyCommits tells subscribers of the apply commits written.
func (e *Engine) publishApplyCommits() {
	hs := e.hist.takeApplied()
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, h := range hs {
		e.bus.publish(Event{Kind: EvCommit, Text: h})
	}
}

// afterApplyCommit, set by tests only, runs once an apply's commit is
// written (to end the process there, as a crash would).
var afterApplyCommit func()
