package history

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
)

// branch is our ref in the history repository; HEAD points at it.
const branch = "atelier"

// branchRef is the full name of branch.
const branchRef = "refs/heads/" + branch

// configName is our git configuration file inside .state/git. It is passed
// as git's global configuration (GIT_CONFIG_GLOBAL), so the user's own global
// and system settings never reach the history, and safe.directory is honoured.
const configName = "atelier.gitconfig"

// gcEvery is how many commits a History makes between `git gc --auto` runs,
// which packs loose objects once there are enough of them.
const gcEvery = 100

// gitConfig is written to configName on every Open.
const gitConfig = `# Written by Atelier on every open; edits are lost.
[core]
	hooksPath = /dev/null
	fsmonitor = false
	autocrlf = false
	safecrlf = false
	excludesFile = /dev/null
	attributesFile = /dev/null
	quotePath = false
	untrackedCache = true
	symlinks = true
	fileMode = true
	logAllRefUpdates = true
[commit]
	gpgSign = false
[safe]
	directory = *
[index]
	version = 4
[gc]
	autoDetach = false
[color]
	ui = false
[user]
	name = ` + identityName + `
	email = ` + identityEmail + `
`

// gitAttributes disables every content conversion (end of line, clean and
// smudge filters, ident, encodings) whatever the workspace's .gitattributes
// say: the history stores and restores files byte for byte.
const gitAttributes = "* -text -filter -ident -working-tree-encoding\n"

// Options tune what a History records.
type Options struct {
	// MaxFileSize is the size in bytes above which a file is left out and
	// listed as skipped; 0 means DefaultMaxFileSize, negative means no limit.
	MaxFileSize int64
	// ExtraSecretPatterns add to DefaultSecretPatterns (same syntax).
	ExtraSecretPatterns []string
}

// History is the git-backed history of one workspace. Its methods are safe
// for concurrent use; writers serialise on the workspace's lock.
type History struct {
	workspace string
	// realWorkspace is workspace with symbolic links resolved.
	realWorkspace string
	git           *gitRunner
	filter        filter
	sem           chan struct{} // the in-process writer mutex (cancellable)
	commits       atomic.Int64  // commits made through this value, for gc
	// ref is the chain this value commits on: branchRef for the
	// workspace, instanceRef(id) for an instance.
	ref string
	// instance is the instance's id, "" for the workspace's history.
	instance string
	// parent is the workspace's history of an instance's, nil otherwise.
	parent *History
}

