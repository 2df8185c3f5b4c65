package history

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Log lists the history's commits, newest first; with a non-empty
// sessionFilter, only the commits of that session. The workspace's Log
// lists its branch, never an instance's commits (an apply is one commit of
// its own). An instance's Log lists its chain: the commits not on the
// workspace branch, from the snapshot that began it; the workspace commits
// it grew from are left out.
func (h *History) Log(ctx context.Context, sessionFilter string) ([]Commit, error) {
	head, err := h.head(ctx)
	if err != nil {
		return nil, fmt.Errorf("history log: %w", err)
	}
	if head == "" {
		return nil, nil
	}
	args := []string{"log", "--format=" + logFormat, head}
	if h.parent != nil {
		args = append(args, "--not", branchRef, "--")
	}
	var out []Commit
	err = h.git.stream(ctx, call{}, func(r io.Reader) error {
		return eachRecord(r, func(rec string) error {
			c, err := parseCommit(rec)
			if err != nil {
				return err
			}
			if sessionFilter == "" || c.SessionID == sessionFilter {
				out = append(out, c)
			}
			return nil
		})
	}, args...)
	if err != nil {
		return nil, fmt.Errorf("history log: %w", err)
	}
	return out, nil
}

// Show returns one commit of the history.
func (h *History) Show(ctx context.Context, commit string) (Commit, error) {
	hash, err := h.resolve(ctx, commit)
	if err != nil {
		return Commit{}, fmt.Errorf("show %s: %w", commit, err)
	}
	c, err := h.commit(ctx, hash)
	if err != nil {
		return Commit{}, fmt.Errorf("show %s: %w", commit, err)
	}
	return c, nil
}

// commit reads one commit by full hash.
func (h *History) commit(ctx context.Context, hash string) (Commit, error) {
	out, err := h.git.run(ctx, call{}, "log", "-1", "--format="+logFormat, hash)
	if err != nil {
		return Commit{}, err
	}
	return parseCommit(strings.TrimSuffix(strings.TrimSpace(string(out)), "\x1e"))
}

// resolve checks that name is a (possibly abbreviated) hash of a commit on
// our branch and returns its full hash.
func (h *History) resolve(ctx context.Context, name string) (string, error) {
	if len(name) < 4 || len(name) > 64 || strings.Trim(strings.ToLower(name), "0123456789abcdef") != "" {
		return "", fmt.Errorf("%q: %w", name, ErrBadCommit)
	}
	out, err := h.git.run(ctx, call{okStatus: []int{1, 128}}, "rev-parse", "--verify", "-q", name+"^{commit}")
	if err != nil {
		return "", err
	}
	hash := strings.TrimSpace(string(out))
	if hash == "" {
		return "", fmt.Errorf("%q: %w", name, ErrBadCommit)
	}
	head, err := h.head(ctx)
	if err != nil {
		return "", err
	}
	if head == "" {
		return "", ErrEmpty
	}
	if hash == head {
		return hash, nil
	}
	if _, err := h.git.run(ctx, call{}, "merge-base", "--is-ancestor", hash, head); err != nil {
		var ge *GitError
		if errors.As(err, &ge) && strings.TrimSpace(ge.Stderr) == "" {
			return "", fmt.Errorf("%q is not on the history: %w", name, ErrBadCommit)
		}
		return "", err
	}
	return hash, nil
}

// Blame returns the commit (session and turn) that last changed path. When
// that is an apply of an instance, the commit returned is the apply's
// (Hash, Kind KindApply, Instance) naming, in SessionID and Turn, the
// instance session and turn that last changed the file, and in Applied
// that file's provenance; so blame by turn names the agent's turn, and
// Hash is a commit of this history (Changes, Diff and Restore take it).
func (h *History) Blame(ctx context.Context, path string) (Commit, error) {
	rel, err := h.relPath(path)
	if err != nil || rel == "." || internal(rel) {
		return Commit{}, fmt.Errorf("blame %s: %w", path, ErrBadPath)
	}
	head, err := h.head(ctx)
	if err != nil {
		return Commit{}, fmt.Errorf("blame %s: %w", path, err)
	}
	if head == "" {
		return Commit{}, fmt.Errorf("blame %s: %w", path, ErrNotFound)
	}
	out, err := h.git.run(ctx, call{literal: true}, "log", "-1", "--format="+logFormat, head, "--", rel)
	if err != nil {
		return Commit{}, fmt.Errorf("blame %s: %w", path, err)
	}
	rec := strings.TrimSuffix(strings.TrimSpace(string(out)), "\x1e")
	if rec == "" {
		return Commit{}, fmt.Errorf("blame %s: %w", path, ErrNotFound)
	}
	c, err := parseCommit(rec)
	if err != nil {
		return Commit{}, fmt.Errorf("blame %s: %w", path, err)
	}
	return provenanceOf(c, rel), nil
}

