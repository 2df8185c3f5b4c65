package core

import (
	"errors"
	"fmt"
	"sync"

	"github.com/atelier-studio/atelier/files"
)

// MainInstance names the workspace folder itself where an instance id is
// expected (FilesOf, InstancePath), as "" does.
const MainInstance = "main"

// place is where a session works: the workspace folder, or the folder of
// the instance it is on. Every file operation, command, terminal and
// agent process of a session goes through its place, so a session on an
// instance never reads or writes the workspace folder (its state under
// .state/ aside, which stays the workspace's).
//
// Leases: each instance has its own readers-writer leases. Sessions on one
// instance exclude each other as sessions on the workspace do, but a
// session on an instance neither waits for the workspace's writers nor
// holds them back: they write different folders. An apply, which writes
// the workspace, takes the workspace's lease (applyLease).
type place struct {
	instance string // "" for the workspace
	root     string // the folder, absolute
	files    *files.Workspace
	leases   *files.Leases

	// setupMu serialises an instance's setup command (setup.go), so the
	// sessions that start together on a new instance run it once.
	setupMu sync.Mutex
}

// mainPlace is the workspace folder as a place.
func (e *Engine) mainPlace() *place {
	return &place{root: e.store.Workspace(), files: e.opts.Files, leases: e.opts.Leases}
}

// placeOf is where session l works. A session's instance is set when it
// is created and never changes, so it is read without the engine's lock.
func (e *Engine) placeOf(l *live) (*place, error) {
	if l.rec.Instance == "" {
		return e.main, nil
	}
	p, err := e.instancePlace(l.rec.Instance)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", l.rec.ID, err)
	}
	return p, nil
}

// instancePlace returns the place of instance id, opening its file access
// on first use. The manager is asked with no lock of the engine's held:
// an apply holds the manager while it calls the engine's hooks.
func (e *Engine) instancePlace(id string) (*place, error) {
	if id == "" || id == MainInstance {
		return e.main, nil
	}
	m, err := e.instances()
	if err != nil {
		return nil, err
	}
	e.placesMu.Lock()
	p, ok := e.places[id]
	e.placesMu.Unlock()
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
	e.placesMu.Lock()
	defer e.placesMu.Unlock()
	if e.placesClosed {
		return nil, errors.Join(fmt.Errorf("instance %s: %w", id, ErrClosed), f.Close())
	}
	if p, ok := e.places[id]; ok {
		// Another caller opened it meanwhile: theirs is the one.
		return p, f.Close()
	}
	p = &place{instance: id, root: f.Root(), files: f, leases: &files.Leases{}}
	if e.places == nil {
		e.places = map[string]*place{}
	}
	e.places[id] = p
	return p, nil
}

// FilesOf returns the file access of an instance: confined to its folder,
// with an attribution of its own. "" or MainInstance is the workspace's
// (Files). An unknown id fails with an error wrapping instances.ErrNotFound;
// on an engine without instances, with ErrNoInstances. The value is the
// engine's: it is closed with the engine, or when the instance is
// discarded.
func (e *Engine) FilesOf(instance string) (*files.Workspace, error) {
	p, err := e.instancePlace(instance)
	if err != nil {
		return nil, err
	}
	return p.files, nil
}

// InstancePath returns the folder of an instance; "" or MainInstance is
// the workspace folder.
func (e *Engine) InstancePath(instance string) (string, error) {
	if instance == "" || instance == MainInstance {
		return e.store.Workspace(), nil
	}
	m, err := e.instances()
	if err != nil {
		return "", err
	}
	in, err := m.Get(instance)
	if err != nil {
		return "", err
	}
	return in.Path, nil
}

// dropPlace forgets a discarded instance's place and closes its file
// access.
func (e *Engine) dropPlace(id string) error {
	e.placesMu.Lock()
	p, ok := e.places[id]
	delete(e.places, id)
	e.placesMu.Unlock()
	if !ok {
		return nil
	}
	return p.files.Close()
}

// closePlaces closes every instance's file access (Close).
func (e *Engine) closePlaces() error {
	e.placesMu.Lock()
	ps := e.places
	e.places, e.placesClosed = nil, true
	e.placesMu.Unlock()
	var errs []error
	for _, p := range ps {
		errs = append(errs, p.files.Close())
	}
	return errors.Join(errs...)
}