// Open opens the history of workspace, creating .state/git (and a first
// snapshot commit of the workspace as it is) when there is none yet.
func Open(workspace string, o Options) (*History, error) {
	abs, err := filepath.Abs(workspace)
	if err != nil {
		return nil, fmt.Errorf("open history of %s: %w", workspace, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("open history of %s: %w", workspace, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("open history of %s: not a directory: %w", workspace, ErrBadPath)
	}
	f, err := newFilter(o)
	if err != nil {
		return nil, fmt.Errorf("open history of %s: %w", workspace, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("open history of %s: %w", workspace, err)
	}
	h := &History{workspace: abs, realWorkspace: real, git: newGitRunner(abs), filter: f, sem: make(chan struct{}, 1), ref: branchRef}
	if err := h.checkGitVersion(); err != nil {
		return nil, fmt.Errorf("open history of %s: %w", workspace, err)
	}
	if err := h.prepare(); err != nil {
		return nil, fmt.Errorf("open history of %s: %w", workspace, err)
	}
	ctx := context.Background()
	release, err := h.acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("open history of %s: %w", workspace, err)
	}
	defer release()
	if err := h.setup(ctx); err != nil {
		return nil, fmt.Errorf("open history of %s: %w", workspace, err)
	}
	return h, nil
}

// Workspace returns the absolute path of the workspace (of an instance's
// history: the instance's folder).
func (h *History) Workspace() string { return h.workspace }

// minGit is the oldest git whose isolation we rely on: GIT_CONFIG_GLOBAL
// (2.32) keeps the user's global configuration out.
const minGitMajor, minGitMinor = 2, 32

// checkGitVersion refuses a git too old to keep the history isolated.
func (h *History) checkGitVersion() error {
	out, err := h.git.run(context.Background(), call{noWorkTree: true}, "version")
	if err != nil {
		return err
	}
	// "git version 2.39.5" (vendors may append more).
	fields := strings.Fields(string(out))
	if len(fields) < 3 {
		return fmt.Errorf("unrecognised %q: %w", strings.TrimSpace(string(out)), ErrGitTooOld)
	}
	var major, minor int
	if _, err := fmt.Sscanf(fields[2], "%d.%d", &major, &minor); err != nil {
		return fmt.Errorf("unrecognised %q: %w", strings.TrimSpace(string(out)), ErrGitTooOld)
	}
	if major < minGitMajor || (major == minGitMajor && minor < minGitMinor) {
		return fmt.Errorf("git %d.%d, need %d.%d or newer: %w", major, minor, minGitMajor, minGitMinor, ErrGitTooOld)
	}
	return nil
}

// prepare creates .state/, its .gitignore and the git directory's files
// that must exist before git runs (our configuration). A .state or
// .state/git that is a symbolic link is refused: git would write through it.
func (h *History) prepare() error {
	state := filepath.Join(h.workspace, stateDir)
	for _, dir := range []string{state, h.git.gitDir} {
		if st, err := os.Lstat(dir); err == nil && !st.IsDir() {
			return fmt.Errorf("%s: %w", dir, ErrUnsafeState)
		}
	}
	if err := os.MkdirAll(h.git.gitDir, 0o755); err != nil {
		return err
	}
	ignore := filepath.Join(state, ".gitignore")
	if _, err := os.Stat(ignore); errors.Is(err, os.ErrNotExist) {
		if err := writeAtomic(ignore, []byte("*\n")); err != nil {
			return err
		}
	}
	return writeIfDifferent(filepath.Join(h.git.gitDir, configName), []byte(gitConfig))
}

// setup initialises the repository when needed, refreshes its exclude and
// attribute files, drops from the index any file that is now a secret, and
// takes the first snapshot of a new history. The caller holds the lock.
func (h *History) setup(ctx context.Context) error {
	if _, err := os.Stat(filepath.Join(h.git.gitDir, "HEAD")); errors.Is(err, os.ErrNotExist) {
		if err := h.initRepo(ctx); err != nil {
			return err
		}
	}
	// Previews run under the lock: any temporary index found now was left
	// by a process that died.
	stale, _ := filepath.Glob(filepath.Join(h.git.gitDir, "index.preview-*"))
	for _, p := range stale {
		_ = os.Remove(p) // best effort: git never reads it; the next open tries again
	}
	info := filepath.Join(h.git.gitDir, "info")
	if err := os.MkdirAll(info, 0o755); err != nil {
		return err
	}
	var ex strings.Builder
	ex.WriteString("# Written by Atelier on every open; edits are lost.\n/.state/\n.git\n")
	for _, p := range h.filter.secrets {
		if strings.Contains(p, "/") {
			p = "/" + p
		}
		ex.WriteString(p + "\n")
	}
	if err := writeIfDifferent(filepath.Join(info, "exclude"), []byte(ex.String())); err != nil {
		return err
	}
	if err := writeIfDifferent(filepath.Join(info, "attributes"), []byte(gitAttributes)); err != nil {
		return err
	}
	if err := h.dropSecrets(ctx); err != nil {
		return err
	}
	head, err := h.head(ctx)
	if err != nil {
		return err
	}
	if head == "" {
		if _, _, err := h.snapshotLocked(ctx, "workspace when the history began"); err != nil {
			return err
		}
	}
	return nil
}

// initRepo creates the repository without a work tree in its configuration
// (the work tree is passed on every call), with HEAD on our branch and no
// template files (no sample hooks).
func (h *History) initRepo(ctx context.Context) error {
	if _, err := h.git.run(ctx, call{locked: true, noWorkTree: true}, "init", "-q", "--template=", "--initial-branch="+branch); err != nil {
		return err
	}
	if _, err := h.git.run(ctx, call{locked: true, noWorkTree: true}, "config", "--local", "core.bare", "false"); err != nil {
		return err
	}
	// Never let a stored work tree path pin the history to one location.
	_, err := h.git.run(ctx, call{locked: true, noWorkTree: true, okStatus: []int{5}}, "config", "--local", "--unset-all", "core.worktree")
	return err
}

// dropSecrets removes from the index files that match a secret pattern now
// (the patterns may have grown since they were recorded), so the next
// commit records them as gone. The caller holds the lock.
func (h *History) dropSecrets(ctx context.Context) error {
	out, err := h.git.run(ctx, call{locked: true}, "ls-files", "-z", "--cached")
	if err != nil {
		return err
	}
	var drop []string
	for _, p := range splitNul(out) {
		if !strings.HasPrefix(p, stateDir+"/") && h.filter.secret(p) {
			drop = append(drop, p)
		}
	}
	if len(drop) == 0 {
		return nil
	}
	if err := h.forgetIndexState(); err != nil {
		return err
	}
	_, err = h.git.run(ctx, call{locked: true, stdin: nulList(drop)}, "update-index", "--force-remove", "-z", "--stdin")
	return err
}

// head returns the hash of our chain's tip (the workspace branch's, or the
// instance's ref), or "" for an empty history.
func (h *History) head(ctx context.Context) (string, error) {
	out, err := h.git.run(ctx, call{okStatus: []int{1}}, "rev-parse", "--verify", "-q", h.ref+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("read history head: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// writeIfDifferent writes data to path atomically unless it holds it already.
func writeIfDifferent(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil && string(old) == string(data) {
		return nil
	}
	return writeAtomic(path, data)
}

// writeAtomic writes data to a temporary file beside path, syncs it and
// renames it over path.
func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name()) // best effort: the temporary file is abandoned and err says why
	}
	return err
}
