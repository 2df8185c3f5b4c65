// Package startup measures the real binary: how long `atelier DIR` takes
// from exec to its first frame on a pty, on a large workspace. It has no
// code of its own, only the benchmark.
package startup
