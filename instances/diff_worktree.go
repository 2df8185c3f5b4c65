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
	args := []string{"diff-tree", "-r", "-z", "--no-renames", "--no-ext-diff", "--no-textconv"}
	raw, err := git(in.Path, nil, nil, append(args, "--raw", in.Base, tree)...)
	if err != nil {
		return Diff{}, err
	}
	num, err := git(in.Path, nil, nil, append(args, "--numstat", in.Base, tree)...)
	if err != nil {
		return Diff{}, err
	}
	patch, err := git(in.Path, nil, nil, "diff-tree", "-r", "-p", "--no-renames", "--no-ext-diff", "--no-textconv", "--no-color", in.Base, tree)
	if err != nil {
		return Diff{}, err
	}
	fc, err := parseRaw(raw)
	if err != nil {
		return Diff{}, err
	}
	if err := parseNumstat(num, fc); err != nil {
		return Diff{}, err
	}
	d := Diff{Patch: string(patch)}
	for _, f := range fc {
		d.Files = append(d.Files, *f)
	}
	return d, nil
}

// instanceTree writes the tree of the instance's working files, starting
// from a copy of its index so that only changed files are hashed.
func (m *Manager) instanceTree(in Instance) (string, error) {
	tmp, err := os.MkdirTemp(filepath.Join(m.dir, metaDir), "index-")
	if err != nil {
		return "", err
	}
	defer func() { _ = os.RemoveAll(tmp) }() // scratch
	idx := filepath.Join(tmp, "index")
	own, err := gitLine(in.Path, nil, "rev-parse", "--path-format=absolute", "--git-path", "index")
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(own)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	env := []string{"GIT_INDEX_FILE=" + idx}
	if len(b) > 0 {
		if err := os.WriteFile(idx, b, 0o600); err != nil {
			return "", err
		}
	} else if _, err := git(in.Path, env, nil, "read-tree", in.Base); err != nil {
		return "", err
	}
	if _, err := git(in.Path, env, nil, "add", "-A", "--", ".", ":(exclude)"+files.StateDir); err != nil {
		return "", err
	}
	return gitLine(in.Path, env, "write-tree")
}

// parseRaw reads `diff-tree --raw -z`: ":old new oldid newid S\0path\0".
func parseRaw(out []byte) (map[string]*FileChange, error) {
	fc := map[string]*FileChange{}
	recs := bytes.Split(out, []byte{0})
	for i := 0; i+1 < len(recs); i += 2 {
		meta := strings.Fields(strings.TrimPrefix(string(recs[i]), ":"))
		if len(meta) < 5 {
			return nil, fmt.Errorf("unexpected diff-tree output %q", recs[i])
		}
		f := &FileChange{Path: string(recs[i+1])}
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
		fc[f.Path] = f
	}
	return fc, nil
}

func nullID(id string) string {
	if strings.Trim(id, "0") == "" {
		return ""
	}
	return id
}

// parseNumstat reads `diff-tree --numstat -z`: "added\tremoved\tpath\0",
// "-\t-\t" for a binary file.
func parseNumstat(out []byte, fc map[string]*FileChange) error {
	for _, rec := range bytes.Split(out, []byte{0}) {
		parts := strings.SplitN(string(rec), "\t", 3)
		if len(parts) != 3 {
			continue
		}
		f := fc[parts[2]]
		if f == nil {
			return fmt.Errorf("numstat names %q, which the raw diff does not", parts[2])
		}
		if parts[0] == "-" {
			f.Binary = true
			continue
		}
		f.Added, _ = strconv.Atoi(parts[0])
		f.Removed, _ = strconv.Atoi(parts[1])
	}
	return nil
}
