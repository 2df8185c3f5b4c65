package instances

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/atelier-studio/atelier/files"
)

// walker lists the entries of a folder that belong in a copy: everything
// but .state/ at the top, the omitted folders wherever they are, and what
// the folder's .gitignore files (and .git/info/exclude) ignore. Symbolic
// links are reported, never followed.
type walker struct {
	root string
	ig   *files.Ignore
	omit map[string]bool
	// skipGit leaves .git out too (a diff compares content, not history).
	skipGit bool
	// include names ignored entries kept anyway ("carried"); nil: none.
	include *files.Ignore
}

// walkFunc is called for each kept entry; carried says it is ignored and
// kept only because the include patterns name it (or a folder above it).
type walkFunc func(rel string, d fs.DirEntry, carried bool) error

func newWalker(root string, omit []string, skipGit bool) *walker {
	w := &walker{root: root, ig: files.NewIgnore(), omit: map[string]bool{}, skipGit: skipGit}
	for _, o := range omit {
		w.omit[o] = true
	}
	if b, err := os.ReadFile(filepath.Join(root, ".git", "info", "exclude")); err == nil {
		w.ig.AddPatterns(string(b))
	}
	return w
}

// walk calls fn for each kept entry below the root, parents before
// children, with its slash-separated relative path.
func (w *walker) walk(fn walkFunc) error {
	return w.dir("", false, fn)
}

func (w *walker) dir(rel string, carried bool, fn walkFunc) error {
	abs := filepath.Join(w.root, filepath.FromSlash(rel))
	if b, err := os.ReadFile(filepath.Join(abs, ".gitignore")); err == nil {
		w.ig.Add(rel, b)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	ents, err := os.ReadDir(abs)
	if err != nil {
		return err
	}
	for _, d := range ents {
		name := d.Name()
		r := name
		if rel != "" {
			r = rel + "/" + name
		}
		skip, ignored := w.skip(rel, name, r, d)
		c := carried
		if ignored && !carried {
			if w.include == nil || !w.include.Match(r, d.IsDir()) {
				if !d.IsDir() || w.include == nil {
					continue
				}
				// An ignored folder: its files may still be named.
				if err := w.carryFrom(r, d, fn); err != nil {
					return err
				}
				continue
			}
			c = true
		}
		if skip {
			continue
		}
		if err := fn(r, d, c); err != nil {
			return err
		}
		if d.IsDir() && (name != ".git" || rel != "") {
			if err := w.dir(r, c, fn); err != nil {
				return err
			}
		}
	}
	return nil
}

// skip says whether an entry stays out whatever the include patterns
// say, and ignored whether the ignore rules leave it out.
func (w *walker) skip(parent, name, rel string, d fs.DirEntry) (skip, ignored bool) {
	if parent == "" && name == files.StateDir {
		return true, false
	}
	if name == ".git" {
		// A .git file points at another repository's metadata: copying it
		// would let the instance write the user's repository.
		return w.skipGit || parent != "" || !d.IsDir(), false
	}
	if d.IsDir() && w.omit[name] {
		return true, false
	}
	return false, w.ig.MatchEntry(rel, d.IsDir())
}

// carryFrom passes on, from the ignored folder top, the files the
// include patterns name (as carried), each after the folders on its way.
func (w *walker) carryFrom(top string, topEntry fs.DirEntry, fn walkFunc) error {
	made := map[string]bool{}
	return filepath.WalkDir(filepath.Join(w.root, filepath.FromSlash(top)), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if w.omit[d.Name()] || d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		r, err := filepath.Rel(w.root, p)
		if err != nil {
			return err
		}
		r = filepath.ToSlash(r)
		if !w.include.Match(r, false) {
			return nil
		}
		for i := len(top); i < len(r); i++ {
			if r[i] != '/' || made[r[:i]] {
				continue
			}
			made[r[:i]] = true
			dir := topEntry
			if i > len(top) {
				dir = folderEntry{}
			}
			if err := fn(r[:i], dir, true); err != nil {
				return err
			}
		}
		return fn(r, d, true)
	})
}

// folderEntry stands for a folder on the way to a carried file; its mode
// is an ordinary folder's.
type folderEntry struct{}

func (folderEntry) Name() string               { return "" }
func (folderEntry) IsDir() bool                { return true }
func (folderEntry) Type() fs.FileMode          { return fs.ModeDir }
func (folderEntry) Info() (fs.FileInfo, error) { return folderInfo{}, nil }

type folderInfo struct{}

func (folderInfo) Name() string       { return "" }
func (folderInfo) Size() int64        { return 0 }
func (folderInfo) Mode() fs.FileMode  { return fs.ModeDir | 0o755 }
func (folderInfo) ModTime() time.Time { return time.Time{} }
func (folderInfo) IsDir() bool        { return true }
func (folderInfo) Sys() any           { return nil }
