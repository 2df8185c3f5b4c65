package history

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// instanceIDPattern is the instances package's id rule: an id is safe as a
// ref name component, a file name and a trailer value.
var instanceIDPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// instanceRefPrefix holds one ref per instance, outside refs/heads so no
// instance chain can be mistaken for (or collide with) the workspace
// branch; refs anywhere under refs/ keep their commits from gc.
const instanceRefPrefix = "refs/instances/"

// instanceDir is the folder under .state/git holding the instances' indexes.
const instanceDir = "instances"

func instanceRef(id string) string { return instanceRefPrefix + id }

// instanceIndex is the index file of instance id in gitDir.
func instanceIndex(gitDir, id string) string {
	return filepath.Join(gitDir, instanceDir, id+".index")
}

// Instance returns the history of one instance of this workspace: a *History
// whose work tree is workTree (the instance's folder, outside the workspace),
// sharing this repository (.state/git), its configuration and its lock, with
// its own index and its own ref, so nothing it does moves the workspace's
// branch or index. Its first use records the instance as it is in a snapshot
// commit whose parent is the workspace branch's head at that moment, so the
// instance's first turn's Changes show only what the turn did. CommitTurn,
// Snapshot, Log, Changes, Diff, Blame, BlameAll, PreviewRestore and Restore on
// it act on the instance's chain and folder. Every commit it makes carries the
// trailer naming its instance (Commit.Instance). id follows the instances
// package's id rule ^[a-z0-9][a-z0-9_-]{0,63}$; workTree must be absolute
// and must not be inside the workspace.
//
// Later uses (a new engine on the same workspace) find the instance's chain
// and take no snapshot: like Open, they leave edits made meanwhile to the
// next commit. A value used after DropInstance of its id begins a new
// chain with a snapshot, as a first use does. The session logs a turn of an instance names (TurnCommit.Logs)
// are the workspace's files under .state/, as for the workspace's turns;
// they are recorded in the instance's chain. Workspace returns workTree.
func (h *History) Instance(id, workTree string) (*History, error) {
	if h.parent != nil {
		return h.parent.Instance(id, workTree)
	}
	fail := func(err error) (*History, error) {
		return nil, fmt.Errorf("history of instance %q: %w", id, err)
	}
	if !instanceIDPattern.MatchString(id) {
		return fail(fmt.Errorf("id does not match %s: %w", instanceIDPattern, ErrBadInput))
	}
	if !filepath.IsAbs(workTree) {
		return fail(fmt.Errorf("folder %q is not absolute: %w", workTree, ErrBadPath))
	}
	abs := filepath.Clean(workTree)
	st, err := os.Stat(abs)
	if err != nil {
		return fail(err)
	}
	if !st.IsDir() {
		return fail(fmt.Errorf("%s is not a folder: %w", abs, ErrBadPath))
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return fail(err)
	}
	for _, pair := range [][2]string{{abs, h.workspace}, {real, h.realWorkspace}} {
		if within(pair[0], pair[1]) || within(pair[1], pair[0]) {
			return fail(fmt.Errorf("folder %s overlaps the workspace %s: %w", abs, h.workspace, ErrBadPath))
		}
	}
	in := &History{
		workspace:     abs,
		realWorkspace: real,
		git: &gitRunner{
			gitDir: h.git.gitDir,
			work:   abs,
			index:  instanceIndex(h.git.gitDir, id),
			base:   h.git.base,
		},
		filter:   h.filter,
		sem:      h.sem,
		ref:      instanceRef(id),
		instance: id,
		parent:   h,
	}
	ctx := context.Background()
	release, err := in.acquire(ctx)
	if err != nil {
		return fail(err)
	}
	defer release()
	// acquire began the chain; drop what became secret since a last use
	// (the patterns may have grown).
	if err := in.dropSecrets(ctx); err != nil {
		return fail(err)
	}
	return in, nil
}

