package client

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/atelier-studio/atelier/engine"
)

// Codes of the problems the files routes report. They sit here, with the
// routes' types, rather than in problem.go's list, which this work did not
// own; they are as stable as the others.
const (
	// CodeOutsideWorkspace: a path leaves the workspace (".." past the
	// root, an absolute path elsewhere, a symlink pointing out): 403.
	CodeOutsideWorkspace = "outside_workspace"
	// CodeProtectedPath: a write to .atelier.toml, .atelier/, .state/ or a
	// .git folder, however the path reaches it: 403. Only a person at the
	// studio may change those.
	CodeProtectedPath = "protected_path"
	// CodeBadPath: a path that is empty where a name is needed, holds a
	// NUL byte, loops through symlinks or names the workspace root for an
	// operation that cannot take it: 400.
	CodeBadPath = "bad_path"
	// CodeFileNotFound: nothing is at the path: 404.
	CodeFileNotFound = "file_not_found"
	// CodeFileExists: something is already at a path that an operation
	// never replaces (mkdir, move, copy, upload, a create-only write): 409.
	CodeFileExists = "file_exists"
	// CodeNotAFile: a file operation on a folder, a device, a socket or a
	// pipe (or a delete of a folder without recursive): 409.
	CodeNotAFile = "not_a_file"
	// CodeNotADirectory: a folder operation (a tree) on something else, or
	// a path that goes through a file as if it were a folder: 409.
	CodeNotADirectory = "not_a_directory"
	// CodeFileTooLarge: a file over the size a route reads into one
	// answer; download streams any size: 413.
	CodeFileTooLarge = "file_too_large"
	// CodeStaleWrite: a write's If-Match names a content the file no
	// longer has (someone wrote it since it was read): 409.
	CodeStaleWrite = "stale_write"
	// CodePathChanged: a path kept changing (a folder swapped for a
	// symlink and back) while it was resolved; trying again may work: 409.
	CodePathChanged = "path_changed"
	// CodeWorkspaceBusy: the workspace's write lease stayed held (by a
	// session's writing operation or an agent's turn) for longer than the
	// request's wait: 409.
	CodeWorkspaceBusy = engine.CodeWorkspaceBusy
	// CodePermissionDenied: the file system refused the host (or is
	// mounted read-only): 403.
	CodePermissionDenied = "permission_denied"
	// CodeNoSpace: the disk (or the user's quota) is full; nothing was
	// written: 507.
	CodeNoSpace = "no_space"
)

// FileEntry is one entry of a workspace folder.
type FileEntry struct {
	Name string `json:"name"`
	// Path is workspace-relative, with the folder's symlinks resolved.
	Path string `json:"path"`
	// Kind is file, dir, symlink or other (a device, socket or pipe).
	Kind string `json:"kind"`
	// IsDir is true for a folder and for a symlink to a folder inside the
	// workspace: what a tree can expand.
	IsDir   bool      `json:"is_dir"`
	Size    int64     `json:"size"`
	Mode    string    `json:"mode"` // permission bits in octal, "0644"
	ModTime time.Time `json:"mod_time"`
	// Target is a symlink's raw target, TargetKind what it resolves to,
	// Broken whether it is unusable (outside, dangling, a loop).
	Target     string `json:"target,omitempty"`
	TargetKind string `json:"target_kind,omitempty"`
	Broken     bool   `json:"broken,omitempty"`
	// Hidden says .gitignore ignores it, or it is one of the folders the
	// studio hides (.git, node_modules, .state).
	Hidden bool `json:"hidden,omitempty"`
	// Protected says writing it is refused (see CodeProtectedPath).
	Protected bool `json:"protected,omitempty"`
	// Error says why a folder of a deep listing could not be listed.
	Error string `json:"error,omitempty"`
}

// FileTree is a listing: the entries of one folder, or of a folder and the
// folders below it to a depth, folders first and then by name, each
// folder's entries right after it. Truncated says the limit cut it short.
type FileTree struct {
	Path      string      `json:"path"`
	Entries   []FileEntry `json:"entries"`
	Truncated bool        `json:"truncated,omitempty"`
}

// TreeQuery selects a listing. Depth 0 or 1 lists one folder; Limit 0 takes
// the server's default; Hidden adds ignored and hidden entries (and goes
// into such folders).
type TreeQuery struct {
	Path   string
	Depth  int
	Limit  int
	Hidden bool
}

