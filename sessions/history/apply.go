package history

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// AppliedProvenance says where one file an apply wrote or removed came
// from: the instance turn that last changed it.
type AppliedProvenance struct {
	Path      string // workspace-relative
	SessionID string // the instance session whose turn last changed it ("" if unknown)
	Turn      int
	Commit    string // that turn's commit on the instance chain ("" if unknown)
}

// ApplyCommit describes an apply of an instance to record.
type ApplyCommit struct {
	Apply    string // the apply's id (instances.Provenance.Apply): a repeat is found, not committed twice
	Instance string
	Files    []AppliedProvenance // the paths the apply wrote or removed
}

// CommitApply records, on the workspace branch, the files an apply of an
// instance wrote or removed, as one commit of KindApply ("applied instance X"),
// staging exactly those paths (under the usual rules of what the history records),
// with the provenance of each file in trailers. made is false (and c the earlier commit)
// when a commit with the same apply id already exists on the branch (a recovered
// apply finished twice must not record twice).
//
// The commit is made even when the rules leave every path out (a secret
// file, say), so the apply is on the record and a repeat is recognised. A
// path that is neither in the workspace now nor recorded by the last
// commit (nor a secret, which never is) is refused with ErrNotFound:
// the apply cannot have written or removed it. Restoring the commit's
// parent for its paths undoes the apply like any restore.
func (h *History) CommitApply(ctx context.Context, a ApplyCommit) (c Commit, made bool, err error) {
	fail := func(err error) (Commit, bool, error) {
		return Commit{}, false, fmt.Errorf("commit apply of instance %q: %w", a.Instance, err)
	}
	if h.parent != nil {
		return fail(fmt.Errorf("an instance's history records no apply: %w", ErrBadInput))
	}
	if !instanceIDPattern.MatchString(a.Instance) {
		return fail(fmt.Errorf("instance id does not match %s: %w", instanceIDPattern, ErrBadInput))
	}
	if !validSessionID(a.Apply) {
		return fail(fmt.Errorf("apply id %q: %w", a.Apply, ErrBadInput))
	}
	if len(a.Files) == 0 {
		return fail(fmt.Errorf("no files: %w", ErrBadInput))
	}
	files, paths, err := h.appliedFiles(a.Files)
	if err != nil {
		return fail(err)
	}
	release, err := h.acquire(ctx)
	if err != nil {
		return fail(err)
	}
	defer release()
	if earlier, ok, err := h.findApply(ctx, a.Apply); err != nil {
		return fail(err)
	} else if ok {
		return earlier, false, nil
	}
	head, err := h.head(ctx)
	if err != nil {
		return fail(err)
	}
	recorded, err := h.filesAt(ctx, head, paths)
	if err != nil {
		return fail(err)
	}
	var missing []string
	for _, p := range paths {
		if _, ok := recorded[p]; ok || h.filter.secret(p) {
			continue
		}
		st, err := lstatRel(h.workspace, p)
		if err != nil {
			missing = append(missing, p)
			continue
		}
		if st.IsDir() {
			return fail(fmt.Errorf("%s is a folder, not a file an apply writes: %w", p, ErrBadPath))
		}
	}
	if err := h.refuseUnknown(ctx, missing); err != nil {
		return fail(err)
	}
	// In batches under the size at which stage would scan everything: an
	// apply records its own files, never an edit made beside it.
	var skipped []SkippedFile
	for start := 0; start < len(paths); start += maxKnownPaths {
		batch := paths[start:min(start+maxKnownPaths, len(paths))]
		s, err := h.stage(ctx, "", batch, nil)
		if err != nil {
			return fail(err)
		}
		skipped = append(skipped, s...)
	}
	sortSkipped(skipped)
	n := "files"
	if len(files) == 1 {
		n = "file"
	}
	c = Commit{
		Summary:  fmt.Sprintf("applied instance %s, %d %s", a.Instance, len(files), n),
		Kind:     KindApply,
		Skipped:  skipped,
		Instance: a.Instance,
		Apply:    a.Apply,
		Applied:  files,
	}
	if c, err = h.commitIndex(ctx, c, true); err != nil {
		return fail(err)
	}
	return c, true, nil
}

