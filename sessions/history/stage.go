package history

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"golang.org/x/sys/unix"
)

// maxKnownPaths is the number of known changed paths above which a full scan
// is cheaper than naming them all to git.
const maxKnownPaths = 2000

// bulkFiles is the number of files to stage at once from which new objects
// go into a pack (git's bulk check-in) instead of one loose file each. Below
// it, loose objects are cheaper than a pack per turn.
const bulkFiles = 256

// SkippedFile is a workspace file left out of a commit: over the size
// limit, or unreadable (a file the system or git cannot read: no
// permission, a named pipe where a file was, a read error). An unreadable
// file never stops the commit: the others are recorded, and it is named
// here and in the commit's message.
type SkippedFile struct {
	Path string
	Size int64 // the file's size, for a file over the size limit
	// Reason says why an unreadable file was left out; it is "" for a file
	// over the size limit.
	Reason string
}

// Unreadable reports whether the file was left out because it could not be
// read (rather than for its size).
func (f SkippedFile) Unreadable() bool { return f.Reason != "" }

// plan is what staging will do to an index: paths to add or update (or to
// remove, when they are gone from disk), paths to drop although they exist
// (now secret, too big, unreadable, or no longer a file), and the files
// skipped for size or because they cannot be read.
type plan struct {
	update  []string
	drop    []string
	skipped []SkippedFile
}

// statusEntry is one line of `git status --porcelain -z`.
type statusEntry struct {
	x, y byte
	path string
}

func (e statusEntry) untracked() bool { return e.x == '?' }

// status lists what differs between the index, our last commit and the work
// tree: all of the workspace, or only pathspecs when scope is non-nil.
func (h *History) status(ctx context.Context, index string, scope []string) ([]statusEntry, error) {
	args := []string{"status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--ignore-submodules=all"}
	if scope != nil {
		if len(scope) == 0 {
			return nil, nil
		}
		args = append(args, "--")
		args = append(args, scope...)
	}
	out, err := h.git.run(ctx, call{locked: true, literal: true, index: index}, args...)
	if err != nil {
		return nil, fmt.Errorf("scan workspace: %w", err)
	}
	var entries []statusEntry
	for _, f := range splitNul(out) {
		if len(f) < 4 {
			continue
		}
		entries = append(entries, statusEntry{x: f[0], y: f[1], path: f[3:]})
	}
	return entries, nil
}

// classify turns status entries into a staging plan, applying the rules of
// what the history records.
func (h *History) classify(entries []statusEntry) plan {
	var p plan
	for _, e := range entries {
		if strings.HasSuffix(e.path, "/") {
			continue // a nested repository: not ours to record
		}
		if h.parent != nil && (internal(e.path) || (e.y == ' ' && !e.untracked())) {
			// An instance: status compares the index with the workspace
			// branch (git's HEAD), not the instance's chain, so an entry
			// whose file matches the index has nothing to stage; and its
			// session logs live in the workspace (see addLogs).
			continue
		}
		if internal(e.path) {
			// Session logs are only added explicitly; a removed session
			// folder leaves the index with its files.
			if strings.HasPrefix(e.path, stateDir+"/") && !e.untracked() && (e.x == 'D' || e.y == 'D') {
				p.update = append(p.update, e.path)
			}
			continue
		}
		if h.filter.secret(e.path) {
			if !e.untracked() {
				p.drop = append(p.drop, e.path)
			}
			continue
		}
		st, err := lstatRel(h.workspace, e.path)
		switch {
		case err != nil:
			p.update = append(p.update, e.path) // gone: --remove drops it
		case st.IsDir():
			if !e.untracked() {
				p.drop = append(p.drop, e.path) // a file became a directory
			}
		case st.Mode().IsRegular() && h.filter.tooBig(st.Size()):
			p.skipped = append(p.skipped, SkippedFile{Path: e.path, Size: st.Size()})
			if !e.untracked() {
				p.drop = append(p.drop, e.path)
			}
		default:
			if why := unreadable(h.workspace, e.path, st); why != "" {
				p.skipped = append(p.skipped, SkippedFile{Path: e.path, Reason: why})
				if !e.untracked() {
					p.drop = append(p.drop, e.path)
				}
				continue
			}
			p.update = append(p.update, e.path)
		}
	}
	sortSkipped(p.skipped)
	return p
}

