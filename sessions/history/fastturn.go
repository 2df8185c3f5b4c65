package history

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// maxFastBytes bounds the file contents a fast turn commit holds in memory
// to hand to git; a turn that wrote more takes the staging path.
const maxFastBytes = 64 << 20

// errSlowPath says the fast turn commit cannot vouch for its result (a
// folder among the paths, a nested repository, a path git would need
// quoted...): the caller stages through the index instead.
var errSlowPath = errors.New("take the staging path")

// fastEdit is one change to the last tree: a file's new mode and content,
// or its removal (del).
type fastEdit struct {
	path string
	mode string
	data []byte
	del  bool
	// gone says the path is not on disk (or not for the history: a
	// secret), whatever the last tree or the ignore rules say.
	gone bool
	// skip is the file left out (too big, unreadable) unless a scan
	// would not see it at all; special says it is not a regular file
	// or a link, which a scan sees only when the last tree holds it.
	skip    *SkippedFile
	special bool
}

// fastTurn commits a turn whose changed paths are known without reading or
// rewriting the workspace's index: on a 20,000-file workspace those cost
// more than the turn's few files. It applies to the branch's last tree
// exactly the changes that staging the same paths would (same rules: the
// ignore files, secrets, the size limit, unreadable files, symbolic links,
// executable bits), with one git fast-import that writes the objects, the
// commit and the ref, plus one cat-file to learn which paths the last tree
// holds and, for paths it does not, one check-ignore. It returns
// errSlowPath when it cannot vouch for that (the index state file is
// missing, a folder is named...); the index is then untouched. The caller
// holds the lock, taken without syncing the index.
func (h *History) fastTurn(ctx context.Context, c Commit, known, logs []string) (Commit, error) {
	if !h.ownsIndexState() || len(known) > maxKnownPaths {
		return Commit{}, errSlowPath
	}
	state, err := h.readIndexState()
	if err != nil {
		return Commit{}, err
	}
	if state.base == "" || state.bad {
		return Commit{}, errSlowPath
	}
	for _, p := range append(append([]string(nil), known...), logs...) {
		if p == "" || p[0] == '"' || strings.ContainsAny(p, "\n\x00") {
			return Commit{}, errSlowPath // fast-import would need it quoted
		}
	}
	var edits []fastEdit
	var exist []string // paths on disk: what becomes of them depends on tracked and ignored
	for _, p := range known {
		e, err := h.fastClassify(p)
		if err != nil {
			return Commit{}, err
		}
		if !e.gone {
			exist = append(exist, p)
		}
		edits = append(edits, e)
	}
	head, tracked, err := h.lastTreeHolds(ctx, exist)
	if err != nil {
		return Commit{}, err
	}
	var untracked []string
	for _, p := range exist {
		if !tracked[p] {
			untracked = append(untracked, p)
		}
	}
	ignored, err := h.ignoredPaths(ctx, untracked)
	if err != nil {
		return Commit{}, err
	}
	var skipped []SkippedFile
	total := 0
	for i, e := range edits {
		switch {
		case e.gone:
		case ignored[e.path]:
			// A scan never sees an untracked file the ignore rules
			// match: not recorded, not skipped; a folder it replaced
			// in the last tree is gone all the same.
			edits[i] = fastEdit{path: e.path, del: true}
		case e.special && !tracked[e.path]:
			// Nor does it list an untracked special file.
			edits[i] = fastEdit{path: e.path, del: true}
		case e.skip != nil:
			skipped = append(skipped, *e.skip)
		}
		total += len(edits[i].data)
	}
	for _, l := range logs {
		e, err := fastLog(h.workspace, l)
		if err != nil {
			return Commit{}, err
		}
		total += len(e.data)
		edits = append(edits, e)
	}
	if total > maxFastBytes {
		return Commit{}, errSlowPath
	}
	sortSkipped(skipped)
	c.Skipped = skipped
	if state.head == state.base {
		// The index is about to fall behind: say so first, so that a
		// crash after the commit still has the next operation sync it.
		if err := h.writeIndexState(indexState{base: state.base, head: strings.Repeat("0", len(state.base))}); err != nil {
			return Commit{}, err
		}
	}
	return h.fastImport(ctx, c, head, edits)
}

