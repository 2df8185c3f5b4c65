package history

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
)

// planRestore computes what restoring scope (nil: everything) to target
// changes, comparing target with index: ours right after a snapshot, or a
// temporary one holding the workspace as a snapshot would record it. The
// caller holds the lock.
func (h *History) planRestore(ctx context.Context, target Commit, scope []string, index string) ([]RestoreFile, error) {
	head, err := h.head(ctx)
	if err != nil {
		return nil, err
	}
	user, err := h.diffIndex(ctx, index, head, scope)
	if err != nil {
		return nil, err
	}
	diff, err := h.diffIndex(ctx, index, target.Hash, scope)
	if err != nil {
		return nil, err
	}
	var files []RestoreFile
	deleting := make(map[string]bool)
	var folders []int // files to create where a folder is now
	for p, code := range diff {
		f := RestoreFile{Path: p, UserChanged: user[p] != 0}
		switch code {
		case 'A': // recorded now, not in the target
			if user[p] == 'A' {
				continue // new since our last commit: not ours to delete
			}
			f.Action = ActionDelete
			deleting[p] = true
		case 'D': // in the target, not recorded now
			f.Action = ActionCreate
			if st, err := lstatRel(h.workspace, p); err == nil {
				if st.IsDir() {
					folders = append(folders, len(files))
				} else {
					f.Action = ActionModify
					f.Blocked = "its current content is not in the history (ignored, secret or too big)"
				}
			}
		default:
			f.Action = ActionModify
		}
		files = append(files, f)
	}
	for _, i := range folders {
		files[i].Blocked = h.folderInTheWay(files[i].Path, deleting)
	}
	for i := range files {
		if files[i].Action != ActionDelete && files[i].Blocked == "" {
			files[i].Blocked = h.inTheWay(files[i].Path, deleting)
		}
	}
	if head != target.Hash && len(files) > 0 {
		if err := h.flagLaterChanges(ctx, target, head, files); err != nil {
			return nil, err
		}
	}
	sortFiles(files)
	return files, nil
}

// inTheWay reports why a file cannot be written at rel: a parent that is
// not a folder (a file or a link) and is not being deleted by the restore.
func (h *History) inTheWay(rel string, deleting map[string]bool) string {
	for dir := path.Dir(rel); dir != "."; dir = path.Dir(dir) {
		st, err := lstatRel(h.workspace, dir)
		if err != nil {
			continue
		}
		if !st.IsDir() && !deleting[dir] {
			return fmt.Sprintf("%s is in the way and is not in the history", dir)
		}
	}
	return ""
}

// folderInTheWay reports why the folder at rel cannot give way to a file:
// it holds something the restore does not delete.
func (h *History) folderInTheWay(rel string, deleting map[string]bool) string {
	root := filepath.Join(h.workspace, filepath.FromSlash(rel))
	reason := ""
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			reason = fmt.Sprintf("folder %s cannot be read: %v", rel, err)
			return filepath.SkipAll
		}
		if d.IsDir() {
			return nil
		}
		sub, _ := filepath.Rel(h.workspace, p)
		if !deleting[filepath.ToSlash(sub)] {
			reason = fmt.Sprintf("folder %s holds %s, which is not in the history", rel, filepath.ToSlash(sub))
			return filepath.SkipAll
		}
		return nil
	})
	return reason
}

// diffIndex compares a commit with index (our own for "") within scope and
// returns each differing workspace file with its status letter as git sees
// going from the commit to the index (A: only in the index, D: only in the
// commit, M or T: in both).
func (h *History) diffIndex(ctx context.Context, index, commit string, scope []string) (map[string]byte, error) {
	args := append([]string{"diff-index", "--cached", "-z", "--name-status", "--no-renames", commit, "--"}, scope...)
	out, err := h.git.run(ctx, call{locked: true, literal: true, index: index}, args...)
	if err != nil {
		return nil, fmt.Errorf("compare with %s: %w", short(commit), err)
	}
	got := make(map[string]byte)
	f := splitNul(out)
	for i := 0; i+1 < len(f); i += 2 {
		if !internal(f[i+1]) && f[i] != "" {
			got[f[i+1]] = f[i][0]
		}
	}
	return got, nil
}

// flagLaterChanges marks the files that commits after target changed:
// snapshots mean the user, commits of other sessions name the session.
func (h *History) flagLaterChanges(ctx context.Context, target Commit, head string, files []RestoreFile) error {
	byPath := make(map[string]*RestoreFile, len(files))
	for i := range files {
		byPath[files[i].Path] = &files[i]
	}
	return h.git.stream(ctx, call{}, func(r io.Reader) error {
		return eachRecord(r, func(rec string) error {
			if rec == "" {
				return nil
			}
			meta, names, _ := strings.Cut(rec, "\x00")
			c, err := parseCommit(meta)
			if err != nil {
				return err
			}
			for _, p := range strings.Split(strings.TrimLeft(names, "\n"), "\x00") {
				f := byPath[p]
				if f == nil {
					continue
				}
				c := provenanceOf(c, p) // an apply: the instance session
				switch {
				case c.Kind == KindSnapshot:
					f.UserChanged = true
				case c.SessionID == target.SessionID && c.SessionID != "":
				default:
					who := c.SessionID
					if who == "" {
						who = "operator"
					}
					if !contains(f.ChangedBy, who) {
						f.ChangedBy = append(f.ChangedBy, who)
					}
				}
			}
			return nil
		})
	}, "log", "--format=%x1e"+logFields, "--name-only", "-z", "--no-renames", target.Hash+".."+head)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
