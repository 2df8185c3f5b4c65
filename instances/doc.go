// Package instances makes, inspects, applies and removes workspace
// instances: isolated file trees where a session can work without touching
// the workspace folder, reviewed and applied back on purpose.
//
// Two kinds exist. A worktree instance (git workspaces) is a `git worktree`
// on a new branch atelier/<id>, checked out from a snapshot commit of what
// the operator sees: HEAD plus staged, unstaged and untracked-not-ignored
// changes, built in a temporary index (GIT_INDEX_FILE) so the user's index
// is only read. Ignored files are not carried unless Options.Include names
// them (they are copied in and stay ignored); submodules the workspace has
// checked out are cloned in at the recorded commit. A copy instance (any
// folder) is a copy without .state/, ignored files and the heavy folders of
// Options.Omit, cloned with reflinks where the filesystem has them; modes
// and symbolic links are kept (a link is recreated, never followed), and a
// manifest records each file's blob id as the base.
//
// Instances live outside the workspace, under
// <root>/<state id>/<id> (root: $XDG_DATA_HOME/atelier/instances by
// default), so no container mount or build context of the workspace holds
// them; <root>/<state id>/.meta/ keeps the registry (written atomically),
// the copies' manifests and the apply journal.
//
// Invariants:
//
//   - The user's repository is never touched except by Apply (which writes
//     workspace files) and Branch (which adds the named branch). Creating
//     and discarding an instance leaves HEAD, the index, refs, the stash
//     and `git status` as they were; the only traces are the atelier/<id>
//     branch and the .git/worktrees entry, which exist exactly while the
//     instance does, and unreachable objects that git's gc collects.
//     Hooks never run.
//   - Nothing goes back by itself: Diff compares an instance with its base;
//     Apply writes its changes, refusing (naming the files) when the
//     operator changed the same files since the base, unless a 3-way merge
//     through `git merge-file` can combine them.
//   - An apply is journalled: a crash in the middle is finished by the next
//     Open (or rolled back when it had not started writing), never left
//     half applied. See journal.go.
//   - A crash while an instance is made leaves it registered as not ready;
//     the next Open removes it, its worktree and its branch.
//
// The engine takes part through Hooks: Lease before an apply writes (the
// workspace's write lease) and Commit after (the history commit, given
// each file's provenance). A Manager serialises its own work; one engine
// per workspace is the only process that should hold one.
package instances
