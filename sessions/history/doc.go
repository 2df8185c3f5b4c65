// Package history keeps the workspace's history: a git repository at
// <workspace>/.state/git, separate from any repository the user keeps in the
// workspace, with one commit per agent turn. It is what makes agent work
// reviewable (what did turn 3 change, which turn last touched this file) and
// reversible (put these files back as they were after turn 2, and undo that).
//
// Every git call passes the git directory, the work tree and the index
// explicitly and runs with a scrubbed environment and a configuration of our
// own, so the user's .git, index, branch, stash, hooks and global settings
// are never read or touched, and a moved or copied workspace keeps a working
// history (no absolute path is stored).
//
// What enters the history: the workspace files that the user's .gitignore
// does not ignore, minus .state/, nested repositories, secrets (see
// DefaultSecretPatterns) and files over the size limit; plus the session
// logs a turn names explicitly. What a restore may touch: only files whose
// current content the history holds, so a restore never deletes or
// overwrites an ignored, secret, oversized or otherwise unrecorded file, and
// it first records uncommitted edits in a snapshot commit so it can be undone.
//
// Instances (see package instances): a session on an instance of the
// workspace (a worktree or copy outside it) commits its turns in the same
// repository, on a chain of its own (refs/instances/<id>, with its own index
// under .state/git/instances/) that begins with a snapshot of the instance
// whose parent is the workspace branch's tip; every commit on it names its
// instance. The workspace branch never holds those commits. Applying an
// instance back is one commit on the workspace branch (KindApply) whose
// trailers keep, per file, the instance session and turn that last changed
// it, so blame by turn names the agent's turn, and restoring its parent
// undoes it like any restore.
//
// Speed: a turn whose changed paths are known is committed without reading
// or rewriting the index (20,000 entries cost more than the turn's few
// files): its tree is the last commit's with those paths changed, under the
// same rules as staging, written by one git fast-import; the index catches
// up at the next operation that needs it. An unknown list, a folder or an
// ignore file among the paths, or an index not vouched for (see
// indexstate.go) takes the staging path instead.
//
// Concurrency: one writer per workspace. Every operation that uses an index
// holds a mutex and an flock on .state/git/atelier.lock, so goroutines and
// processes on one workspace serialise, instances' histories included (an
// instance's history shares the mutex of the History it came from). Reading
// commits (Log, Changes, Diff, Blame) takes no lock.
package history