// fastClassify decides what staging would do with the known changed path
// p: record it (its mode and content, read now), remove it (gone, a
// secret), leave it out (over the size limit, unreadable), or give up on
// the fast path (a folder, a path through a symbolic link or a nested
// repository, an ignore file).
func (h *History) fastClassify(p string) (fastEdit, error) {
	gone := fastEdit{path: p, del: true, gone: true}
	for dir := path.Dir(p); dir != "."; dir = path.Dir(dir) {
		st, err := lstatRel(h.workspace, dir)
		if errors.Is(err, os.ErrNotExist) {
			continue // a parent folder is gone, so is p: a removal
		}
		if err != nil || !st.IsDir() {
			return fastEdit{}, errSlowPath // p is beyond a link or a file
		}
		if _, err := lstatRel(h.workspace, dir+"/.git"); !errors.Is(err, os.ErrNotExist) {
			return fastEdit{}, errSlowPath // inside a nested repository
		}
	}
	st, err := lstatRel(h.workspace, p)
	switch {
	case errors.Is(err, os.ErrNotExist) || errors.Is(err, unix.ENOTDIR):
		return gone, nil
	case err != nil:
		return fastEdit{}, errSlowPath
	case st.IsDir() || path.Base(p) == ".gitignore":
		// A folder stands for everything under it, and a changed ignore
		// file may change what else is recorded: the index decides.
		return fastEdit{}, errSlowPath
	case h.filter.secret(p):
		return gone, nil
	case st.Mode().IsRegular() && h.filter.tooBig(st.Size()):
		return fastEdit{path: p, del: true, skip: &SkippedFile{Path: p, Size: st.Size()}}, nil
	}
	if why := unreadable(h.workspace, p, st); why != "" {
		special := !st.Mode().IsRegular()
		return fastEdit{path: p, del: true, skip: &SkippedFile{Path: p, Reason: why}, special: special}, nil
	}
	full := filepath.Join(h.workspace, filepath.FromSlash(p))
	if st.Mode()&os.ModeSymlink != 0 {
		target, err := os.Readlink(full)
		if err != nil {
			return fastEdit{}, errSlowPath
		}
		return fastEdit{path: p, mode: "120000", data: []byte(target)}, nil
	}
	data, err := readNoFollow(full, h.filter.maxSize)
	if err != nil {
		return fastEdit{}, errSlowPath // changed since the stat: let git see it
	}
	return fastEdit{path: p, mode: fileMode(st.Mode()), data: data}, nil
}

// fastLog is the edit recording session log l as it is, or its removal
// when it no longer exists.
func fastLog(workspace, l string) (fastEdit, error) {
	full := filepath.Join(workspace, filepath.FromSlash(l))
	st, err := os.Lstat(full)
	if errors.Is(err, os.ErrNotExist) {
		return fastEdit{path: l, del: true}, nil
	}
	if err != nil || !st.Mode().IsRegular() {
		return fastEdit{}, errSlowPath
	}
	data, err := readNoFollow(full, -1)
	if err != nil {
		return fastEdit{}, errSlowPath
	}
	return fastEdit{path: l, mode: fileMode(st.Mode()), data: data}, nil
}

// fileMode is the mode git records for a regular file: executable when its
// owner may run it.
func fileMode(m os.FileMode) string {
	if m&0o100 != 0 {
		return "100755"
	}
	return "100644"
}

// readNoFollow reads a regular file without following a link put in its
// place, refusing one grown over limit (when limit > 0) since the stat.
func readNoFollow(full string, limit int64) ([]byte, error) {
	fd, err := unix.Open(full, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), full)
	defer func() { _ = f.Close() }() // read only: nothing to flush
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(f); err != nil {
		return nil, err
	}
	if limit > 0 && int64(buf.Len()) > limit {
		return nil, fmt.Errorf("%s grew over the size limit", full)
	}
	return buf.Bytes(), nil
}

