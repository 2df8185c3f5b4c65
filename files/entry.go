package files

import (
	"errors"
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// Kind is what a directory entry is.
type Kind uint8

// The kinds of entries.
const (
	KindFile Kind = iota
	KindDir
	KindSymlink
	KindOther // device, socket, pipe
)

// Entry is one directory entry as the tree and the tools see it.
type Entry struct {
	Name    string
	Path    string // workspace-relative, the folder's symlinks resolved
	Kind    Kind
	Size    int64
	Mode    fs.FileMode
	ModTime time.Time
	// For symlinks: the raw target, whether it resolves to a directory inside
	// the workspace, and whether it is unusable (outside, dangling, a loop).
	Target   string
	TargetIs Kind
	Broken   bool
}

// IsDir reports whether the entry is a directory or a symlink to one inside
// the workspace, so the tree can expand it.
func (e Entry) IsDir() bool {
	return e.Kind == KindDir || (e.Kind == KindSymlink && !e.Broken && e.TargetIs == KindDir)
}

func entryFromStat(name, rel string, st *unix.Stat_t) Entry {
	e := Entry{Name: name, Path: rel, Size: st.Size,
		Mode:    fs.FileMode(st.Mode & 0o777),
		ModTime: time.Unix(st.Mtim.Unix())}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		e.Kind = KindDir
		e.Mode |= fs.ModeDir
	case unix.S_IFREG:
		e.Kind = KindFile
	case unix.S_IFLNK:
		e.Kind = KindSymlink
		e.Mode |= fs.ModeSymlink
	default:
		e.Kind = KindOther
	}
	return e
}

// Stat describes the entry p names without following a final symlink.
func (w *Workspace) Stat(p string) (Entry, error) {
	const op = "stat"
	if err := w.enter(); err != nil {
		return Entry{}, pathErr(op, p, err)
	}
	defer w.leave()
	r, err := w.resolve(p, resolveOpts{})
	if err != nil {
		return Entry{}, pathErr(op, p, err)
	}
	defer r.close()
	name := r.name
	if name == "" {
		name = "."
	}
	var st unix.Stat_t
	if err := unix.Fstatat(r.parent, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return Entry{}, pathErr(op, p, err)
	}
	e := entryFromStat(r.name, r.rel, &st)
	if e.Kind == KindSymlink {
		w.describeLink(r.parent, &e)
	}
	return e, nil
}

// ReadDir lists the directory p names (following symlinks inside the
// workspace), one lstat per entry, unsorted. Entries that vanish while
// listed are left out.
func (w *Workspace) ReadDir(p string) ([]Entry, error) {
	const op = "list"
	if err := w.enter(); err != nil {
		return nil, pathErr(op, p, err)
	}
	defer w.leave()
	fd, rel, err := w.openResolved(p, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return nil, pathErr(op, p, err)
	}
	f := os.NewFile(uintptr(fd), rel)
	defer closeFile(f)
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, pathErr(op, p, err)
	}
	out := make([]Entry, 0, len(names))
	var st unix.Stat_t
	for _, n := range names {
		if err := unix.Fstatat(fd, n, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue
			}
			return nil, pathErr(op, joinRel(rel, n), err)
		}
		e := entryFromStat(n, joinRel(rel, n), &st)
		if e.Kind == KindSymlink {
			w.describeLink(fd, &e)
		}
		out = append(out, e)
	}
	return out, nil
}

// describeLink fills a symlink entry's target fields through the confined
// resolver.
func (w *Workspace) describeLink(dirfd int, e *Entry) {
	e.Target, _ = readlinkat(dirfd, e.Name)
	r, err := w.resolve(e.Path, resolveOpts{follow: true})
	if err != nil {
		e.Broken = true
		return
	}
	defer r.close()
	name := r.name
	if name == "" {
		name = "."
	}
	var st unix.Stat_t
	if unix.Fstatat(r.parent, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		e.Broken = true
		return
	}
	e.TargetIs = entryFromStat(name, r.rel, &st).Kind
}

// List lists the directory p names by name and type only (no stat per
// entry): the cheap listing behind the tree's counts.
func (w *Workspace) List(p string) ([]fs.DirEntry, error) {
	const op = "list"
	if err := w.enter(); err != nil {
		return nil, pathErr(op, p, err)
	}
	defer w.leave()
	fd, rel, err := w.openResolved(p, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return nil, pathErr(op, p, err)
	}
	f := os.NewFile(uintptr(fd), rel)
	defer closeFile(f)
	ents, err := f.ReadDir(-1)
	if err != nil {
		return nil, pathErr(op, p, err)
	}
	return ents, nil
}
