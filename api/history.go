package api

import (
	"errors"
	"fmt"
	"net/http"
	"path"
	"regexp"
	"strings"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/sessions/history"
)

// The history routes read the workspace's history (a git repository under
// .state/git, see sessions/history) through core.Engine.History, as the
// studio and the command line do. A restore writes workspace files, so it
// runs under the workspace's write lease like every other API write, and
// it is made as a new commit, so it can itself be undone.

// routeHistory registers the history routes (see historyOperations for the document).
func (s *Server) routeHistory() {
	const base = "/v1/instances/{instance}/history/"
	s.handle("GET "+base+"commits", s.commits)
	s.handle("GET "+base+"commits/{commit}", s.commit)
	s.handle("GET "+base+"commits/{commit}/diff", s.commitDiff)
	s.handle("GET "+base+"blame", s.blame)
	s.handle("POST "+base+"restore/preview", s.previewRestore)
	s.handle("POST "+base+"restore", s.restore)
}

// historyOperations documents the history routes in the OpenAPI document.
func historyOperations() []operation {
	const base = "/v1/instances/{instance}/history/"
	// historyProblems: a route of the history refuses a bad path or one
	// outside the workspace, and answers a workspace without a history.
	historyProblems := codes(client.CodeBadPath, client.CodeOutsideWorkspace, client.CodeHistoryUnavailable)
	return []operation{
		{method: "GET", path: base + "commits", summary: "A page of the history, newest first (of one session, of commits that changed a path)",
			query: []string{"session", "path", "before", "limit"}, status: 200, resp: client.CommitPage{},
			problems: append(codes(client.CodeAmbiguousSession, client.CodeUnknownCommit), historyProblems...)},
		{method: "GET", path: base + "commits/{commit}", summary: "A commit and the files it changed", status: 200, resp: client.CommitDetail{},
			problems: append(codes(client.CodeUnknownCommit), historyProblems...)},
		{method: "GET", path: base + "commits/{commit}/diff", summary: "A commit's unified diff against its parent (text/x-diff; path= repeats)",
			query: []string{"path"}, status: 200, rawResp: []string{"text/x-diff"},
			problems: append(codes(client.CodeUnknownCommit, client.CodeDiffTooLarge), historyProblems...)},
		{method: "GET", path: base + "blame", summary: "The commit that last changed a path", query: []string{"path"}, status: 200, resp: client.Blame{},
			problems: append(codes(client.CodeNotInHistory), historyProblems...)},
		{method: "POST", path: base + "restore/preview", summary: "What a restore would change, changing nothing",
			body: client.RestorePreviewRequest{}, status: 200, resp: client.RestorePreview{},
			problems: append(codes(client.CodeUnknownCommit, client.CodeNotInHistory), historyProblems...)},
		{method: "POST", path: base + "restore", summary: "Put files back as they were after a commit, as a new commit",
			query: []string{"wait"}, body: client.RestoreRequest{}, status: 201, resp: client.Commit{},
			problems: append(codes(client.CodeUnknownCommit, client.CodeNotInHistory, client.CodeNothingToRestore, client.CodeHistoryMoved,
				client.CodeUnknownSession, client.CodeAmbiguousSession), append(historyProblems, fileWriteProblems...)...)},
	}
}

// History page sizes.
const (
	defaultCommitPage = 50
	maxCommitPage     = 1000
)

// MaxDiff bounds a diff answer; a bigger one is asked for path by path.
const MaxDiff = MaxBody

// commitPattern is what a commit hash or an abbreviation of one looks
// like; the history says whether it names a commit.
var commitPattern = regexp.MustCompile(`^[0-9a-fA-F]{4,64}$`)

func checkCommit(field, c string) error {
	if !commitPattern.MatchString(c) {
		return badRequest(fmt.Sprintf("%s %q: want a commit hash (4 to 64 hex digits)", field, c))
	}
	return nil
}