// lastTreeHolds returns the branch's tip and which of paths its tree holds
// as files, in one git cat-file.
func (h *History) lastTreeHolds(ctx context.Context, paths []string) (string, map[string]bool, error) {
	var in bytes.Buffer
	in.WriteString(h.ref + "\n")
	for _, p := range paths {
		in.WriteString(h.ref + ":" + p + "\n")
	}
	out, err := h.git.run(ctx, call{stdin: in.Bytes()}, "cat-file", "--batch-check=%(objectname) %(objecttype)")
	if err != nil {
		return "", nil, fmt.Errorf("read last tree: %w", err)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(paths)+1 {
		return "", nil, fmt.Errorf("read last tree: %d answers for %d questions", len(lines), len(paths)+1)
	}
	f := strings.Fields(lines[0])
	if len(f) != 2 || f[1] != "commit" {
		return "", nil, errSlowPath // an empty history
	}
	tracked := make(map[string]bool, len(paths))
	for i, p := range paths {
		if strings.HasSuffix(lines[i+1], " blob") {
			tracked[p] = true
		}
	}
	return f[0], tracked, nil
}

// ignoredPaths returns which of paths the ignore rules match, as a scan
// would see them, in one git check-ignore (none for no paths).
func (h *History) ignoredPaths(ctx context.Context, paths []string) (map[string]bool, error) {
	ignored := map[string]bool{}
	if len(paths) == 0 {
		return ignored, nil
	}
	out, err := h.git.run(ctx, call{stdin: nulList(paths), okStatus: []int{1}},
		"check-ignore", "--no-index", "-z", "--stdin")
	if err != nil {
		return nil, fmt.Errorf("check ignore rules: %w", err)
	}
	for _, p := range splitNul(out) {
		ignored[p] = true
	}
	return ignored, nil
}

// fastImport writes the commit of c whose tree is parent's with edits, and
// moves the branch to it (from parent), with one git fast-import.
func (h *History) fastImport(ctx context.Context, c Commit, parent string, edits []fastEdit) (Commit, error) {
	now := time.Now().Truncate(time.Second)
	c.Parent, c.Time = parent, now
	msg := message(c)
	who := func(role string) string {
		return fmt.Sprintf("%s %s <%s> %d +0000\n", role, identityName, identityEmail, now.Unix())
	}
	var w bytes.Buffer
	fmt.Fprintf(&w, "commit %s\nmark :1\n%s%sdata %d\n%s\nfrom %s\n", h.ref, who("author"), who("committer"), len(msg), msg, parent)
	for _, e := range edits {
		if e.del {
			fmt.Fprintf(&w, "D %s\n", e.path)
			continue
		}
		fmt.Fprintf(&w, "M %s inline %s\ndata %d\n", e.mode, e.path, len(e.data))
		w.Write(e.data)
		w.WriteByte('\n')
	}
	w.WriteString("\nget-mark :1\ndone\n")
	// The turn's objects stay in the small pack fast-import writes: by
	// default it would start git unpack-objects to loosen them, a process
	// costing more than the rest of the commit. The packs add up until
	// the periodic gc --auto (more than gc.autoPackLimit of them) repacks.
	out, err := h.git.run(ctx, call{locked: true, stdin: w.Bytes()},
		"-c", "fastimport.unpackLimit=0", "fast-import", "--quiet", "--done", "--date-format=raw")
	if err != nil {
		return Commit{}, fmt.Errorf("commit tree: %w", err)
	}
	c.Hash = strings.TrimSpace(string(out))
	if !fullHash(c.Hash) {
		return Commit{}, fmt.Errorf("commit tree: fast-import answered %q", c.Hash)
	}
	if h.commits.Add(1)%gcEvery == 0 {
		// Packing is housekeeping: a failure must not fail the turn.
		_, _ = h.git.run(ctx, call{locked: true}, "gc", "--auto", "--quiet")
	}
	return c, nil
}
