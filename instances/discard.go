package instances

import (
	"errors"
	"fmt"
	"strings"
)

// UnappliedError is returned by Discard when the instance holds changes
// the workspace does not have.
type UnappliedError struct {
	Instance string
	Files    []string
}

func (e *UnappliedError) Error() string {
	return fmt.Sprintf("instance %s has changes not applied to the workspace: %s (discard with force to lose them)",
		e.Instance, strings.Join(e.Files, ", "))
}

// Unapplied lists the instance's changed files whose change the workspace
// does not hold (an applied instance has none).
func (m *Manager) Unapplied(id string) ([]string, error) {
	d, err := m.Diff(id)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range d.Files {
		ws, err := readState(m.wsPath(f.Path))
		if err != nil {
			return nil, err
		}
		if ws.ID != f.NewID || (f.NewID != "" && ws.Mode != f.NewMode) {
			out = append(out, f.Path)
		}
	}
	return out, nil
}

// Discard removes an instance: a worktree's folder and branch, or a
// copy's folder, and its registry entry. Unless force, it refuses with
// an UnappliedError while the instance has changes not applied.
func (m *Manager) Discard(id string, force bool) error {
	if !force {
		left, err := m.Unapplied(id)
		if err != nil {
			return fmt.Errorf("discard instance %s: %w", id, err)
		}
		if len(left) > 0 {
			return &UnappliedError{Instance: id, Files: left}
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	in, err := m.get(id)
	if err != nil {
		return err
	}
	if err := m.remove(in); err != nil {
		return fmt.Errorf("discard instance %s: %w", id, err)
	}
	return nil
}

// ErrNotWorktree is returned by Branch for a copy instance.
var ErrNotWorktree = errors.New("only a worktree instance can become a branch")

// Branch makes a branch name in the user's repository holding the
// instance's work, for a pull request: the instance's commits plus, when
// it has uncommitted files, one commit of them. Nothing is checked out,
// and the instance and its atelier/ branch are left as they are. It
// returns the branch's commit.
func (m *Manager) Branch(id, name string) (string, error) {
	in, err := m.Get(id)
	if err != nil {
		return "", err
	}
	if in.Kind != Worktree {
		return "", fmt.Errorf("branch instance %s: %w", id, ErrNotWorktree)
	}
	if strings.HasPrefix(name, BranchPrefix) || strings.HasPrefix(name, "-") {
		return "", fmt.Errorf("branch instance %s: %q: the %s names belong to instances", id, name, BranchPrefix)
	}
	if _, err := git(m.workspace, nil, nil, "check-ref-format", "--branch", name); err != nil {
		return "", fmt.Errorf("branch instance %s: %q is not a branch name", id, name)
	}
	if _, err := gitLine(m.workspace, nil, "rev-parse", "--verify", "-q", "refs/heads/"+name); err == nil {
		return "", fmt.Errorf("branch instance %s: the branch %s exists", id, name)
	}
	commit, err := m.workCommit(in)
	if err != nil {
		return "", fmt.Errorf("branch instance %s: %w", id, err)
	}
	if _, err := git(m.workspace, nil, nil, "branch", "--no-track", name, commit); err != nil {
		return "", fmt.Errorf("branch instance %s: %w", id, err)
	}
	return commit, nil
}

// workCommit is the instance's HEAD, or a commit on it of its
// uncommitted files when it has some.
func (m *Manager) workCommit(in Instance) (string, error) {
	head, err := gitLine(in.Path, nil, "rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return "", err
	}
	tree, err := m.instanceTree(in)
	if err != nil {
		return "", err
	}
	headTree, err := gitLine(in.Path, nil, "rev-parse", head+"^{tree}")
	if err != nil {
		return "", err
	}
	if tree == headTree {
		return head, nil
	}
	return gitLine(in.Path, snapshotIdentity, "commit-tree", tree, "-p", head, "-m", "Work of Atelier instance "+in.ID)
}