// FileContent is a file read whole: its bytes, whatever they are, and the
// ETag to give a later write as its base.
type FileContent struct {
	Path    string // canonical workspace-relative path
	Data    []byte
	Binary  bool
	ETag    string
	ModTime time.Time
}

// FileInfo answers a write: the path written and, for a file, its size
// and its new ETag.
type FileInfo struct {
	Path    string `json:"path"`
	Size    int64  `json:"size,omitempty"`
	ETag    string `json:"etag,omitempty"`
	Created bool   `json:"created,omitempty"`
}

// PathRequest is the body of mkdir and delete. Recursive must be set to
// delete a folder (with everything in it).
type PathRequest struct {
	Path      string `json:"path"`
	Recursive bool   `json:"recursive,omitempty"`
}

// FromToRequest is the body of move and copy. Neither replaces anything
// at To.
type FromToRequest struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// CopyResult answers a copy: what was copied, and what was skipped
// (symlinks and special files, never followed nor recreated).
type CopyResult struct {
	Path    string   `json:"path"`
	Files   int      `json:"files"`
	Dirs    int      `json:"dirs"`
	Bytes   int64    `json:"bytes"`
	Skipped []string `json:"skipped,omitempty"`
}

// WriteOptions qualify a write. IfMatch is the ETag the content was read
// with: the write is refused (CodeStaleWrite) when the file changed since.
// Create refuses to replace anything (CodeFileExists). Wait bounds the wait
// for the workspace's write lease (0: the server's default).
type WriteOptions struct {
	IfMatch string
	Create  bool
	Wait    time.Duration
}

// ETagOf is the ETag the server gives content: a write with it as IfMatch
// succeeds while the file still holds exactly these bytes.
func ETagOf(data []byte) string {
	sum := sha256.Sum256(data)
	return `"` + hex.EncodeToString(sum[:]) + `"`
}

// Files is the file access of one workspace instance ("main" is the
// workspace itself).
type Files struct {
	c    *Client
	base string
}

// Files returns the file access of an instance ("main" for the workspace).
func (c *Client) Files(instance string) *Files {
	return &Files{c: c, base: "/v1/instances/" + url.PathEscape(instance) + "/files/"}
}

func (f *Files) path(route string, q url.Values) string {
	if len(q) == 0 {
		return f.base + route
	}
	return f.base + route + "?" + q.Encode()
}

func waitQuery(q url.Values, d time.Duration) url.Values {
	if d > 0 {
		q.Set("wait", d.String())
	}
	return q
}

// Tree lists a folder of the workspace.
func (f *Files) Tree(ctx context.Context, tq TreeQuery) (FileTree, error) {
	q := url.Values{}
	if tq.Path != "" {
		q.Set("path", tq.Path)
	}
	if tq.Depth > 0 {
		q.Set("depth", strconv.Itoa(tq.Depth))
	}
	if tq.Limit > 0 {
		q.Set("limit", strconv.Itoa(tq.Limit))
	}
	if tq.Hidden {
		q.Set("hidden", "true")
	}
	var t FileTree
	return t, f.c.do(ctx, http.MethodGet, f.path("tree", q), nil, &t)
}

// Read returns a file's bytes, binary or not, and its ETag. A file over the
// server's limit is refused with CodeFileTooLarge: Download it.
func (f *Files) Read(ctx context.Context, p string) (FileContent, error) {
	resp, err := f.c.send(ctx, http.MethodGet, f.path("content", url.Values{"path": {p}}), nil, nil)
	if err != nil {
		return FileContent{}, err
	}
	defer func() { _ = resp.Body.Close() }() // a read error below says what went wrong
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return FileContent{}, fmt.Errorf("read %s: %w", p, err)
	}
	fc := FileContent{Path: resp.Header.Get("Atelier-Path"), Data: data,
		Binary: resp.Header.Get("Atelier-Binary") == "true", ETag: resp.Header.Get("ETag")}
	if t, err := http.ParseTime(resp.Header.Get("Last-Modified")); err == nil {
		fc.ModTime = t
	}
	return fc, nil
}