// appliedFiles validates an apply's files: workspace files (not the
// engine's own), each named once, with a well-formed provenance. It returns
// them with clean paths, and the paths.
func (h *History) appliedFiles(in []AppliedProvenance) ([]AppliedProvenance, []string, error) {
	out := make([]AppliedProvenance, 0, len(in))
	paths := make([]string, 0, len(in))
	seen := make(map[string]bool, len(in))
	for _, f := range in {
		rel, err := h.relPath(f.Path)
		if err != nil {
			return nil, nil, err
		}
		if rel == "." || internal(rel) {
			return nil, nil, fmt.Errorf("%q is not a workspace file: %w", f.Path, ErrBadPath)
		}
		if seen[rel] {
			return nil, nil, fmt.Errorf("%s named twice: %w", rel, ErrBadInput)
		}
		seen[rel] = true
		if f.SessionID != "" && !validSessionID(f.SessionID) {
			return nil, nil, fmt.Errorf("%s: session id %q: %w", rel, f.SessionID, ErrBadInput)
		}
		if f.Turn < 0 {
			return nil, nil, fmt.Errorf("%s: negative turn: %w", rel, ErrBadInput)
		}
		if f.Commit != "" && !isHash(f.Commit) {
			return nil, nil, fmt.Errorf("%s: commit %q is not a hash: %w", rel, f.Commit, ErrBadInput)
		}
		f.Path = rel
		out = append(out, f)
		paths = append(paths, rel)
	}
	return out, paths, nil
}

// refuseUnknown names the first of paths (files neither in the workspace
// nor recorded by the last commit) that the ignore rules do not leave out:
// an apply cannot have written or removed it. A removed ignored file is
// fine: the history never recorded it.
func (h *History) refuseUnknown(ctx context.Context, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	out, err := h.git.run(ctx, call{locked: true, stdin: nulList(paths), okStatus: []int{1}},
		"check-ignore", "--no-index", "-z", "--stdin")
	if err != nil {
		return fmt.Errorf("check ignore rules: %w", err)
	}
	ignored := make(map[string]bool)
	for _, p := range splitNul(out) {
		ignored[p] = true
	}
	for _, p := range paths {
		if !ignored[p] {
			return fmt.Errorf("%s is neither in the workspace nor in the history: %w", p, ErrNotFound)
		}
	}
	return nil
}

// isHash reports whether s looks like a (possibly abbreviated) commit hash.
func isHash(s string) bool {
	return len(s) >= 4 && len(s) <= 64 && strings.Trim(strings.ToLower(s), "0123456789abcdef") == ""
}

// findApply looks on the workspace branch for the commit of apply id.
func (h *History) findApply(ctx context.Context, id string) (Commit, bool, error) {
	head, err := h.head(ctx)
	if err != nil || head == "" {
		return Commit{}, false, err
	}
	var found Commit
	var ok bool
	err = h.git.stream(ctx, call{}, func(r io.Reader) error {
		return eachRecord(r, func(rec string) error {
			c, err := parseCommit(rec)
			if err != nil {
				return err
			}
			if !ok && c.Kind == KindApply && c.Apply == id {
				found, ok = c, true
			}
			return nil
		})
	}, "log", "--format="+logFormat, "--fixed-strings", "--grep="+trailerApply+": "+id, head)
	if err != nil {
		return Commit{}, false, fmt.Errorf("look for apply %s: %w", id, err)
	}
	return found, ok, nil
}

// provenanceOf narrows a KindApply commit to what blame by turn needs for
// path: the session and turn of the instance turn that last changed it
// (Hash stays the apply's: the commit on this branch that changed the
// file). Other commits, and paths the apply has no provenance for, are
// returned as they are.
func provenanceOf(c Commit, path string) Commit {
	if c.Kind != KindApply {
		return c
	}
	for _, p := range c.Applied {
		if p.Path == path {
			c.SessionID, c.Turn = p.SessionID, p.Turn
			c.Applied = []AppliedProvenance{p}
			return c
		}
	}
	return c
}
