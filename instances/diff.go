package instances

import (
	"fmt"
	"sort"
	"strings"
)

// Status says what happened to a file in an instance since its base.
type Status string

const (
	Added   Status = "added"
	Changed Status = "changed"
	Removed Status = "removed"
)

// FileChange is one file that differs between an instance and its base.
type FileChange struct {
	Path   string `json:"path"` // slash-separated, relative to the workspace
	Status Status `json:"status"`
	// Added and Removed count lines (0 for a binary file).
	Added   int  `json:"added"`
	Removed int  `json:"removed"`
	Binary  bool `json:"binary,omitempty"`
	// NoBase: a copy's changed file whose base content is gone (the
	// workspace changed it since and git does not hold it), so its lines
	// are all counted as added.
	NoBase bool `json:"no_base,omitempty"`
	// OldID, NewID are git blob ids ("" where the file is absent), and
	// OldMode, NewMode git file modes (0 where absent).
	OldID   string `json:"old_id,omitempty"`
	NewID   string `json:"new_id,omitempty"`
	OldMode uint32 `json:"old_mode,omitempty"`
	NewMode uint32 `json:"new_mode,omitempty"`
}

// Diff is an instance against its base.
type Diff struct {
	Instance string       `json:"instance"`
	Files    []FileChange `json:"files"`
	// Patch is the unified diff of every file (git's format; binary
	// files are named, not shown).
	Patch string `json:"patch"`
}

// Lines sums the added and removed lines.
func (d Diff) Lines() (added, removed int) {
	for _, f := range d.Files {
		added += f.Added
		removed += f.Removed
	}
	return added, removed
}

// Diff compares an instance with its base: a worktree instance's files
// (committed by the agent or not, ignored ones left out) with the snapshot
// it was made from; a copy's files with its manifest.
func (m *Manager) Diff(id string) (Diff, error) {
	in, err := m.Get(id)
	if err != nil {
		return Diff{}, err
	}
	var d Diff
	if in.Kind == Worktree {
		d, err = m.diffWorktree(in)
	} else {
		d, err = m.diffCopy(in)
	}
	if err != nil {
		return Diff{}, fmt.Errorf("diff instance %s: %w", id, err)
	}
	d.Instance = id
	sort.Slice(d.Files, func(i, j int) bool { return d.Files[i].Path < d.Files[j].Path })
	return d, nil
}

// String is a one-line summary: files and lines.
func (d Diff) String() string {
	a, r := d.Lines()
	var b strings.Builder
	fmt.Fprintf(&b, "%d files, +%d −%d", len(d.Files), a, r)
	return b.String()
}