// within reports whether p is root or lies under it.
func within(p, root string) bool {
	if p == root {
		return true
	}
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// begin makes sure the instance has its index and, on first use, its chain:
// the index starts from the workspace branch's tree (so staging it only
// records what differs) and the instance is recorded in a snapshot commit.
// An instance whose index was lost gets it back from its chain's tip. The
// caller holds the lock (acquire calls it for an instance).
func (h *History) begin(ctx context.Context) error {
	if err := os.MkdirAll(filepath.Dir(h.git.index), 0o755); err != nil {
		return err
	}
	head, err := h.head(ctx)
	if err != nil {
		return err
	}
	_, statErr := os.Stat(h.git.index)
	if head != "" && statErr == nil {
		return nil
	}
	from := head
	if from == "" {
		if from, err = h.parent.head(ctx); err != nil {
			return err
		}
		if from == "" {
			return ErrEmpty
		}
	}
	if err := os.Remove(h.git.index); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if _, err := h.git.run(ctx, call{locked: true}, "read-tree", from); err != nil {
		return fmt.Errorf("start the instance's index: %w", err)
	}
	if err := h.dropSecrets(ctx); err != nil {
		return err
	}
	if head != "" {
		return nil
	}
	_, _, err = h.snapshotLocked(ctx, "instance "+h.instance+" when its history began")
	return err
}

// DropInstance removes an instance's ref and index (when the instance is
// discarded); the commits an apply names stay reachable from the workspace branch
// through the apply commit's provenance only as text (that is fine). Dropping
// an instance that has no chain (never used, or dropped already) does
// nothing.
func (h *History) DropInstance(id string) error {
	if h.parent != nil {
		return h.parent.DropInstance(id)
	}
	if !instanceIDPattern.MatchString(id) {
		return fmt.Errorf("drop history of instance %q: id does not match %s: %w", id, instanceIDPattern, ErrBadInput)
	}
	ctx := context.Background()
	release, err := h.acquire(ctx)
	if err != nil {
		return fmt.Errorf("drop history of instance %s: %w", id, err)
	}
	defer release()
	ref := instanceRef(id)
	out, err := h.git.run(ctx, call{okStatus: []int{1}}, "rev-parse", "--verify", "-q", ref)
	if err != nil {
		return fmt.Errorf("drop history of instance %s: %w", id, err)
	}
	if strings.TrimSpace(string(out)) != "" {
		if _, err := h.git.run(ctx, call{locked: true}, "update-ref", "-d", ref); err != nil {
			return fmt.Errorf("drop history of instance %s: %w", id, err)
		}
	}
	index := instanceIndex(h.git.gitDir, id)
	for _, p := range []string{index, index + ".lock"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("drop history of instance %s: %w", id, err)
		}
	}
	return nil
}

// addLogs records an instance's session logs, which live in the workspace's
// .state/ rather than the instance's folder, into index: each is hashed
// from the workspace and entered by path; one that no longer exists is
// dropped. The caller holds the lock.
func (h *History) addLogs(ctx context.Context, index string, logs []string) error {
	var present, gone []string
	var abs strings.Builder
	for _, rel := range logs {
		if strings.ContainsRune(rel, '\n') {
			// --stdin-paths reads one path a line.
			return fmt.Errorf("log %q: %w", rel, ErrBadPath)
		}
		st, err := lstatRel(h.parent.workspace, rel)
		if err != nil || !st.Mode().IsRegular() {
			gone = append(gone, rel)
			continue
		}
		present = append(present, rel)
		abs.WriteString(filepath.Join(h.parent.workspace, filepath.FromSlash(rel)) + "\n")
	}
	if len(present) > 0 {
		out, err := h.git.run(ctx, call{locked: true, stdin: []byte(abs.String())}, "hash-object", "-w", "--no-filters", "--stdin-paths")
		if err != nil {
			return fmt.Errorf("record session logs: %w", err)
		}
		hashes := strings.Fields(string(out))
		if len(hashes) != len(present) {
			return fmt.Errorf("record session logs: git hashed %d of %d files", len(hashes), len(present))
		}
		var info strings.Builder
		for i, rel := range present {
			fmt.Fprintf(&info, "100644 %s\t%s\x00", hashes[i], rel)
		}
		if _, err := h.git.run(ctx, call{locked: true, index: index, stdin: []byte(info.String())}, "update-index", "-z", "--index-info"); err != nil {
			return fmt.Errorf("record session logs: %w", err)
		}
	}
	if len(gone) > 0 {
		if _, err := h.git.run(ctx, call{locked: true, index: index, stdin: nulList(gone)}, "update-index", "--force-remove", "-z", "--stdin"); err != nil {
			return fmt.Errorf("record session logs: %w", err)
		}
	}
	return nil
}
