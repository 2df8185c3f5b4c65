// Package engine holds the types of the engine's surface: what every
// client of a workspace's engine sends and gets, whether it holds the
// engine in process (core) or reaches it over the API (api/client). Both
// sides speak these types, so nothing is mirrored and converted back: an
// event the API streams decodes into the very Event the engine published.
//
// It is a leaf: it imports only the session model, and carries no
// behaviour beyond what a value says of itself.
package engine