// Write replaces (or creates) a file with data, atomically.
func (f *Files) Write(ctx context.Context, p string, data []byte, o WriteOptions) (FileInfo, error) {
	h := http.Header{"Content-Type": {"application/octet-stream"}}
	if o.IfMatch != "" {
		h.Set("If-Match", o.IfMatch)
	}
	if o.Create {
		h.Set("If-None-Match", "*")
	}
	q := waitQuery(url.Values{"path": {p}}, o.Wait)
	return f.c.sendJSON(ctx, http.MethodPut, f.path("content", q), bytes.NewReader(data), h)
}

// Upload streams r into a new file at p; with overwrite it may replace a
// file that is there.
func (f *Files) Upload(ctx context.Context, p string, r io.Reader, overwrite bool) (FileInfo, error) {
	q := url.Values{"path": {p}}
	if overwrite {
		q.Set("overwrite", "true")
	}
	return f.c.sendJSON(ctx, http.MethodPost, f.path("upload", q), r, http.Header{"Content-Type": {"application/octet-stream"}})
}

// Download streams the file at p, or a folder as a tar archive, into w. It
// returns the number of entries the server skipped (symlinks and special
// files inside a folder).
func (f *Files) Download(ctx context.Context, p string, w io.Writer) (skipped int, err error) {
	resp, err := f.c.send(ctx, http.MethodGet, f.path("download", url.Values{"path": {p}}), nil, nil)
	if err != nil {
		return 0, err
	}
	defer func() { _ = resp.Body.Close() }() // a copy error below says what went wrong
	if _, err := io.Copy(w, resp.Body); err != nil {
		return 0, fmt.Errorf("download %s: %w", p, err)
	}
	n, err := strconv.Atoi(resp.Header.Get("Atelier-Skipped"))
	if err != nil {
		return 0, fmt.Errorf("download %s: the Atelier-Skipped header: %w", p, err)
	}
	return n, nil
}

// Mkdir creates a folder and the folders above it that are missing.
func (f *Files) Mkdir(ctx context.Context, p string) (FileInfo, error) {
	var fi FileInfo
	return fi, f.c.do(ctx, http.MethodPost, f.path("mkdir", nil), PathRequest{Path: p}, &fi)
}

// Move renames from to to; nothing at to is replaced.
func (f *Files) Move(ctx context.Context, from, to string) (FileInfo, error) {
	var fi FileInfo
	return fi, f.c.do(ctx, http.MethodPost, f.path("move", nil), FromToRequest{From: from, To: to}, &fi)
}

// Copy copies a file or a folder; nothing at to is replaced.
func (f *Files) Copy(ctx context.Context, from, to string) (CopyResult, error) {
	var cr CopyResult
	return cr, f.c.do(ctx, http.MethodPost, f.path("copy", nil), FromToRequest{From: from, To: to}, &cr)
}

// Delete removes a file or a symlink, or a folder with everything in it
// when recursive.
func (f *Files) Delete(ctx context.Context, p string, recursive bool) error {
	return f.c.do(ctx, http.MethodPost, f.path("delete", nil), PathRequest{Path: p, Recursive: recursive}, nil)
}

// send sends a request with a raw body and returns the response of a
// success; an error status is returned as a *Problem. The caller closes
// the body.
func (c *Client) send(ctx context.Context, method, path string, body io.Reader, h http.Header) (*http.Response, error) {
	req, err := c.newRequest(ctx, method, path, nil)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Body = io.NopCloser(body)
		if s, ok := body.(interface{ Len() int }); ok {
			// A known length is sent as such; an empty body as none at all
			// (a zero length with a body would be sent chunked).
			req.ContentLength = int64(s.Len())
			if s.Len() == 0 {
				req.Body = http.NoBody
			}
		}
	}
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	if resp.StatusCode >= 300 {
		defer func() { _ = resp.Body.Close() }() // the problem is what matters
		return nil, readProblem(resp)
	}
	return resp, nil
}

// sendJSON is send for a route that answers a FileInfo.
func (c *Client) sendJSON(ctx context.Context, method, path string, body io.Reader, h http.Header) (FileInfo, error) {
	resp, err := c.send(ctx, method, path, body, h)
	if err != nil {
		return FileInfo{}, err
	}
	defer func() { _ = resp.Body.Close() }() // a decode error below says what went wrong
	var fi FileInfo
	if err := json.NewDecoder(resp.Body).Decode(&fi); err != nil {
		return FileInfo{}, fmt.Errorf("%s %s: decode the answer: %w", method, path, err)
	}
	return fi, nil
}
