package instances

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// ErrExists is returned when an id is already an instance's.
var ErrExists = errors.New("an instance with this id exists")

// Create makes a new instance of the workspace. It is registered before it
// is made, so a crash half way is cleaned up by the next Open; a failure
// removes what was made and leaves the registry as it was.
func (m *Manager) Create(kind Kind, id string) (Instance, error) {
	if err := checkID(id); err != nil {
		return Instance{}, err
	}
	if kind != Worktree && kind != Copy {
		return Instance{}, fmt.Errorf("instance kind %q: use %q or %q", kind, Worktree, Copy)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.load()
	if err != nil {
		return Instance{}, err
	}
	for _, in := range r.Instances {
		if in.ID == id {
			return Instance{}, fmt.Errorf("create instance %s: %w", id, ErrExists)
		}
	}
	in := Instance{ID: id, Kind: kind, Path: filepath.Join(m.dir, id), Created: time.Now().UTC().Truncate(time.Second)}
	if kind == Worktree {
		in.Branch = BranchPrefix + id
	}
	if _, err := os.Lstat(in.Path); err == nil {
		return Instance{}, fmt.Errorf("create instance %s: %s already exists", id, in.Path)
	}
	if err := m.put(in); err != nil {
		return Instance{}, err
	}
	if kind == Worktree {
		err = m.makeWorktree(&in)
	} else {
		err = m.makeCopy(&in)
	}
	if err == nil {
		in.Ready = true
		err = m.put(in)
	}
	if err != nil {
		if rerr := m.remove(in); rerr != nil {
			err = fmt.Errorf("%w (and removing what was made: %w)", err, rerr)
		}
		return Instance{}, fmt.Errorf("create %s instance %s: %w", kind, id, err)
	}
	return in, nil
}

// remove deletes an instance's files, worktree, branch, manifest and
// registry entry, whatever of them exists.
func (m *Manager) remove(in Instance) error {
	if in.Kind == Worktree {
		if err := m.removeWorktree(in); err != nil {
			return err
		}
	}
	if err := os.RemoveAll(in.Path); err != nil {
		return err
	}
	for _, p := range []string{m.manifestPath(in.ID), filepath.Join(m.dir, metaDir, in.ID+".index")} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return m.drop(in.ID)
}