func sortSkipped(s []SkippedFile) {
	sort.Slice(s, func(i, j int) bool { return s[i].Path < s[j].Path })
}

// unreadable says why git could not record the workspace file rel, whose
// Lstat is st ("" when it can): a regular file that cannot be opened for
// reading, or a file that is neither a regular file nor a symbolic link (a
// named pipe, a socket, a device: git refuses them). A pipe is never opened.
func unreadable(workspace, rel string, st os.FileInfo) string {
	switch {
	case st.Mode()&os.ModeSymlink != 0:
		return "" // git records the link itself
	case !st.Mode().IsRegular():
		return fmt.Sprintf("not a regular file (%s)", fileKind(st.Mode()))
	}
	fd, err := unix.Open(filepath.Join(workspace, filepath.FromSlash(rel)), unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return "" // gone since the scan: staged as a removal
	}
	if err != nil {
		return "cannot be read: " + err.Error()
	}
	_ = unix.Close(fd) // opened only to see that it can be
	return ""
}

// fileKind names a special file's type.
func fileKind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// apply writes a staging plan into index ("" for ours); see applyPlan.
func (h *History) apply(ctx context.Context, index string, p plan, logs []string) error {
	_, err := h.applyPlan(ctx, index, p, logs)
	return err
}

// maxUnreadable bounds how many files git may fail to read in one staging
// before the staging fails: each one costs another pass of git.
const maxUnreadable = 64

// applyPlan writes a staging plan into index ("" for ours). Logs are added
// as they are, bypassing the ignore rules that keep .state/ out. A file git
// cannot read (one classify could not foresee: it changed since, or git
// refuses it for a reason of its own) is left out and staged again without
// it; those files are returned, with git's reason.
func (h *History) applyPlan(ctx context.Context, index string, p plan, logs []string) ([]SkippedFile, error) {
	update := append(append([]string(nil), p.update...), logs...)
	drop := append([]string(nil), p.drop...)
	if index == "" && (len(update) > 0 || len(drop) > 0) {
		if err := h.forgetIndexState(); err != nil {
			return nil, err
		}
	}
	var failed []SkippedFile
	for len(update) > 0 {
		args := []string{"update-index", "--add", "--remove", "--replace", "-z", "--stdin"}
		if len(update) >= bulkFiles {
			// Stream the new objects into one pack rather than a loose
			// file each: five times faster for a first snapshot.
			args = append([]string{"-c", "core.bigFileThreshold=1"}, args...)
		}
		_, err := h.git.run(ctx, call{locked: true, index: index, stdin: nulList(update)}, args...)
		if err == nil {
			break
		}
		bad, why, ok := unprocessable(err)
		i := slices.Index(update, bad)
		if !ok || i < 0 || len(failed) == maxUnreadable || ctx.Err() != nil {
			return nil, fmt.Errorf("stage changes: %w", err)
		}
		update = slices.Delete(update, i, i+1)
		drop = append(drop, bad)
		failed = append(failed, SkippedFile{Path: bad, Reason: why})
	}
	if len(drop) > 0 {
		if _, err := h.git.run(ctx, call{locked: true, index: index, stdin: nulList(drop)},
			"update-index", "--force-remove", "-z", "--stdin"); err != nil {
			return nil, fmt.Errorf("stage removals: %w", err)
		}
	}
	return failed, nil
}

// unprocessable reads, from a failed `git update-index`, the path git gave
// up on ("fatal: Unable to process path P") and why (its "error:" lines).
func unprocessable(err error) (path, why string, ok bool) {
	var ge *GitError
	if !errors.As(err, &ge) {
		return "", "", false
	}
	const fatal = "fatal: Unable to process path "
	var reasons []string
	for _, line := range strings.Split(ge.Stderr, "\n") {
		switch {
		case strings.HasPrefix(line, fatal):
			path, ok = strings.TrimPrefix(line, fatal), true
		case strings.HasPrefix(line, "error: "):
			reasons = append(reasons, strings.TrimPrefix(line, "error: "))
		}
	}
	if !ok || path == "" {
		return "", "", false
	}
	why = "git cannot read it"
	if len(reasons) > 0 {
		why += ": " + strings.Join(reasons, "; ")
	}
	return path, oneLine(why), true
}

