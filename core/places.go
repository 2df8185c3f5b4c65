package core

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/atelier-studio/atelier/files"
	"github.com/atelier-studio/atelier/instances"
)

// places are the workspace folder and its instances as places, with the
// instance manager that makes the instances. It is a part of the engine
// with locks of its own, never taken under the engine's: an apply holds
// the manager while it calls its hooks, and those take the engine's
// lock, so nothing here may wait for the engine.
type places struct {
	ws      string // the workspace folder
	stateID string // the workspace state's id: the instances' folder under root; "" has none
	opts    InstanceOptions
	main    *place
	hooks   instances.Hooks

	mgrMu  sync.Mutex
	mgr    *instances.Manager
	mgrErr error // why there is no manager (set once, for good)

	mu     sync.Mutex
	open   map[string]*place // the instances' places, opened on first use
	closed bool
}

// newPlaces makes the places of a workspace; noneWhy, when set, says why
// it has no instances (a passive engine, a state without an id).
func newPlaces(main *place, stateID string, o InstanceOptions, hooks instances.Hooks, noneWhy error) *places {
	return &places{ws: main.root, stateID: stateID, opts: o, main: main, hooks: hooks, mgrErr: noneWhy}
}

// noInstances says why an engine has no instances, or nil when it can.
func noInstances(passive bool, stateID string) error {
	switch {
	case passive:
		return fmt.Errorf("%w here: the workspace's engine host has them", ErrNoInstances)
	case stateID == "":
		return fmt.Errorf("%w: the workspace's state has no id (made by an older Atelier)", ErrNoInstances)
	}
	return nil
}

// discard removes an instance made for a session that could not be
// created.
func (ps *places) discard(id string) error {
	m, err := ps.manager()
	if err != nil {
		return err
	}
	return m.Discard(id, true)
}

// root is the folder that holds the workspace's instances.
func (ps *places) root() (string, error) {
	if ps.opts.Root != "" {
		return ps.opts.Root, nil
	}
	r, err := instances.DefaultRoot()
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrNoInstances, err)
	}
	return r, nil
}

// openIfMade opens the manager when the workspace has had instances. It
// runs before the sessions are read, because opening finishes an apply a
// crash interrupted. A workspace that never had one opens it on first
// use, so no folder is made for it before.
func (ps *places) openIfMade() {
	ps.mgrMu.Lock()
	defer ps.mgrMu.Unlock()
	if ps.mgrErr != nil {
		return
	}
	root, err := ps.root()
	if err != nil {
		ps.mgrErr = err
		return
	}
	if _, err := os.Stat(filepath.Join(root, ps.stateID)); err == nil {
		ps.openLocked()
	}
}

// openLocked opens the manager; mgrMu is held. A failure leaves the
// engine without instances (said by every instance operation), not
// without sessions.
func (ps *places) openLocked() {
	o := ps.opts
	m, err := instances.Open(ps.ws, instances.Options{
		StateID: ps.stateID, Root: o.Root, Include: o.Include, Omit: o.Omit, Hooks: ps.hooks,
	})
	if err != nil {
		ps.mgrErr = fmt.Errorf("%w: %w", ErrNoInstances, err)
		return
	}
	ps.mgr = m
}

// manager returns the instance manager, opening it on first use, or why
// there is none.
func (ps *places) manager() (*instances.Manager, error) {
	ps.mgrMu.Lock()
	defer ps.mgrMu.Unlock()
	if ps.mgr == nil && ps.mgrErr == nil {
		ps.openLocked()
	}
	if ps.mgr == nil {
		return nil, ps.mgrErr
	}
	return ps.mgr, nil
}

// get returns the place of instance id ("" or MainInstance: the
// workspace's), opening its file access on first use.
func (ps *places) get(id string) (*place, error) {
	if id == "" || id == MainInstance {
		return ps.main, nil
	}
	m, err := ps.manager()
	if err != nil {
		return nil, err
	}
	ps.mu.Lock()
	p, ok := ps.open[id]
	ps.mu.Unlock()
	if ok {
		return p, nil
	}
	in, err := m.Get(id)
	if err != nil {
		return nil, err
	}
	f, err := files.Open(in.Path, files.NewAttribution(files.DefaultAttributionTTL))
	if err != nil {
		return nil, fmt.Errorf("instance %s: %w", id, err)
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.closed {
		return nil, errors.Join(fmt.Errorf("instance %s: %w", id, ErrClosed), f.Close())
	}
	if p, ok := ps.open[id]; ok {
		// Another caller opened it meanwhile: theirs is the one.
		return p, f.Close()
	}
	p = &place{instance: id, root: f.Root(), files: f, leases: &files.Leases{}}
	if ps.open == nil {
		ps.open = map[string]*place{}
	}
	ps.open[id] = p
	return p, nil
}

// path is the folder of an instance, asked of the manager.
func (ps *places) path(id string) (string, error) {
	if id == "" || id == MainInstance {
		return ps.ws, nil
	}
	m, err := ps.manager()
	if err != nil {
		return "", err
	}
	in, err := m.Get(id)
	if err != nil {
		return "", err
	}
	return in.Path, nil
}

// dir is the folder of instance id (where instances.Manager makes it),
// found without asking the manager or taking a lock: an apply's Commit
// hook needs it while the manager is busy, or not yet open (when Open
// finishes an apply a crash interrupted).
func (ps *places) dir(id string) (string, error) {
	root, err := ps.root()
	if err != nil {
		return "", err
	}
	if ps.stateID == "" {
		return "", fmt.Errorf("%w: the workspace's state has no id", ErrNoInstances)
	}
	return filepath.Join(root, ps.stateID, id), nil
}

// drop forgets a discarded instance's place and closes its file access.
func (ps *places) drop(id string) error {
	ps.mu.Lock()
	p, ok := ps.open[id]
	delete(ps.open, id)
	ps.mu.Unlock()
	if !ok {
		return nil
	}
	return p.files.Close()
}

// close closes every instance's file access (Engine.Close); a place asked
// for after it fails with ErrClosed.
func (ps *places) close() error {
	ps.mu.Lock()
	open := ps.open
	ps.open, ps.closed = nil, true
	ps.mu.Unlock()
	var errs []error
	for _, p := range open {
		errs = append(errs, p.files.Close())
	}
	return errors.Join(errs...)
}
