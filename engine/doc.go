// Package engine holds the types of the engine's surface: what every
// client of a workspace's engine sends and gets, whether it holds the
// engine in process (core) or reaches it over the API (api/client). Both
// sides speak these types, so nothing is mirrored and converted back: an
// event the API streams decodes into the very Event the engine published.
//
// Its errors are the engine's sentinels and TransitionError, with the
// problem each crosses the API as (Problems): the server reports by that
// table and the client reads it back, so an error matches the same
// sentinel on either side.
//
// Its limits are the surface's too: MaxText bounds what a client hands a
// session, and a list carries each session as a ListedSession (the task
// cut to a preview), so every side checks and lists by one definition.
//
// It is a leaf: it imports only the session model, and carries no
// behaviour beyond what a value says of itself.
package engine
