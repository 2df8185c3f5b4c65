package history

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Action says what a restore does to a file.
type Action string

// The actions of a RestoreFile.
const (
	ActionModify Action = "modify"
	ActionCreate Action = "create"
	ActionDelete Action = "delete"
)

// RestoreFile is one file a restore would change.
type RestoreFile struct {
	Path   string
	Action Action
	// UserChanged: the file was changed outside any turn since the target,
	// by edits not yet recorded or recorded by a snapshot. A restore first
	// records such edits in a snapshot commit, so they can be got back.
	UserChanged bool
	// ChangedBy lists the other sessions whose later commits touched the
	// file ("operator" for a restore made by no session).
	ChangedBy []string
	// Blocked, when not empty, says why the restore leaves this file alone:
	// its current content is not recorded in the history (an ignored,
	// secret or oversized file) or something unrecorded is in the way.
	Blocked string
}

// RestorePreview is what Restore would do, computed without changing
// anything.
type RestorePreview struct {
	Target Commit
	Files  []RestoreFile
}

// RestoreOptions qualify a restore.
type RestoreOptions struct {
	// SessionID is the session the restore is made for; "" for the operator.
	SessionID string
	// Summary replaces the default one-line summary of the restore commit.
	Summary string
}

// PreviewRestore reports what restoring the workspace files under paths
// (all of them when paths is empty) to their state after commit would
// change, and which of those files were changed since by the user or by
// another session. Session logs are never restored.
func (h *History) PreviewRestore(ctx context.Context, commit string, paths []string) (RestorePreview, error) {
	scope, err := h.restoreScope(paths)
	if err != nil {
		return RestorePreview{}, fmt.Errorf("preview restore of %s: %w", commit, err)
	}
	release, err := h.acquire(ctx)
	if err != nil {
		return RestorePreview{}, fmt.Errorf("preview restore of %s: %w", commit, err)
	}
	defer release()
	target, err := h.target(ctx, commit, scope)
	if err != nil {
		return RestorePreview{}, fmt.Errorf("preview restore of %s: %w", commit, err)
	}
	files, err := h.plan(ctx, target, scope)
	if err != nil {
		return RestorePreview{}, fmt.Errorf("preview restore of %s: %w", commit, err)
	}
	return RestorePreview{Target: target, Files: files}, nil
}

// Restore puts the workspace files under paths (all of them when paths is
// empty) back to their state after commit and records the result as a new
// commit (KindRestore), so restoring that commit's parent undoes it. Edits
// not yet recorded are first saved in a snapshot commit. Only files the
// history records are written or deleted: ignored, secret, oversized and
// other unrecorded files are never touched, nor are the session logs.
func (h *History) Restore(ctx context.Context, commit string, paths []string, o RestoreOptions) (Commit, error) {
	fail := func(err error) (Commit, error) { return Commit{}, fmt.Errorf("restore %s: %w", commit, err) }
	if o.SessionID != "" && !validSessionID(o.SessionID) {
		return fail(fmt.Errorf("session id %q: %w", o.SessionID, ErrBadInput))
	}
	scope, err := h.restoreScope(paths)
	if err != nil {
		return fail(err)
	}
	release, err := h.acquire(ctx)
	if err != nil {
		return fail(err)
	}
	defer release()
	target, err := h.target(ctx, commit, scope)
	if err != nil {
		return fail(err)
	}
	files, err := h.plan(ctx, target, scope)
	if err != nil {
		return fail(err)
	}
	var write, remove []string
	for _, f := range files {
		switch {
		case f.Blocked != "":
		case f.Action == ActionDelete:
			remove = append(remove, f.Path)
		default:
			write = append(write, f.Path)
		}
	}
	if len(write) == 0 && len(remove) == 0 {
		return fail(ErrNothingToRestore)
	}
	// Save unrecorded edits first, so the restore can be undone in full.
	if _, _, err := h.snapshotLocked(ctx, "edits saved before a restore to "+short(target.Hash)); err != nil {
		return fail(err)
	}
	if err := h.applyRestore(ctx, target.Hash, write, remove); err != nil {
		return fail(err)
	}
	summary := oneLine(o.Summary)
	if summary == "" {
		summary = "back to " + short(target.Hash) + " (" + describe(target) + ")"
		if len(scope) > 0 {
			summary += fmt.Sprintf(", %d of its files", len(write)+len(remove))
		}
	}
	c := Commit{SessionID: o.SessionID, Summary: summary, Kind: KindRestore, RestoredFrom: target.Hash}
	if c, err = h.commitIndex(ctx, c, true); err != nil {
		return fail(err)
	}
	return c, nil
}

// applyRestore deletes the files in remove (then any folder they leave
// empty) and writes the files in write from commit, updating our index to
// match. The caller holds the lock.
func (h *History) applyRestore(ctx context.Context, commit string, write, remove []string) error {
	if err := h.forgetIndexState(); err != nil {
		return err
	}
	for _, p := range remove {
		full := filepath.Join(h.workspace, filepath.FromSlash(p))
		if err := os.Remove(full); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("delete %s: %w", p, err)
		}
		h.removeEmptyParents(p)
	}
	if len(remove) > 0 {
		if _, err := h.git.run(ctx, call{locked: true, stdin: nulList(remove)}, "update-index", "--force-remove", "-z", "--stdin"); err != nil {
			return fmt.Errorf("unstage deleted files: %w", err)
		}
	}
	for _, p := range write {
		if err := h.clearEmptyFolder(p); err != nil {
			return err
		}
	}
	if len(write) > 0 {
		if _, err := h.git.run(ctx, call{locked: true, literal: true, stdin: nulList(write)},
			"checkout", commit, "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
			return fmt.Errorf("write files: %w", err)
		}
	}
	return nil
}