// BlameAll returns, for each file under paths (every recorded file when
// paths is empty), the commit that last changed it, in one walk of the
// history that stops once every file is found. Files the history never
// recorded are absent from the map. A file last changed by an apply maps
// to the apply's commit naming the instance turn, as Blame says.
func (h *History) BlameAll(ctx context.Context, paths []string) (map[string]Commit, error) {
	head, err := h.head(ctx)
	if err != nil || head == "" {
		return map[string]Commit{}, err
	}
	scope, err := h.blameScope(paths)
	if err != nil {
		return nil, fmt.Errorf("blame: %w", err)
	}
	if scope != nil && len(scope) == 0 {
		return map[string]Commit{}, nil
	}
	want, err := h.filesAt(ctx, head, scope)
	if err != nil {
		return nil, fmt.Errorf("blame: %w", err)
	}
	found := make(map[string]Commit, len(want))
	if len(want) == 0 {
		return found, nil
	}
	args := []string{"log", "--format=%x1e" + logFields, "--name-only", "-z", "--no-renames", head, "--"}
	args = append(args, scope...)
	stop := errors.New("all found")
	err = h.git.stream(ctx, call{literal: true}, func(r io.Reader) error {
		return eachRecord(r, func(rec string) error {
			if rec == "" {
				return nil // before the first separator
			}
			meta, files, _ := strings.Cut(rec, "\x00")
			c, err := parseCommit(meta)
			if err != nil {
				return err
			}
			for _, f := range strings.Split(strings.TrimLeft(files, "\n"), "\x00") {
				if _, ok := want[f]; ok {
					if _, done := found[f]; !done {
						found[f] = provenanceOf(c, f)
					}
				}
			}
			if len(found) == len(want) {
				return stop
			}
			return nil
		})
	}, args...)
	if err != nil && !errors.Is(err, stop) {
		return nil, fmt.Errorf("blame: %w", err)
	}
	return found, nil
}

// blameScope turns BlameAll's paths into pathspecs: nil for everything,
// empty when every path named the engine's own files.
func (h *History) blameScope(paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	scope := []string{}
	for _, p := range paths {
		rel, err := h.relPath(p)
		if err != nil {
			return nil, err
		}
		if rel == "." {
			return nil, nil
		}
		if !internal(rel) {
			scope = append(scope, rel)
		}
	}
	return scope, nil
}

// filesAt lists the workspace files (not .state/) recorded in commit under
// the pathspecs scope (everything when empty).
func (h *History) filesAt(ctx context.Context, commit string, scope []string) (map[string]struct{}, error) {
	args := append([]string{"ls-tree", "-r", "-z", "--name-only", commit, "--"}, scope...)
	out, err := h.git.run(ctx, call{literal: true}, args...)
	if err != nil {
		return nil, err
	}
	files := make(map[string]struct{})
	for _, f := range splitNul(out) {
		if !internal(f) {
			files[f] = struct{}{}
		}
	}
	return files, nil
}

// eachRecord calls fn with each 0x1e-terminated record read from r.
func eachRecord(r io.Reader, fn func(string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		if i := bytes.IndexByte(data, 0x1e); i >= 0 {
			return i + 1, data[:i], nil
		}
		if atEOF && len(data) > 0 {
			if len(bytes.TrimSpace(data)) == 0 {
				return len(data), nil, nil
			}
			return len(data), data, nil
		}
		return 0, nil, nil
	})
	for sc.Scan() {
		if err := fn(sc.Text()); err != nil {
			return err
		}
	}
	return sc.Err()
}
