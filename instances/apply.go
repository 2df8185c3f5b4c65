package instances

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ApplyOptions choose how Apply treats the operator's own changes.
type ApplyOptions struct {
	// ThreeWay merges, through `git merge-file`, a file the operator and
	// the instance both changed; what cannot be merged is left as it is
	// and reported. Without it such a file refuses the whole apply.
	ThreeWay bool
	// Preview returns what would be written, writing nothing.
	Preview bool
}

// AppliedFile is one workspace file an apply writes or removes.
type AppliedFile struct {
	Path   string `json:"path"`
	Status Status `json:"status"`
	// Merged: the content is a 3-way merge of the operator's and the
	// instance's changes.
	Merged bool `json:"merged,omitempty"`
	// Mode is the git mode written (0 for a removal).
	Mode uint32 `json:"mode,omitempty"`
	// Content is what is written (nil for a removal).
	Content []byte `json:"-"`
}

// Unmerged is a file a 3-way apply left as it was.
type Unmerged struct {
	Path string `json:"path"`
	Why  string `json:"why"`
}

// ApplyResult says what an apply wrote (or, previewing, would write).
type ApplyResult struct {
	Instance string        `json:"instance"`
	Files    []AppliedFile `json:"files"`
	// Unchanged lists files the workspace already holds as the instance does.
	Unchanged []string   `json:"unchanged,omitempty"`
	Unmerged  []Unmerged `json:"unmerged,omitempty"`
	// CommitErr is the commit hook's failure: the files are written but
	// the history commit is missing.
	CommitErr error `json:"-"`
}

// Provenance is handed to the Commit hook: which instance each written
// file came from. Apply names the apply (the same on a recovery that
// finishes it, so the engine can tell a repeat).
type Provenance struct {
	Apply    string        `json:"apply"`
	Instance string        `json:"instance"`
	Kind     Kind          `json:"kind"`
	Files    []AppliedFile `json:"files"`
}

// ConflictError names the files the operator changed in the workspace
// since the instance's base, which the instance changed too.
type ConflictError struct {
	Instance string
	Files    []string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("apply instance %s: the workspace changed %s since the instance was made (merge with 3-way, or apply by hand)",
		e.Instance, strings.Join(e.Files, ", "))
}

