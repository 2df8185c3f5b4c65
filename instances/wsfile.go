package instances

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/atelier-studio/atelier/sessions"
)

// writeFile writes one workspace file atomically with its git mode,
// making missing folders. No folder on the way may be a symbolic link: an
// apply writes inside the workspace only.
func (m *Manager) writeFile(rel string, data []byte, mode uint32) error {
	path, err := m.safeParent(rel)
	if err != nil {
		return err
	}
	fi, err := os.Lstat(path)
	switch {
	case err == nil && fi.IsDir():
		return fmt.Errorf("%s is a folder", rel)
	case err == nil && !fi.Mode().IsRegular() || mode == modeSymlink && err == nil:
		if err := os.Remove(path); err != nil {
			return err
		}
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return err
	}
	if mode == modeSymlink {
		return os.Symlink(string(data), path)
	}
	perm := os.FileMode(0o644)
	if mode == modeExec {
		perm = 0o755
	}
	return sessions.WriteFileAtomic(path, data, perm)
}

// removeFile removes a workspace file (gone already is fine) and the
// folders it leaves empty, as git does: an instance that removed a folder
// has it removed.
func (m *Manager) removeFile(rel string) error {
	if err := os.Remove(m.wsPath(rel)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for dir := path.Dir(rel); dir != "." && dir != "/"; dir = path.Dir(dir) {
		if err := os.Remove(m.wsPath(dir)); err != nil {
			break // not empty (or not there): the folders above are kept
		}
	}
	return nil
}

// safeParent makes rel's folders in the workspace, refusing a symbolic
// link or a file on the way, and returns rel's path.
func (m *Manager) safeParent(rel string) (string, error) {
	if rel == "" || strings.HasPrefix(rel, "/") || strings.Contains("/"+rel+"/", "/../") {
		return "", fmt.Errorf("%q is not a workspace path", rel)
	}
	parts := strings.Split(rel, "/")
	dir := m.workspace
	for _, p := range parts[:len(parts)-1] {
		dir = filepath.Join(dir, p)
		fi, err := os.Lstat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			if err := os.Mkdir(dir, 0o755); err != nil {
				return "", err
			}
			continue
		}
		if err != nil {
			return "", err
		}
		if !fi.IsDir() {
			return "", fmt.Errorf("%s: %s is not a folder", rel, dir)
		}
	}
	return filepath.Join(m.workspace, filepath.FromSlash(rel)), nil
}

// checkParents refuses a path whose folders in the workspace include a
// symbolic link or a file (missing folders are fine: they are made).
func (m *Manager) checkParents(rel string) error {
	if rel == "" || strings.HasPrefix(rel, "/") || strings.Contains("/"+rel+"/", "/../") {
		return fmt.Errorf("%q is not a workspace path", rel)
	}
	parts := strings.Split(rel, "/")
	dir := m.workspace
	for _, p := range parts[:len(parts)-1] {
		dir = filepath.Join(dir, p)
		fi, err := os.Lstat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s: %s is not a folder in the workspace", rel, dir)
		}
	}
	return nil
}

// writeSynced writes a new file and flushes it to the disk.
func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Sync()
	}
	if err := f.Close(); werr == nil {
		werr = err
	}
	return werr
}

// syncDir flushes a folder's entries to the disk.
func syncDir(path string) error {
	d, err := os.Open(path)
	if err != nil {
		return err
	}
	serr := d.Sync()
	if err := d.Close(); serr == nil {
		serr = err
	}
	return serr
}
