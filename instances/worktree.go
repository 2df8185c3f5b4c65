package instances

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/atelier-studio/atelier/files"
)

// makeWorktree makes a worktree instance: a snapshot commit of what the
// operator sees (HEAD plus staged, unstaged and untracked-not-ignored
// changes) built in a temporary index, checked out with `git worktree add`
// on the branch atelier/<id>. The user's index, HEAD, branch, stash and
// working tree are only read.
func (m *Manager) makeWorktree(in *Instance) error {
	top, err := gitLine(m.workspace, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return fmt.Errorf("the workspace is not a git repository (use a copy instance): %w", err)
	}
	if top, err = filepath.EvalSymlinks(top); err != nil || top != m.workspace {
		return fmt.Errorf("the workspace is inside the repository %s, not its top folder (use a copy instance)", top)
	}
	head, err := gitLine(m.workspace, nil, "rev-parse", "--verify", "-q", "HEAD^{commit}")
	if err != nil {
		return fmt.Errorf("the repository has no commit yet (use a copy instance)")
	}
	if _, err := gitLine(m.workspace, nil, "rev-parse", "--verify", "-q", "refs/heads/"+in.Branch); err == nil {
		return fmt.Errorf("the branch %s already exists", in.Branch)
	}
	snap, err := m.snapshot(head, in.ID)
	if err != nil {
		return err
	}
	in.Head, in.Base = head, snap
	// Registered with its base before git makes the branch, so a crash
	// from here on is cleaned up by Open.
	if err := m.put(*in); err != nil {
		return err
	}
	if _, err := git(m.workspace, nil, nil, "worktree", "add", "-q", "-b", in.Branch, in.Path, snap); err != nil {
		return err
	}
	if err := m.initSubmodules(in.Path); err != nil {
		return err
	}
	return m.carryIncluded(in.Path)
}

// snapshot returns the commit of HEAD plus the working tree's changes
// (HEAD itself when there are none). The temporary index starts as a copy
// of the user's, so only changed files are hashed.
func (m *Manager) snapshot(head, id string) (string, error) {
	tmp, err := os.MkdirTemp(filepath.Join(m.dir, metaDir), "index-")
	if err != nil {
		return "", err
	}
	defer func() { _ = os.RemoveAll(tmp) }() // scratch; a leftover is harmless
	idx := filepath.Join(tmp, "index")
	userIdx, err := gitLine(m.workspace, nil, "rev-parse", "--path-format=absolute", "--git-path", "index")
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(userIdx)
	switch {
	case err == nil:
		if err := os.WriteFile(idx, b, 0o600); err != nil {
			return "", err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("read the index: %w", err)
	}
	env := []string{"GIT_INDEX_FILE=" + idx}
	if len(b) == 0 {
		if _, err := git(m.workspace, env, nil, "read-tree", head); err != nil {
			return "", err
		}
	}
	// .state/ is never carried. Excluding it by pathspec when the user's
	// .gitignore already ignores it makes git refuse the add ("paths are
	// ignored"), so the exclusion is only given when it is needed.
	addArgs := []string{"add", "-A", "--", "."}
	if _, err := git(m.workspace, env, nil, "check-ignore", "-q", "--", files.StateDir); err != nil {
		if exitCode(err) != 1 {
			return "", err
		}
		addArgs = append(addArgs, ":(exclude)"+files.StateDir)
	}
	if _, err := git(m.workspace, env, nil, addArgs...); err != nil {
		return "", err
	}
	tree, err := gitLine(m.workspace, env, "write-tree")
	if err != nil {
		return "", err
	}
	headTree, err := gitLine(m.workspace, nil, "rev-parse", head+"^{tree}")
	if err != nil {
		return "", err
	}
	if tree == headTree {
		return head, nil
	}
	return gitLine(m.workspace, snapshotIdentity, "commit-tree", tree, "-p", head,
		"-m", "atelier: the operator's uncommitted changes, for instance "+id)
}

// initSubmodules checks out, in the instance, each submodule the
// workspace has checked out, at the commit the snapshot records: a clone
// that borrows the workspace submodule's objects. Submodule update --init
// would write the user's .git/config; this writes nothing of the user's.
func (m *Manager) initSubmodules(path string) error {
	if _, err := os.Stat(filepath.Join(path, ".gitmodules")); err != nil {
		return nil
	}
	out, err := git(path, nil, nil, "ls-files", "-s", "-z")
	if err != nil {
		return err
	}
	for _, rec := range bytes.Split(out, []byte{0}) {
		meta, p, ok := strings.Cut(string(rec), "\t")
		if !ok || !strings.HasPrefix(meta, "160000 ") {
			continue
		}
		sha := strings.Fields(meta)[1]
		src := filepath.Join(m.workspace, filepath.FromSlash(p))
		if _, err := os.Stat(filepath.Join(src, ".git")); err != nil {
			continue // not initialised in the workspace: not in the instance either
		}
		dst := filepath.Join(path, filepath.FromSlash(p))
		if err := os.Remove(dst); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("submodule %s: %w", p, err)
		}
		if _, err := git(path, nil, nil, "clone", "-q", "--shared", "--no-checkout", src, dst); err != nil {
			return fmt.Errorf("submodule %s: %w", p, err)
		}
		if _, err := git(dst, nil, nil, "checkout", "-q", "--detach", sha); err != nil {
			return fmt.Errorf("submodule %s: %w", p, err)
		}
	}
	return nil
}

