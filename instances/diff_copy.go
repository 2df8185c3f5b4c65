package instances

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// diffCopy compares a copy's files with its manifest. A file whose size
// and time are as recorded, and older than the manifest, is unchanged
// without being read.
func (m *Manager) diffCopy(in Instance) (Diff, error) {
	path := m.manifestPath(in.ID)
	man, err := readManifest(path)
	if err != nil {
		return Diff{}, err
	}
	mst, err := os.Stat(path)
	if err != nil {
		return Diff{}, err
	}
	settled := mst.ModTime().UnixNano()
	seen := make(map[string]bool, len(man))
	var changes []FileChange
	w := newWalker(in.Path, m.opt.Omit, true)
	err = w.walk(func(rel string, d fs.DirEntry, _ bool) error {
		if d.IsDir() {
			return nil
		}
		e, ok := man[rel]
		seen[rel] = true
		if ok && sameStat(filepath.Join(in.Path, filepath.FromSlash(rel)), e, settled) {
			return nil
		}
		f, err := compareManifest(in.Path, rel, e, ok)
		if err != nil || f == nil {
			return err
		}
		changes = append(changes, *f)
		return nil
	})
	if err != nil {
		return Diff{}, err
	}
	for rel, e := range man {
		if seen[rel] {
			continue
		}
		f, err := compareManifest(in.Path, rel, e, true)
		if err != nil {
			return Diff{}, err
		}
		if f != nil {
			changes = append(changes, *f)
		}
	}
	var d Diff
	var patch strings.Builder
	for i := range changes {
		if err := m.describe(&changes[i], in, &patch); err != nil {
			return Diff{}, err
		}
	}
	d.Files, d.Patch = changes, patch.String()
	return d, nil
}

// sameStat reports whether the copy's file still has the recorded size
// and time (then its content is taken as unchanged, as git's index does).
// As in git, a time no older than the manifest (settled) proves nothing:
// the clock of a file system ticks in milliseconds, and a file rewritten
// at its size in the tick it was copied keeps the time it was recorded
// with.
func sameStat(path string, e manifestEntry, settled int64) bool {
	if e.MTime >= settled {
		return false
	}
	st, err := os.Lstat(path)
	if err != nil {
		return false
	}
	isLink := st.Mode()&os.ModeSymlink != 0
	if isLink != (e.Mode == modeSymlink) {
		return false
	}
	exec := st.Mode().Perm()&0o111 != 0
	if !isLink && exec != (e.Mode == modeExec) {
		return false
	}
	return st.Size() == e.Size && st.ModTime().UnixNano() == e.MTime
}

// compareManifest returns the change of one path, nil when it has none.
func compareManifest(root, rel string, e manifestEntry, inBase bool) (*FileChange, error) {
	now, err := readState(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return nil, err
	}
	if now.Mode == 0o040000 {
		now = fileState{} // a folder where a file was: the file is gone
	}
	f := &FileChange{Path: rel, NewID: now.ID, NewMode: now.Mode}
	if inBase {
		f.OldID, f.OldMode = e.ID, e.Mode
	}
	switch {
	case f.OldID == f.NewID && f.OldMode == f.NewMode:
		return nil, nil
	case f.OldID == "":
		f.Status = Added
	case f.NewID == "":
		f.Status = Removed
	default:
		f.Status = Changed
	}
	return f, nil
}

// describe counts a copy's changed file's lines and writes its patch.
func (m *Manager) describe(f *FileChange, in Instance, patch *strings.Builder) error {
	var old, neu []byte
	if f.OldID != "" {
		b, ok := m.baseContent(f.Path, f.OldID)
		if ok {
			old = b
		} else {
			f.NoBase = true
		}
	}
	if f.NewID != "" {
		s, err := readState(filepath.Join(in.Path, filepath.FromSlash(f.Path)))
		if err != nil {
			return err
		}
		if s.ID != f.NewID {
			return fmt.Errorf("%s changed while it was compared", f.Path)
		}
		neu = s.Data
	}
	writePatch(f, old, neu, patch)
	return nil
}

// baseContent finds a copy's base content of a file by its blob id: the
// workspace's file when it still holds it, else the workspace's git
// objects when it is a repository that has it.
func (m *Manager) baseContent(rel, id string) ([]byte, bool) {
	s, err := readState(filepath.Join(m.workspace, filepath.FromSlash(rel)))
	if err == nil && s.ID == id {
		return s.Data, true
	}
	return m.gitBlob(id)
}

// gitBlob reads a blob from the workspace's repository.
func (m *Manager) gitBlob(id string) ([]byte, bool) {
	if _, err := os.Stat(filepath.Join(m.workspace, ".git")); err != nil {
		return nil, false
	}
	b, err := git(m.workspace, nil, nil, "cat-file", "blob", id)
	return b, err == nil
}
