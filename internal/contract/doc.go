// Package contract holds the contract test of the engine's surface: one
// table of behaviours run against the engine in process and against the
// API client over a real served API (the unix socket, and TCP with a
// token), each side vetting its callers as the host does. A behaviour that
// differs between the sides fails, and so does a route of the API that no
// row reaches and that is not listed as still to cover.
//
// It has no code of its own: everything is in its tests.
package contract