// carryIncluded copies into the instance the ignored files that the
// include patterns name (they stay ignored there, so they are never
// diffed, applied or committed).
func (m *Manager) carryIncluded(path string) error {
	if len(m.opt.Include) == 0 {
		return nil
	}
	inc := files.NewIgnore()
	inc.AddPatterns(m.opt.Include...)
	out, err := git(m.workspace, nil, nil, "ls-files", "-o", "-i", "--exclude-standard", "--directory", "-z")
	if err != nil {
		return err
	}
	for _, rec := range bytes.Split(out, []byte{0}) {
		rel := string(rec)
		if rel == "" || rel == files.StateDir+"/" || strings.HasPrefix(rel, files.StateDir+"/") {
			continue
		}
		isDir := strings.HasSuffix(rel, "/")
		rel = strings.TrimSuffix(rel, "/")
		if err := m.carry(path, rel, isDir, inc); err != nil {
			return fmt.Errorf("carry %s: %w", rel, err)
		}
	}
	return nil
}

// carry copies rel (a file, or a folder's matching files) when inc names it.
func (m *Manager) carry(path, rel string, isDir bool, inc *files.Ignore) error {
	if !isDir {
		if !inc.Match(rel, false) {
			return nil
		}
		return copyEntry(filepath.Join(m.workspace, rel), filepath.Join(path, rel), false, nil)
	}
	whole := inc.Match(rel, true)
	return filepath.WalkDir(filepath.Join(m.workspace, rel), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		r, err := filepath.Rel(m.workspace, p)
		if err != nil {
			return err
		}
		r = filepath.ToSlash(r)
		if !whole && !inc.Match(r, false) {
			return nil
		}
		return copyEntry(p, filepath.Join(path, r), false, nil)
	})
}

// removeWorktree removes a worktree instance's worktree and branch. Git
// refuses to remove a worktree holding submodules; then the folder and
// its administrative folder under .git/worktrees are removed directly (what
// `git worktree prune` would do for it alone).
func (m *Manager) removeWorktree(in Instance) error {
	if in.Base == "" {
		return nil // git was not asked to make anything yet
	}
	if _, err := os.Stat(in.Path); err == nil {
		admin, aerr := gitLine(in.Path, nil, "rev-parse", "--absolute-git-dir")
		if _, err := git(m.workspace, nil, nil, "worktree", "remove", "--force", "--force", in.Path); err != nil {
			if aerr != nil || filepath.Base(filepath.Dir(admin)) != "worktrees" {
				return err
			}
			if err := os.RemoveAll(in.Path); err != nil {
				return err
			}
			if err := os.RemoveAll(admin); err != nil {
				return err
			}
		}
	} else if err := m.forgetWorktree(in.Path); err != nil {
		return err
	}
	if in.Branch == "" {
		return nil
	}
	if _, err := gitLine(m.workspace, nil, "rev-parse", "--verify", "-q", "refs/heads/"+in.Branch); err != nil {
		return nil // never made, or already gone
	}
	return m.deleteBranch(in.Branch)
}

// deleteBranch deletes a branch. Git writes a packed-refs file holding
// only its header when it deletes a loose ref of a repository that had
// none; that file, made a moment ago by this deletion, is removed again,
// so the repository's files are as they were.
func (m *Manager) deleteBranch(name string) error {
	common, err := gitLine(m.workspace, nil, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return err
	}
	packed := filepath.Join(common, "packed-refs")
	_, serr := os.Lstat(packed)
	hadPacked := serr == nil
	if _, err := git(m.workspace, nil, nil, "branch", "-D", "-q", name); err != nil {
		return err
	}
	if hadPacked {
		return nil
	}
	b, err := os.ReadFile(packed)
	if err != nil {
		return nil // none was made
	}
	if s := strings.TrimSpace(string(b)); strings.HasPrefix(s, "# pack-refs with:") && !strings.Contains(s, "\n") {
		if err := os.Remove(packed); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// forgetWorktree removes the administrative folder of a worktree whose
// folder is gone (only that one: `git worktree prune` would also forget
// the user's own stale worktrees).
func (m *Manager) forgetWorktree(path string) error {
	common, err := gitLine(m.workspace, nil, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return err
	}
	dirs, err := os.ReadDir(filepath.Join(common, "worktrees"))
	if err != nil {
		return nil // no worktrees at all
	}
	for _, d := range dirs {
		admin := filepath.Join(common, "worktrees", d.Name())
		b, err := os.ReadFile(filepath.Join(admin, "gitdir"))
		if err != nil {
			continue
		}
		if filepath.Clean(strings.TrimSpace(string(b))) == filepath.Join(path, ".git") {
			return os.RemoveAll(admin)
		}
	}
	return nil
}
