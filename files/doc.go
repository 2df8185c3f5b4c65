// Package files is the workspace as the rest of Atelier sees it: a lazily
// loaded tree for the studio, a recursive watcher that reports coalesced and
// attributed changes, file operations confined to the workspace root, the
// readers-writer leases sessions take around their operations, the
// .gitignore rules and the protected paths.
//
// Everything that reads or writes a workspace file goes through a Workspace,
// which resolves every path component by component from an open descriptor of
// the root and refuses, with ErrOutsideWorkspace, any path that would leave it
// (".." past the root, an absolute path elsewhere, a symlink pointing out).
// Writes are atomic (temporary file, fsync, rename, fsync of the directory)
// and record who made them, so the Watcher can attribute the change it then
// sees to a session, to the operator or to nobody ("external").
//
// The package is a leaf: it imports no other Atelier package and no UI code,
// so the engine, the harness tools and the studio can all use it.
package files
