package core

import (
	"context"
	"errors"

	"github.com/atelier-studio/atelier/engine"
	"github.com/atelier-studio/atelier/files"
)

// LeaseWriteOf takes the write lease of a place's files for owner ("" or
// MainInstance: the workspace's; each instance has leases of its own,
// place.go, so a write to an instance's files waits for the sessions on
// that instance and no others), the way a session's writing operation
// does (DESIGN.md §1): it waits until no other owner reads or writes, and
// while it is held no session's tool call, exec or agent turn that needs
// the place runs. It is for writers that are not sessions (the operator's
// saves and file operations, restores, an apply), so their writes never
// overlap an agent's. owner must not be a session id: leases are
// re-entrant within an owner, and a session's id would let the two
// overlap. A wait that ctx's deadline cut short is a *LeaseHeldError
// naming the holder, the one answer of every surface.
func (e *Engine) LeaseWriteOf(ctx context.Context, instance, owner string) (release func(), err error) {
	p, err := e.places.get(instance)
	if err != nil {
		return nil, err
	}
	release, err = p.leases.Write(ctx, owner)
	if errors.Is(err, context.DeadlineExceeded) {
		holder := p.leases.State().Writer
		if holder == "" {
			holder = "other readers and writers"
		}
		return nil, &LeaseHeldError{Holder: holder}
	}
	return release, err
}

// LeaseHeldError says who held the write lease a write waited for
// (engine.LeaseHeldError).
type LeaseHeldError = engine.LeaseHeldError

// LeaseState says who holds the workspace's leases and who waits.
func (e *Engine) LeaseState() files.LeaseState { return e.opts.Leases.State() }

// LeaseStateOf is LeaseState for an instance's leases.
func (e *Engine) LeaseStateOf(instance string) (files.LeaseState, error) {
	p, err := e.places.get(instance)
	if err != nil {
		return files.LeaseState{}, err
	}
	return p.leases.State(), nil
}