// Apply writes the instance's changes into the workspace. It refuses,
// naming them, when the operator changed files the instance changed too
// (unless ThreeWay merges them), and then writes nothing. The writes take
// the Lease hook first, are journalled (a crash in the middle is finished
// by the next Open) and end with the Commit hook.
func (m *Manager) Apply(id string, opt ApplyOptions) (ApplyResult, error) {
	d, err := m.Diff(id)
	if err != nil {
		return ApplyResult{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	in, err := m.get(id)
	if err != nil {
		return ApplyResult{}, err
	}
	res, err := m.plan(in, d, opt.ThreeWay)
	if err != nil || opt.Preview || len(res.Files) == 0 {
		return res, err
	}
	if err := m.write(in, &res); err != nil {
		return ApplyResult{}, fmt.Errorf("apply instance %s: %w", id, err)
	}
	return res, nil
}

// plan decides each changed file: written, already there, merged,
// unmerged or in conflict.
func (m *Manager) plan(in Instance, d Diff, threeWay bool) (ApplyResult, error) {
	res := ApplyResult{Instance: in.ID}
	var conflicts []string
	for _, f := range d.Files {
		if f.OldMode == modeGitlink || f.NewMode == modeGitlink {
			res.Unmerged = append(res.Unmerged, Unmerged{f.Path, "a submodule: apply inside it"})
			continue
		}
		if err := m.checkParents(f.Path); err != nil {
			return res, err
		}
		ws, err := readState(m.wsPath(f.Path))
		if err != nil {
			return res, err
		}
		switch {
		case ws.ID == f.NewID && ws.Mode == f.NewMode:
			res.Unchanged = append(res.Unchanged, f.Path)
			continue
		case ws.ID == f.OldID && ws.Mode == f.OldMode:
			af, err := m.take(in, f)
			if err != nil {
				return res, err
			}
			res.Files = append(res.Files, af)
			continue
		}
		if !threeWay {
			conflicts = append(conflicts, f.Path)
			continue
		}
		af, why, err := m.merge(in, f, ws)
		if err != nil {
			return res, err
		}
		if why != "" {
			res.Unmerged = append(res.Unmerged, Unmerged{f.Path, why})
			continue
		}
		res.Files = append(res.Files, af)
	}
	if len(conflicts) > 0 {
		return ApplyResult{}, &ConflictError{Instance: in.ID, Files: conflicts}
	}
	return res, nil
}

// take reads the instance's version of a changed file.
func (m *Manager) take(in Instance, f FileChange) (AppliedFile, error) {
	af := AppliedFile{Path: f.Path, Status: f.Status, Mode: f.NewMode}
	if f.Status == Removed {
		return af, nil
	}
	s, err := readState(filepath.Join(in.Path, filepath.FromSlash(f.Path)))
	if err != nil {
		return af, err
	}
	if s.ID != f.NewID || s.Mode != f.NewMode {
		return af, fmt.Errorf("%s changed in the instance during the apply; try again", f.Path)
	}
	af.Content = s.Data
	return af, nil
}

// merge merges the operator's (ours) and the instance's (theirs) changes
// of one file over the base; why says why it could not.
func (m *Manager) merge(in Instance, f FileChange, ours fileState) (AppliedFile, string, error) {
	switch {
	case f.Status != Changed || ours.Mode == 0:
		return AppliedFile{}, "added or removed on one side, changed on the other", nil
	case ours.Mode == modeSymlink || f.NewMode == modeSymlink || ours.Mode == 0o040000:
		return AppliedFile{}, "not a regular file on both sides", nil
	}
	base, ok := m.gitBlob(f.OldID)
	if !ok && in.Kind == Copy {
		base, ok = m.baseContent(f.Path, f.OldID)
	}
	if !ok {
		return AppliedFile{}, "its base content is not kept (a copy of a file git does not hold)", nil
	}
	theirs, err := m.take(in, f)
	if err != nil {
		return AppliedFile{}, "", err
	}
	merged, conflicts, err := mergeFile(m.dir, ours.Data, base, theirs.Content)
	if err != nil {
		return AppliedFile{}, "", err
	}
	if conflicts > 0 {
		return AppliedFile{}, fmt.Sprintf("%d conflicting hunks", conflicts), nil
	}
	if merged == nil {
		return AppliedFile{}, "binary", nil
	}
	mode := f.NewMode
	if f.OldMode == f.NewMode {
		mode = ours.Mode // the operator's mode change, if any, stands
	}
	return AppliedFile{Path: f.Path, Status: Changed, Merged: true, Mode: mode, Content: merged}, "", nil
}

// mergeFile runs `git merge-file -p` on the three versions; merged is nil
// for a binary file.
func mergeFile(scratch string, ours, base, theirs []byte) ([]byte, int, error) {
	tmp, err := os.MkdirTemp(filepath.Join(scratch, metaDir), "merge-")
	if err != nil {
		return nil, 0, err
	}
	defer func() { _ = os.RemoveAll(tmp) }() // scratch
	names := []string{"ours", "base", "theirs"}
	for i, b := range [][]byte{ours, base, theirs} {
		if err := os.WriteFile(filepath.Join(tmp, names[i]), b, 0o600); err != nil {
			return nil, 0, err
		}
	}
	out, err := git(tmp, nil, nil, "merge-file", "-p", "-L", "workspace", "-L", "base", "-L", "instance", "ours", "base", "theirs")
	if err == nil {
		return out, 0, nil
	}
	code := exitCode(err)
	switch {
	case code > 0 && code < 128:
		return out, code, nil
	case strings.Contains(err.Error(), "binary"):
		return nil, 0, nil
	}
	return nil, 0, err
}

// wsPath is a workspace-relative slash path as a path on disk.
func (m *Manager) wsPath(rel string) string {
	return filepath.Join(m.workspace, filepath.FromSlash(rel))
}

// paths lists the files of a result, sorted.
func paths(fs []AppliedFile) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Path
	}
	sort.Strings(out)
	return out
}
