package history

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Status says how a commit changed a file.
type Status string

// The statuses of a FileChange.
const (
	Added    Status = "added"
	Modified Status = "modified"
	Deleted  Status = "deleted"
	Renamed  Status = "renamed"
)

// FileChange is one workspace file changed by a commit, against its parent.
type FileChange struct {
	Path    string
	OldPath string // the path before a rename
	Status  Status
	// Additions and Deletions count lines; both are 0 for a binary file.
	Additions int
	Deletions int
	Binary    bool
}

// Changes lists the workspace files a commit changed against its parent
// (against nothing for the first commit), with renames detected. The
// session logs under .state/ are left out.
func (h *History) Changes(ctx context.Context, commit string) ([]FileChange, error) {
	hash, err := h.resolve(ctx, commit)
	if err != nil {
		return nil, fmt.Errorf("changes of %s: %w", commit, err)
	}
	base := []string{"diff-tree", "-r", "-z", "-M", "--no-commit-id", "--root", "--no-ext-diff", "--no-textconv"}
	out, err := h.git.run(ctx, call{}, append(base, "--name-status", hash)...)
	if err != nil {
		return nil, fmt.Errorf("changes of %s: %w", commit, err)
	}
	changes := parseNameStatus(splitNul(out))
	out, err = h.git.run(ctx, call{}, append(base, "--numstat", hash)...)
	if err != nil {
		return nil, fmt.Errorf("changes of %s: %w", commit, err)
	}
	stats := parseNumstat(splitNul(out))
	var kept []FileChange
	for _, c := range changes {
		if internal(c.Path) && (c.OldPath == "" || internal(c.OldPath)) {
			continue
		}
		if s, ok := stats[c.Path]; ok {
			c.Additions, c.Deletions, c.Binary = s.Additions, s.Deletions, s.Binary
		}
		kept = append(kept, c)
	}
	return kept, nil
}

// parseNameStatus reads `--name-status -z` fields: a status, then one path
// (two for a rename or copy).
func parseNameStatus(f []string) []FileChange {
	var out []FileChange
	for i := 0; i < len(f); {
		code := f[i]
		i++
		if code == "" {
			continue
		}
		switch code[0] {
		case 'R', 'C':
			if i+1 >= len(f) {
				return out
			}
			st := Renamed
			if code[0] == 'C' {
				st = Added
			}
			out = append(out, FileChange{OldPath: f[i], Path: f[i+1], Status: st})
			i += 2
		default:
			if i >= len(f) {
				return out
			}
			st := Modified
			switch code[0] {
			case 'A':
				st = Added
			case 'D':
				st = Deleted
			}
			out = append(out, FileChange{Path: f[i], Status: st})
			i++
		}
	}
	return out
}

// parseNumstat reads `--numstat -z` fields, keyed by the (new) path.
func parseNumstat(f []string) map[string]FileChange {
	out := make(map[string]FileChange)
	for i := 0; i < len(f); i++ {
		parts := strings.SplitN(f[i], "\t", 3)
		if len(parts) != 3 {
			continue
		}
		var c FileChange
		if parts[0] == "-" {
			c.Binary = true
		} else {
			c.Additions, _ = strconv.Atoi(parts[0])
			c.Deletions, _ = strconv.Atoi(parts[1])
		}
		path := parts[2]
		if path == "" && i+2 < len(f) { // a rename: old and new follow
			path = f[i+2]
			i += 2
		}
		out[path] = c
	}
	return out
}

// Diff returns the unified diff of a commit against its parent, for the
// workspace files under paths (all of them when none are given), never the
// session logs.
func (h *History) Diff(ctx context.Context, commit string, paths ...string) (string, error) {
	hash, err := h.resolve(ctx, commit)
	if err != nil {
		return "", fmt.Errorf("diff of %s: %w", commit, err)
	}
	args := []string{"diff-tree", "-p", "-M", "--root", "--no-commit-id", "--no-color", "--no-ext-diff", "--no-textconv", hash, "--"}
	if len(paths) == 0 {
		args = append(args, ".", ":(exclude)"+stateDir)
	} else {
		n := 0
		for _, p := range paths {
			rel, err := h.relPath(p)
			if err != nil {
				return "", fmt.Errorf("diff of %s: %w", commit, err)
			}
			if rel == "." {
				args = append(args, ".", ":(exclude)"+stateDir)
				n++
				continue
			}
			if !internal(rel) {
				args = append(args, ":(literal)"+rel)
				n++
			}
		}
		if n == 0 {
			return "", nil
		}
	}
	out, err := h.git.run(ctx, call{}, args...)
	if err != nil {
		return "", fmt.Errorf("diff of %s: %w", commit, err)
	}
	return string(out), nil
}
