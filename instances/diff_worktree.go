package instances

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/atelier-studio/atelier/files"
)

// diffWorktree diffs the tree of the instance's files (as `git add -A`
// would record them, in a temporary index so the agent's own index is
// untouched) against the base commit.
func (m *Manager) diffWorktree(in Instance) (Diff, error) {
	tree, err := m.instanceTree(in)
	if err != nil {
		return Diff{}, err
	}
	raw, err := git(in.Path, nil, nil, "diff-tree", "-r", "-z", "--no-renames", "--raw", in.Base, tree)
	if err != nil {
		return Diff{}, err
	}
	changes, err := parseRaw(raw)
	if err != nil {
		return Diff{}, err
	}
	// The old side from git in one process, the new side from the disk;
	// counting and the patch in Go (a `diff-tree -p` costs twice as much).
	var ids []string
	for _, f := range changes {
		if f.OldID != "" && f.OldMode != modeGitlink {
			ids = append(ids, f.OldID)
		}
	}
	blobs, err := m.catBlobs(in.Path, ids)
	if err != nil {
		return Diff{}, err
	}
	var patch strings.Builder
	for i := range changes {
		f := &changes[i]
		var neu []byte
		if f.NewID != "" && f.NewMode != modeGitlink {
			s, err := readState(filepath.Join(in.Path, filepath.FromSlash(f.Path)))
			if err != nil {
				return Diff{}, err
			}
			neu = s.Data
		}
		writePatch(f, blobs[f.OldID], neu, &patch)
	}
	return Diff{Files: changes, Patch: patch.String()}, nil
}

// catBlobs reads blobs by id with one `git cat-file --batch`.
func (m *Manager) catBlobs(dir string, ids []string) (map[string][]byte, error) {
	out := map[string][]byte{}
	if len(ids) == 0 {
		return out, nil
	}
	b, err := git(dir, nil, []byte(strings.Join(ids, "\n")+"\n"), "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	for len(b) > 0 {
		nl := bytes.IndexByte(b, '\n')
		if nl < 0 {
			return nil, fmt.Errorf("cat-file: a header without its end")
		}
		h := strings.Fields(string(b[:nl]))
		b = b[nl+1:]
		if len(h) == 2 && h[1] == "missing" {
			continue
		}
		if len(h) != 3 {
			return nil, fmt.Errorf("cat-file: unexpected header %q", h)
		}
		n, err := strconv.Atoi(h[2])
		if err != nil || n+1 > len(b) {
			return nil, fmt.Errorf("cat-file: bad size in %q", h)
		}
		out[h[0]] = b[:n:n]
		b = b[n+1:]
	}
	return out, nil
}

// instanceTree writes the tree of the instance's working files. Its
// temporary index starts from the one the last diff left (.meta/<id>.index,
// else a copy of the instance's own), so only files changed since are
// hashed. The copy keeps its source's time (copyIndex): git hashes again
// what changed in that index's own second, and nothing else.
func (m *Manager) instanceTree(in Instance) (string, error) {
	cache := filepath.Join(m.dir, metaDir, in.ID+".index")
	tmp, err := os.MkdirTemp(filepath.Join(m.dir, metaDir), "index-")
	if err != nil {
		return "", err
	}
	defer func() { _ = os.RemoveAll(tmp) }() // scratch
	idx := filepath.Join(tmp, "index")
	src := cache
	b, err := os.ReadFile(src)
	if errors.Is(err, fs.ErrNotExist) {
		own, gerr := gitLine(in.Path, nil, "rev-parse", "--path-format=absolute", "--git-path", "index")
		if gerr != nil {
			return "", gerr
		}
		src = own
		b, err = os.ReadFile(src)
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	env := []string{"GIT_INDEX_FILE=" + idx}
	if len(b) > 0 {
		if err := copyIndex(idx, src, b); err != nil {
			return "", err
		}
	} else if _, err := git(in.Path, env, nil, "read-tree", in.Base); err != nil {
		return "", err
	}
	if _, err := git(in.Path, env, nil, "add", "-A", "--", ".", ":(exclude)"+files.StateDir); err != nil {
		return "", err
	}
	tree, err := gitLine(in.Path, env, "write-tree")
	if err != nil {
		return "", err
	}
	if err := os.Rename(idx, cache); err != nil {
		return "", err
	}
	return tree, nil
}

// copyIndex writes an index's bytes to the scratch file and gives it the
// time of the index it copies. Git trusts an entry's stat data only when
// the entry is older than its index file; a file rewritten at its size in
// the second its entry was recorded is caught by that test alone. A copy
// with the time of its writing would make every such entry look settled
// and hide the rewrite from the diff.
func copyIndex(dst, src string, b []byte) error {
	fi, err := os.Stat(src)
	if err != nil {
		return err
	}
	if err := os.WriteFile(dst, b, 0o600); err != nil {
		return err
	}
	return os.Chtimes(dst, fi.ModTime(), fi.ModTime())
}

// parseRaw reads `diff-tree --raw -z`: ":old new oldid newid S\0path\0".
func parseRaw(out []byte) ([]FileChange, error) {
	var fc []FileChange
	recs := bytes.Split(out, []byte{0})
	for i := 0; i+1 < len(recs); i += 2 {
		meta := strings.Fields(strings.TrimPrefix(string(recs[i]), ":"))
		if len(meta) < 5 {
			return nil, fmt.Errorf("unexpected diff-tree output %q", recs[i])
		}
		f := FileChange{Path: string(recs[i+1])}
		om, err1 := strconv.ParseUint(meta[0], 8, 32)
		nm, err2 := strconv.ParseUint(meta[1], 8, 32)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("unexpected diff-tree modes %q", recs[i])
		}
		f.OldMode, f.NewMode = uint32(om), uint32(nm)
		f.OldID, f.NewID = nullID(meta[2]), nullID(meta[3])
		switch meta[4][0] {
		case 'A':
			f.Status = Added
		case 'D':
			f.Status = Removed
		default:
			f.Status = Changed
		}
		fc = append(fc, f)
	}
	return fc, nil
}

func nullID(id string) string {
	if strings.Trim(id, "0") == "" {
		return ""
	}
	return id
}
