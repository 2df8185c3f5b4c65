// Package netns runs a test inside a fresh network namespace that has only
// loopback, so a third-party agent CLI under test can reach the fake model
// server on 127.0.0.1 and nothing beyond this machine.
//
// Use it at the top of a test: if Enter reports false, the test now runs in
// a child process inside the namespace and the caller just returns; the
// child's result becomes the test's.
package netns
