package history

import "errors"

// Errors callers branch on. Each is wrapped with the operation that met it.
var (
	// ErrBadPath: a path is absolute outside the workspace, escapes it, or
	// names .state/ or a .git directory where workspace files are expected.
	ErrBadPath = errors.New("path outside the workspace's files")
	// ErrBadCommit: a commit name is not a hash, or names no commit of this
	// workspace's history.
	ErrBadCommit = errors.New("not a commit of this history")
	// ErrBadInput: a turn or restore request is malformed (an empty session
	// id, a negative turn, a log outside .state/).
	ErrBadInput = errors.New("invalid history request")
	// ErrNotFound: nothing in the history matches (a path never recorded).
	ErrNotFound = errors.New("not found in history")
	// ErrNothingToRestore: the chosen files already match the target turn.
	ErrNothingToRestore = errors.New("nothing to restore")
	// ErrGitTooOld: the git on PATH lacks what the history relies on.
	ErrGitTooOld = errors.New("git is too old for the history")
	// ErrEmpty: the history has no commit yet.
	ErrEmpty = errors.New("history is empty")
	// ErrUnsafeState: .state or .state/git is a symbolic link (or not a
	// folder): a planted state is never followed.
	ErrUnsafeState = errors.New("state folder is not a real folder: refused, never followed")
)
