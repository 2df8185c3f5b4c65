//go:build !unix

package config

// lockFile is a no-op where flock is missing: updates stay atomic, and only
// two simultaneous updates from different processes could lose one.
func lockFile(string) (unlock func(), err error) { return func() {}, nil }