// stage brings index ("" for ours) up to date with the workspace: all of
// it when known is nil, else only the known paths. It returns the files
// skipped for size or because they cannot be read.
func (h *History) stage(ctx context.Context, index string, known []string, logs []string) ([]SkippedFile, error) {
	if len(known) > maxKnownPaths {
		known = nil
	}
	entries, err := h.status(ctx, index, known)
	if err != nil {
		return nil, err
	}
	p := h.classify(entries)
	if known == nil || h.touchesIgnoreRules(known) {
		ignored, err := h.ignoredTracked(ctx, index)
		if err != nil {
			return nil, err
		}
		p.drop = append(p.drop, ignored...)
	}
	own := logs
	if h.parent != nil {
		own = nil
	}
	failed, err := h.applyPlan(ctx, index, p, own)
	if err != nil {
		return nil, err
	}
	if h.parent != nil && len(logs) > 0 {
		if err := h.addLogs(ctx, index, logs); err != nil {
			return nil, err
		}
	}
	if len(failed) > 0 {
		p.skipped = append(p.skipped, failed...)
		sortSkipped(p.skipped)
	}
	return p.skipped, nil
}

// ignoredTracked lists the recorded workspace files that the ignore rules
// match now (a .gitignore changed since they were recorded): the history
// follows the current rules, so they are dropped from it (not from disk).
func (h *History) ignoredTracked(ctx context.Context, index string) ([]string, error) {
	out, err := h.git.run(ctx, call{locked: true, index: index}, "ls-files", "-z", "--cached", "--ignored", "--exclude-standard")
	if err != nil {
		return nil, fmt.Errorf("list ignored files: %w", err)
	}
	var drop []string
	for _, p := range splitNul(out) {
		if !internal(p) {
			drop = append(drop, p)
		}
	}
	return drop, nil
}

// touchesIgnoreRules reports whether a .gitignore is among paths (or may be
// under one of them), so recorded files may have become ignored.
func (h *History) touchesIgnoreRules(paths []string) bool {
	for _, p := range paths {
		if path.Base(p) == ".gitignore" {
			return true
		}
		if st, err := lstatRel(h.workspace, p); err == nil && st.IsDir() {
			return true
		}
	}
	return false
}

// Divergence lists the workspace files that differ from the last commit:
// edits, creations and deletions made outside any recorded turn (while the
// studio was closed, say). Files the history does not record (ignored,
// secret, too big) are not listed unless they used to be recorded.
func (h *History) Divergence(ctx context.Context) ([]string, error) {
	release, err := h.acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("divergence: %w", err)
	}
	defer release()
	entries, err := h.status(ctx, "", nil)
	if err != nil {
		return nil, fmt.Errorf("divergence: %w", err)
	}
	p := h.classify(entries)
	ignored, err := h.ignoredTracked(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("divergence: %w", err)
	}
	p.drop = append(p.drop, ignored...)
	var out []string
	for _, list := range [][]string{p.update, p.drop} {
		for _, path := range list {
			if !internal(path) {
				out = append(out, path)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// knownPaths validates the paths a caller says changed and turns them into
// workspace-relative pathspecs, dropping the engine's own files.
func (h *History) knownPaths(paths []string) ([]string, error) {
	if paths == nil {
		return nil, nil
	}
	out := make([]string, 0, len(paths))
	seen := make(map[string]bool, len(paths))
	for _, p := range paths {
		rel, err := h.relPath(p)
		if err != nil {
			return nil, err
		}
		if rel == "." {
			return nil, nil // the whole workspace changed: scan it
		}
		if internal(rel) || seen[rel] {
			continue
		}
		seen[rel] = true
		out = append(out, rel)
	}
	return out, nil
}

// logPaths validates session log paths: files under .state/, outside the
// history's own git directory.
func (h *History) logPaths(paths []string) ([]string, error) {
	out := make([]string, 0, len(paths))
	owner := h
	if h.parent != nil {
		owner = h.parent // an instance's session logs are the workspace's
	}
	for _, p := range paths {
		rel, err := owner.relPath(p)
		if err != nil {
			return nil, err
		}
		if !strings.HasPrefix(rel, stateDir+"/") || strings.HasPrefix(rel, stateDir+"/git/") || rel == stateDir+"/git" {
			return nil, fmt.Errorf("log %q is not a session file under %s/: %w", p, stateDir, ErrBadInput)
		}
		out = append(out, rel)
	}
	return out, nil
}
