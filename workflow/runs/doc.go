// Package runs holds the record of a workflow run (what the runner keeps
// in .state/workflows/ and the engine API sends), apart from the runner so
// that the API's client speaks it without importing the engine.
package runs