// openHistory returns the workspace's history, after checking the
// instance; a workspace without one is a history_unavailable problem.
func (s *Server) openHistory(r *http.Request) (*history.History, error) {
	if err := checkInstance(r); err != nil {
		return nil, err
	}
	if h := s.eng.History(); h != nil {
		return h, nil
	}
	why := "the workspace runs without a history"
	if err := s.eng.HistoryError(); err != nil {
		why += ": " + err.Error()
	}
	return nil, &problemError{status: http.StatusServiceUnavailable, code: client.CodeHistoryUnavailable, detail: why}
}

// historyMapping maps the history's errors to problems.
var historyMapping = []struct {
	err    error
	status int
	code   string
}{
	{history.ErrBadCommit, http.StatusNotFound, client.CodeUnknownCommit},
	{history.ErrEmpty, http.StatusNotFound, client.CodeUnknownCommit},
	{history.ErrBadPath, http.StatusBadRequest, client.CodeBadPath},
	{history.ErrBadInput, http.StatusBadRequest, client.CodeBadRequest},
	{history.ErrNotFound, http.StatusNotFound, client.CodeNotInHistory},
	{history.ErrNothingToRestore, http.StatusConflict, client.CodeNothingToRestore},
}

// historyProblem gives an error of the history its problem; others pass.
func historyProblem(err error) error {
	var pe *problemError
	if err == nil || errors.As(err, &pe) {
		return err
	}
	for _, m := range historyMapping {
		if errors.Is(err, m.err) {
			return &problemError{status: m.status, code: m.code, detail: err.Error()}
		}
	}
	return err
}

func wireCommit(c history.Commit) client.Commit {
	out := client.Commit{Hash: c.Hash, Parent: c.Parent, Kind: string(c.Kind), SessionID: c.SessionID, Turn: c.Turn,
		Summary: c.Summary, Time: c.Time, RestoredFrom: c.RestoredFrom}
	for _, sk := range c.Skipped {
		out.Skipped = append(out.Skipped, client.SkippedFile{Path: sk.Path, Size: sk.Size, Reason: sk.Reason})
	}
	return out
}

func wireChanges(fc []history.FileChange) []client.FileChange {
	out := make([]client.FileChange, 0, len(fc))
	for _, f := range fc {
		out = append(out, client.FileChange{Path: f.Path, OldPath: f.OldPath, Status: string(f.Status),
			Additions: f.Additions, Deletions: f.Deletions, Binary: f.Binary})
	}
	return out
}

// historyPath turns a path filter into the workspace-relative form the
// history's changes use, refusing one that leaves the workspace. "" and
// "." filter nothing.
func (s *Server) historyPath(p string) (string, error) {
	rel, err := s.eng.Files().Rel(p)
	if err != nil {
		return "", filesProblem(fmt.Errorf("path %q: %w", p, err))
	}
	switch rel = path.Clean(rel); {
	case rel == "..", strings.HasPrefix(rel, "../"):
		return "", &problemError{status: http.StatusForbidden, code: client.CodeOutsideWorkspace,
			detail: fmt.Sprintf("path %q leaves the workspace", p)}
	case rel == ".":
		return "", nil
	}
	return rel, nil
}

// historyPaths normalises the paths a history route takes as
// historyPath does ("./a", "/abs/ws/a" and "a" are one file; a path
// outside is refused); "." (the whole workspace) drops out, so no paths
// left means every file.
func (s *Server) historyPaths(ps []string) ([]string, error) {
	var out []string
	for _, p := range ps {
		if err := requiredPath("path", p); err != nil {
			return nil, err
		}
		rel, err := s.historyPath(p)
		if err != nil {
			return nil, err
		}
		if rel != "" {
			out = append(out, rel)
		}
	}
	return out, nil
}

// commitSession resolves a ?session= filter: a session's id or prefix, or
// the full id of a session deleted since (its commits stay in the history).
func (s *Server) commitSession(id string) (string, error) {
	if id == "" {
		return "", nil
	}
	if !idPattern.MatchString(id) {
		return "", badRequest(fmt.Sprintf("session %q is not a valid id", id))
	}
	rec, err := s.eng.Session(id)
	switch {
	case err == nil:
		return rec.ID, nil
	case errors.Is(err, core.ErrUnknownSession):
		return id, nil
	}
	return "", err
}

