package instances

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Size is an amount of disk.
type Size struct {
	Files int   `json:"files"`
	Bytes int64 `json:"bytes"`
}

// Size measures an instance on disk: its files' allocated blocks (a
// reflinked file counts in full although it shares its blocks).
func (m *Manager) Size(id string) (Size, error) {
	in, err := m.Get(id)
	if err != nil {
		return Size{}, err
	}
	var s Size
	err = filepath.WalkDir(in.Path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if !d.IsDir() {
			s.Files++
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			s.Bytes += st.Blocks * 512
		} else {
			s.Bytes += fi.Size()
		}
		return nil
	})
	return s, err
}

// EstimateCopy measures what a copy instance of the workspace would hold
// (the files' sizes, without reading them), for the warn_size check
// before making one.
func (m *Manager) EstimateCopy() (Size, error) {
	var s Size
	w := newWalker(m.workspace, m.opt.Omit, false)
	w.include = m.include()
	err := w.walk(func(rel string, d fs.DirEntry, _ bool) error {
		if rel == ".git" {
			return filepath.WalkDir(filepath.Join(m.workspace, ".git"), func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				return s.add(d)
			})
		}
		if d.IsDir() {
			return nil
		}
		return s.add(d)
	})
	return s, err
}

func (s *Size) add(d fs.DirEntry) error {
	fi, err := d.Info()
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	s.Files++
	s.Bytes += fi.Size()
	return nil
}
