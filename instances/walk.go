package instances

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

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
}

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
func (w *walker) walk(fn func(rel string, d fs.DirEntry) error) error {
	return w.dir("", fn)
}

func (w *walker) dir(rel string, fn func(rel string, d fs.DirEntry) error) error {
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
		if w.skip(rel, name, r, d) {
			continue
		}
		if err := fn(r, d); err != nil {
			return err
		}
		if d.IsDir() && (name != ".git" || rel != "") {
			if err := w.dir(r, fn); err != nil {
				return err
			}
		}
	}
	return nil
}

// skip says whether an entry stays out.
func (w *walker) skip(parent, name, rel string, d fs.DirEntry) bool {
	if parent == "" && name == files.StateDir {
		return true
	}
	if name == ".git" {
		// A .git file points at another repository's metadata: copying it
		// would let the instance write the user's repository.
		return w.skipGit || parent != "" || !d.IsDir()
	}
	if d.IsDir() && w.omit[name] {
		return true
	}
	return w.ig.MatchEntry(rel, d.IsDir())
}
