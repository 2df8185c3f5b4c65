package core

import (
	"context"

	"github.com/atelier-studio/atelier/files"
)

// LeaseWrite takes the workspace's write lease for owner, the way a
// session's writing operation does (DESIGN.md §1): it waits until no other
// owner reads or writes, and while it is held no session's tool call, exec
// or agent turn that needs the workspace runs. It is for writers that are
// not sessions, the API's file routes and restores, so their writes never
// overlap an agent's. owner must not be a session id: leases are re-entrant
// within an owner, and a session's id would let the two overlap.
func (e *Engine) LeaseWrite(ctx context.Context, owner string) (release func(), err error) {
	return e.opts.Leases.Write(ctx, owner)
}

// LeaseState says who holds the workspace's leases and who waits, so a
// writer that gave up waiting can say whom it waited for.
func (e *Engine) LeaseState() files.LeaseState { return e.opts.Leases.State() }

// LeaseWriteOf is LeaseWrite for the files of an instance ("" or
// MainInstance: the workspace's): each instance has leases of its own
// (place.go), so a write to an instance's files waits for the sessions
// on that instance and no others.
func (e *Engine) LeaseWriteOf(ctx context.Context, instance, owner string) (release func(), err error) {
	p, err := e.places.get(instance)
	if err != nil {
		return nil, err
	}
	return p.leases.Write(ctx, owner)
}

// LeaseStateOf is LeaseState for an instance's leases.
func (e *Engine) LeaseStateOf(instance string) (files.LeaseState, error) {
	p, err := e.places.get(instance)
	if err != nil {
		return files.LeaseState{}, err
	}
	return p.leases.State(), nil
}