// clearEmptyFolder removes the folder tree standing where the file rel
// will be written, which planning found to hold only deleted files: what is
// left are empty folders. A folder holding anything makes it fail.
func (h *History) clearEmptyFolder(rel string) error {
	root := filepath.Join(h.workspace, filepath.FromSlash(rel))
	st, err := os.Lstat(root)
	if err != nil || !st.IsDir() {
		return nil
	}
	var dirs []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return fmt.Errorf("%s is in the way of %s", p, rel)
		}
		dirs = append(dirs, p)
		return nil
	})
	if err != nil {
		return fmt.Errorf("clear the way for %s: %w", rel, err)
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := os.Remove(dirs[i]); err != nil {
			return fmt.Errorf("clear the way for %s: %w", rel, err)
		}
	}
	return nil
}

// removeEmptyParents removes the folders above rel that are left empty, up
// to the workspace root; a folder holding anything (an ignored file, say)
// stays.
func (h *History) removeEmptyParents(rel string) {
	for dir := filepath.Dir(filepath.FromSlash(rel)); dir != "." && dir != string(filepath.Separator); dir = filepath.Dir(dir) {
		if os.Remove(filepath.Join(h.workspace, dir)) != nil {
			return
		}
	}
}

// restoreScope validates the paths of a restore: nil for the whole
// workspace; never the engine's own files.
func (h *History) restoreScope(paths []string) ([]string, error) {
	var scope []string
	for _, p := range paths {
		rel, err := h.relPath(p)
		if err != nil {
			return nil, err
		}
		if rel == "." {
			return nil, nil
		}
		if internal(rel) {
			return nil, fmt.Errorf("%q is not a workspace file: %w", p, ErrBadPath)
		}
		scope = append(scope, rel)
	}
	return scope, nil
}

// target resolves the commit to restore and checks that each path of scope
// names something it or the last commit recorded.
func (h *History) target(ctx context.Context, commit string, scope []string) (Commit, error) {
	hash, err := h.resolve(ctx, commit)
	if err != nil {
		return Commit{}, err
	}
	t, err := h.commit(ctx, hash)
	if err != nil {
		return Commit{}, err
	}
	if len(scope) == 0 {
		return t, nil
	}
	head, err := h.head(ctx)
	if err != nil {
		return Commit{}, err
	}
	known := make(map[string]struct{})
	for _, c := range []string{hash, head} {
		files, err := h.filesAt(ctx, c, scope)
		if err != nil {
			return Commit{}, err
		}
		for f := range files {
			known[f] = struct{}{}
		}
	}
	for _, p := range scope {
		if !matchesAny(p, known) {
			return Commit{}, fmt.Errorf("%s: %w", p, ErrNotFound)
		}
	}
	return t, nil
}

// matchesAny reports whether p names one of files or a folder holding one.
func matchesAny(p string, files map[string]struct{}) bool {
	if _, ok := files[p]; ok {
		return true
	}
	for f := range files {
		if strings.HasPrefix(f, p+"/") {
			return true
		}
	}
	return false
}

// plan computes a restore against the workspace as a snapshot would record
// it now, without changing our index. The caller holds the lock.
func (h *History) plan(ctx context.Context, target Commit, scope []string) ([]RestoreFile, error) {
	index, cleanup, err := h.currentIndex(ctx, scope)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	return h.planRestore(ctx, target, scope, index)
}

// currentIndex builds a temporary index holding the workspace as a snapshot
// would record it (within scope), for a preview that must not change our
// index. The caller holds the lock and calls cleanup.
func (h *History) currentIndex(ctx context.Context, scope []string) (string, func(), error) {
	tmp, err := os.CreateTemp(h.git.gitDir, "index.preview-*")
	if err != nil {
		return "", nil, err
	}
	name := tmp.Name()
	// Best effort: git never reads a preview index, and setup removes any
	// left behind on the next open.
	cleanup := func() { _ = os.Remove(name); _ = os.Remove(name + ".lock") }
	data, err := os.ReadFile(h.git.index)
	if err == nil {
		_, err = tmp.Write(data)
	} else if errors.Is(err, os.ErrNotExist) {
		err = nil
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		_, err = h.stage(ctx, name, scope, nil)
	}
	if err != nil {
		cleanup()
		return "", nil, err
	}
	return name, cleanup, nil
}

// short abbreviates a hash for messages.
func short(hash string) string {
	if len(hash) > 10 {
		return hash[:10]
	}
	return hash
}

// describe names a commit for a human: "s1 turn 3", "a snapshot".
func describe(c Commit) string {
	switch c.Kind {
	case KindTurn:
		return fmt.Sprintf("%s turn %d", c.SessionID, c.Turn)
	case KindRestore:
		return "a restore"
	case KindApply:
		return "applied instance " + c.Instance
	default:
		return "a snapshot"
	}
}

// sortFiles orders a restore plan by path.
func sortFiles(files []RestoreFile) {
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
}
