package core

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/atelier-studio/atelier/instances"
	"github.com/atelier-studio/atelier/sessions/history"
)

// historyOf is the history a session's turns are committed to: the
// workspace's, or, for a session on an instance, the instance's chain in
// it. nil with no error when the engine runs without a history.
func (e *Engine) historyOf(l *live) (*history.History, error) {
	return e.HistoryOf(l.rec.Instance)
}

// HistoryOf returns the history of an instance: its chain in the
// workspace's history (history.History.Instance), opened on first use;
// "" or MainInstance is the workspace's own (History). It is nil with no
// error when the engine runs without a history.
func (e *Engine) HistoryOf(instance string) (*history.History, error) {
	h := e.history()
	if h == nil {
		return nil, e.historyErr
	}
	if instance == "" || instance == MainInstance {
		return h, nil
	}
	dir, err := e.instanceDir(instance)
	if err != nil {
		return nil, err
	}
	e.instHistMu.Lock()
	defer e.instHistMu.Unlock()
	if ih, ok := e.instHists[instance]; ok {
		return ih, nil
	}
	ih, err := h.Instance(instance, dir)
	if err != nil {
		return nil, err
	}
	if e.instHists == nil {
		e.instHists = map[string]*history.History{}
	}
	e.instHists[instance] = ih
	return ih, nil
}

// instanceDir is the folder of instance id (where instances.Manager
// makes it), found without asking the manager or taking a lock: an
// apply's Commit hook needs it while the manager is busy, or not yet
// open (when Open finishes an apply a crash interrupted).
func (e *Engine) instanceDir(id string) (string, error) {
	root := e.opts.Instances.Root
	if root == "" {
		r, err := instances.DefaultRoot()
		if err != nil {
			return "", fmt.Errorf("%w: %v", ErrNoInstances, err)
		}
		root = r
	}
	if e.store.Trust().ID == "" {
		return "", fmt.Errorf("%w: the workspace's state has no id", ErrNoInstances)
	}
	return filepath.Join(root, e.store.Trust().ID, id), nil
}

// dropInstanceHistory forgets a discarded instance's chain.
func (e *Engine) dropInstanceHistory(id string) error {
	e.instHistMu.Lock()
	delete(e.instHists, id)
	e.instHistMu.Unlock()
	h := e.history()
	if h == nil {
		return nil
	}
	return h.DropInstance(id)
}

// applyCommit is the Commit hook of an apply: the history commit "applied
// instance X" on the workspace's branch, naming for each file the instance
// session and turn that last changed it (the instance chain's blame; a
// file the apply removes, or one no turn changed, names none). An apply
// the crash recovery finishes calls it again: the history finds the
// apply's id and commits nothing twice. It runs while the manager holds
// its lock: it must not ask the manager anything.
func (e *Engine) applyCommit(p instances.Provenance) error {
	if e.opts.NoHistory {
		return nil
	}
	ih, err := e.HistoryOf(p.Instance)
	if err != nil {
		return fmt.Errorf("record the apply of instance %s: %w", p.Instance, err)
	}
	if ih == nil {
		return nil
	}
	h := e.history()
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
		// Told by ApplyInstance once the manager is done: the engine's
		// lock is not taken under the manager's (envLocked takes them the
		// other way round).
		e.instHistMu.Lock()
		e.applyCommits = append(e.applyCommits, c.Hash)
		e.instHistMu.Unlock()
	}
	if afterApplyCommit != nil {
		afterApplyCommit()
	}
	return nil
}

// publishApplyCommits tells subscribers of the apply commits written.
func (e *Engine) publishApplyCommits() {
	e.instHistMu.Lock()
	hs := e.applyCommits
	e.applyCommits = nil
	e.instHistMu.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, h := range hs {
		e.bus.publish(Event{Kind: EvCommit, Text: h})
	}
}

// afterApplyCommit, set by tests only, runs once an apply's commit is
// written (to end the process there, as a crash would).
var afterApplyCommit func()
