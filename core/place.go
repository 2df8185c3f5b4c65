package core

import (
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

// placeOf is where session l works. A session's instance is set when it
// is created and never changes, so it is read without the engine's lock.
func (e *Engine) placeOf(l *live) (*place, error) {
	p, err := e.places.get(l.rec.Instance)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", l.rec.ID, err)
	}
	return p, nil
}

// FilesOf returns the file access of an instance: confined to its folder,
// with an attribution of its own. "" or MainInstance is the workspace's
// (Files). An unknown id fails with an error wrapping instances.ErrNotFound;
// on an engine without instances, with ErrNoInstances. The value is the
// engine's: it is closed with the engine, or when the instance is
// discarded.
func (e *Engine) FilesOf(instance string) (*files.Workspace, error) {
	p, err := e.places.get(instance)
	if err != nil {
		return nil, err
	}
	return p.files, nil
}

// InstancePath returns the folder of an instance; "" or MainInstance is
// the workspace folder.
func (e *Engine) InstancePath(instance string) (string, error) { return e.places.path(instance) }