// commits answers a page of the history. A path filter asks the history
// which files each commit changed, newest first, until the page is full:
// its cost grows with the commits it passes over.
func (s *Server) commits(w http.ResponseWriter, r *http.Request) error {
	h, err := s.openHistory(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	limit, err := queryInt(r, "limit", defaultCommitPage, 1, maxCommitPage)
	if err != nil {
		return err
	}
	session, err := s.commitSession(q.Get("session"))
	if err != nil {
		return err
	}
	filter, err := s.historyPath(q.Get("path"))
	if err != nil {
		return err
	}
	before := q.Get("before")
	if before != "" {
		if err := checkCommit("before", before); err != nil {
			return err
		}
	}
	log, err := h.Log(r.Context(), session)
	if err != nil {
		return historyProblem(err)
	}
	if before != "" {
		i := commitIndex(log, before)
		if i < 0 {
			return &problemError{status: http.StatusNotFound, code: client.CodeUnknownCommit,
				detail: fmt.Sprintf("before: %s is not a commit of this listing", before)}
		}
		log = log[i+1:]
	}
	page := client.CommitPage{Commits: []client.Commit{}}
	for _, c := range log {
		if filter != "" {
			touched, err := touches(r, h, c.Hash, filter)
			if err != nil {
				return historyProblem(err)
			}
			if !touched {
				continue
			}
		}
		if len(page.Commits) == limit {
			page.More, page.Next = true, page.Commits[limit-1].Hash
			break
		}
		page.Commits = append(page.Commits, wireCommit(c))
	}
	writeJSON(w, http.StatusOK, page)
	return nil
}

// commitIndex finds a commit in a log by its hash or a prefix of it.
func commitIndex(log []history.Commit, name string) int {
	name = strings.ToLower(name)
	for i, c := range log {
		if strings.HasPrefix(c.Hash, name) {
			return i
		}
	}
	return -1
}

// touches reports whether a commit changed the file p, or a file under
// the folder p (under either name of a rename).
func touches(r *http.Request, h *history.History, hash, p string) (bool, error) {
	changes, err := h.Changes(r.Context(), hash)
	if err != nil {
		return false, err
	}
	for _, f := range changes {
		for _, n := range []string{f.Path, f.OldPath} {
			if n != "" && (n == p || strings.HasPrefix(n, p+"/")) {
				return true, nil
			}
		}
	}
	return false, nil
}

func (s *Server) commit(w http.ResponseWriter, r *http.Request) error {
	h, err := s.openHistory(r)
	if err != nil {
		return err
	}
	name := r.PathValue("commit")
	if err := checkCommit("commit", name); err != nil {
		return err
	}
	c, err := h.Show(r.Context(), name)
	if err != nil {
		return historyProblem(err)
	}
	changes, err := h.Changes(r.Context(), c.Hash)
	if err != nil {
		return historyProblem(err)
	}
	writeJSON(w, http.StatusOK, client.CommitDetail{Commit: wireCommit(c), Files: wireChanges(changes)})
	return nil
}

// commitDiff answers a commit's unified diff as text, of the files under
// the given paths (every workspace file when none), never the session logs.
func (s *Server) commitDiff(w http.ResponseWriter, r *http.Request) error {
	h, err := s.openHistory(r)
	if err != nil {
		return err
	}
	name := r.PathValue("commit")
	if err := checkCommit("commit", name); err != nil {
		return err
	}
	paths, err := s.historyPaths(r.URL.Query()["path"])
	if err != nil {
		return err
	}
	d, err := h.Diff(r.Context(), name, paths...)
	if err != nil {
		return historyProblem(err)
	}
	if len(d) > MaxDiff {
		return &problemError{status: http.StatusRequestEntityTooLarge, code: client.CodeDiffTooLarge,
			detail: fmt.Sprintf("the diff of %s is %d bytes, over the limit of %d: ask for some paths (?path=)", name, len(d), MaxDiff)}
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/x-diff; charset=utf-8")
	hd.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write([]byte(d)); err != nil {
		panic(http.ErrAbortHandler) // the client went away mid-answer
	}
	return nil
}

func (s *Server) blame(w http.ResponseWriter, r *http.Request) error {
	h, err := s.openHistory(r)
	if err != nil {
		return err
	}
	p := r.URL.Query().Get("path")
	if err := requiredPath("path", p); err != nil {
		return err
	}
	if p, err = s.historyPath(p); err != nil {
		return err
	}
	if p == "" {
		return &problemError{status: http.StatusBadRequest, code: client.CodeBadPath, detail: "path: blame names a file, not the whole workspace"}
	}
	c, err := h.Blame(r.Context(), p)
	if err != nil {
		return historyProblem(err)
	}
	writeJSON(w, http.StatusOK, client.Blame{Path: p, Commit: wireCommit(c)})
	return nil
}

// head is the history's newest commit ("" while it has none).
func head(r *http.Request, h *history.History) (string, error) {
	log, err := h.Log(r.Context(), "")
	if err != nil || len(log) == 0 {
		return "", err
	}
	return log[0].Hash, nil
}

func (s *Server) previewRestore(w http.ResponseWriter, r *http.Request) error {
	h, err := s.openHistory(r)
	if err != nil {
		return err
	}
	var req client.RestorePreviewRequest
	if err := decode(w, r, &req); err != nil {
		return err
	}
	if err := checkCommit("commit", req.Commit); err != nil {
		return err
	}
	if req.Paths, err = s.historyPaths(req.Paths); err != nil {
		return err
	}
	tip, err := head(r, h)
	if err != nil {
		return historyProblem(err)
	}
	p, err := h.PreviewRestore(r.Context(), req.Commit, req.Paths)
	if err != nil {
		return historyProblem(err)
	}
	out := client.RestorePreview{Target: wireCommit(p.Target), Head: tip, Files: []client.RestoreFile{}}
	for _, f := range p.Files {
		out.Files = append(out.Files, client.RestoreFile{Path: f.Path, Action: string(f.Action),
			UserChanged: f.UserChanged, ChangedBy: f.ChangedBy, Blocked: f.Blocked})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// restore puts files back as they were after a commit, under the
// workspace's write lease. With Head it first checks that no commit was
// made since the preview the caller saw.
func (s *Server) restore(w http.ResponseWriter, r *http.Request) error {
	h, err := s.openHistory(r)
	if err != nil {
		return err
	}
	var req client.RestoreRequest
	if err := decode(w, r, &req); err != nil {
		return err
	}
	if err := checkCommit("commit", req.Commit); err != nil {
		return err
	}
	if req.Head != "" {
		if err := checkCommit("head", req.Head); err != nil {
			return err
		}
	}
	if req.Session != "" && !idPattern.MatchString(req.Session) {
		return badRequest(fmt.Sprintf("session %q is not a valid id", req.Session))
	}
	if req.Paths, err = s.historyPaths(req.Paths); err != nil {
		return err
	}
	release, err := s.writeLease(r)
	if err != nil {
		return err
	}
	defer release()
	if req.Head != "" {
		tip, err := head(r, h)
		if err != nil {
			return historyProblem(err)
		}
		if !strings.HasPrefix(tip, strings.ToLower(req.Head)) {
			return &problemError{status: http.StatusConflict, code: client.CodeHistoryMoved,
				detail: fmt.Sprintf("the history's newest commit is %s, not %s: preview the restore again", tip, req.Head)}
		}
	}
	c, err := h.Restore(r.Context(), req.Commit, req.Paths, history.RestoreOptions{SessionID: req.Session})
	if err != nil {
		return historyProblem(err)
	}
	writeJSON(w, http.StatusCreated, wireCommit(c))
	return nil
}
