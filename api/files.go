package api

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/engine"
	"github.com/atelier-studio/atelier/files"
)

// The files routes work on the workspace through the engine's
// files.Workspace, the same confinement the studio and the agents' tools
// use: every path is resolved from the root's descriptor, symlinks that
// lead out and ".." past the root are refused. Writes are atomic, made as
// the operator (so the watcher attributes them), refused on protected
// paths, and made under the workspace's write lease, so they never overlap
// a session's writing operation. Reads take no lease: atomic writes mean a
// read never sees half a file, and a read must not wait out an agent CLI's
// turn-long write lease.

// routeFiles registers the files routes (see filesOperations for the document).
func (s *Server) routeFiles() {
	const base = "/v1/instances/{instance}/files/"
	s.handle("GET "+base+"tree", s.fileTree)
	s.handle("GET "+base+"content", s.readContent)
	s.handle("GET "+base+"download", s.download)
	s.handle("PUT "+base+"content", s.writeContent)
	s.handle("POST "+base+"upload", s.upload)
	s.handle("POST "+base+"mkdir", s.mkdir)
	s.handle("POST "+base+"move", s.move)
	s.handle("POST "+base+"copy", s.copyFiles)
	s.handle("POST "+base+"delete", s.deleteFile)
	s.handle("GET "+base+"changes", s.fileChanges)
}

// filesOperations documents the files routes in the OpenAPI document.
func filesOperations() []operation {
	const base = "/v1/instances/{instance}/files/"
	fi := client.FileInfo{}
	read := fileReadProblems
	write := fileWriteProblems
	return []operation{
		{method: "GET", path: base + "tree", summary: "List a folder, or a folder and those below it to a depth (depth, limit; hidden=true adds ignored entries)",
			query: []string{"path", "depth", "limit", "hidden"}, status: 200, resp: client.FileTree{}, problems: read},
		{method: "GET", path: base + "content", summary: "A file's bytes (application/octet-stream, up to 16 MB) with its ETag",
			query: []string{"path"}, status: 200, rawResp: []string{"application/octet-stream"},
			respHeaders: []string{"ETag", "Last-Modified", "Atelier-Path", "Atelier-Binary"}, problems: append(codes(client.CodeFileTooLarge), read...)},
		{method: "GET", path: base + "download", summary: "Stream a file, or a folder as a tar archive",
			query: []string{"path"}, status: 200, rawResp: []string{"application/octet-stream", "application/x-tar"},
			respHeaders: []string{"Content-Disposition", "Atelier-Skipped"}, problems: read},
		{method: "PUT", path: base + "content", summary: "Replace or create a file with the raw body (up to 16 MB; If-Match: a read's ETag refuses a stale write; If-None-Match: * only creates)",
			query: []string{"path", "wait"}, reqHeaders: []string{"If-Match", "If-None-Match"}, rawBody: []string{"application/octet-stream"}, status: 200, resp: fi, problems: append(codes(client.CodeBodyTooLarge), write...)},
		{method: "POST", path: base + "upload", summary: "Stream a new file from the raw body or a multipart form's one file (overwrite=true may replace)",
			query: []string{"path", "overwrite", "wait"}, rawBody: []string{"application/octet-stream", "multipart/form-data"}, status: 201, resp: fi, problems: append(codes(client.CodeBodyTooLarge), write...)},
		{method: "POST", path: base + "mkdir", summary: "Create a folder and the missing folders above it",
			query: []string{"wait"}, body: client.PathRequest{}, status: 201, resp: fi, problems: write},
		{method: "POST", path: base + "move", summary: "Rename or move a file or folder (nothing is replaced)",
			query: []string{"wait"}, body: client.FromToRequest{}, status: 200, resp: fi, problems: write},
		{method: "POST", path: base + "copy", summary: "Copy a file or folder (nothing is replaced; symlinks are skipped)",
			query: []string{"wait"}, body: client.FromToRequest{}, status: 201, resp: client.CopyResult{}, problems: write},
		{method: "POST", path: base + "delete", summary: "Delete a file or symlink, or a folder with recursive=true",
			query: []string{"wait"}, body: client.PathRequest{}, status: 204, problems: write},
		changesOperation(),
	}
}

// The problems of the files routes (filesErrors, the guards of writes).
var (
	fileReadProblems = codes(client.CodeBadPath, client.CodeOutsideWorkspace, client.CodePermissionDenied,
		client.CodeFileNotFound, client.CodeNotAFile, client.CodeNotADirectory, client.CodePathChanged, client.CodeNoInstances)
	fileWriteProblems = append(codes(client.CodeProtectedPath, client.CodeFileExists, client.CodeStaleWrite,
		client.CodeWorkspaceBusy, client.CodeNoSpace), fileReadProblems...)
)

// checkInstance refuses an instance other than the workspace itself
// ("main") on the routes that serve the workspace only (its history, its
// terminals, exec): the files routes serve instances too.
func checkInstance(r *http.Request) error {
	if inst := r.PathValue("instance"); inst != "main" {
		return &problemError{status: http.StatusNotFound, code: client.CodeUnknownInstance,
			detail: fmt.Sprintf("instance %q: only \"main\" (the workspace) exists", inst)}
	}
	return nil
}

// workspace returns the file access of the instance the path names: the
// workspace's for "main", an instance's own (confined to its folder) for
// an instance id.
func (s *Server) workspace(r *http.Request) (*files.Workspace, error) {
	ws, err := s.eng.FilesOf(r.PathValue("instance"))
	if err != nil {
		return nil, instanceErr(err)
	}
	return ws, nil
}

// Lease waits: how long a write waits for the workspace's write lease by
// default, and at most.
const (
	defaultLeaseWait = 30 * time.Second
	maxLeaseWait     = 10 * time.Minute
)

// leaseOwners numbers the API's writes: each takes the lease under an owner
// of its own, because leases are re-entrant within an owner and two API
// writes must not overlap each other either.
var leaseOwners atomic.Uint64

// writeLease takes the write lease of the instance the path names (the
// workspace's for "main" and the routes without one; an instance's own,
// which its sessions hold, for an instance id) for one API operation,
// waiting at most the request's ?wait= (a Go duration). A lease still held
// by someone else then is a workspace_busy problem naming the holder.
func (s *Server) writeLease(r *http.Request) (release func(), err error) {
	wait := defaultLeaseWait
	if v := r.URL.Query().Get("wait"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 || d > maxLeaseWait {
			return nil, badRequest(fmt.Sprintf("wait=%q: want a Go duration from 0s to %s", v, maxLeaseWait))
		}
		wait = d
	}
	ctx, cancel := context.WithTimeout(r.Context(), wait)
	defer cancel()
	owner := "api-" + strconv.FormatUint(leaseOwners.Add(1), 10)
	inst := r.PathValue("instance")
	release, err = s.eng.LeaseWriteOf(ctx, inst, owner)
	if err == nil {
		return release, nil
	}
	var held *engine.LeaseHeldError
	if errors.As(err, &held) {
		return nil, &problemError{status: http.StatusConflict, code: client.CodeWorkspaceBusy,
			detail: fmt.Sprintf("%v (waited %s; wait longer with ?wait=)", held, wait)}
	}
	return nil, instanceErr(err)
}

// refuseProtected refuses a write to a protected path, however p reaches
// it (a symlink to .atelier.toml, "a/../.git/hooks"), with the file layer's
// one verdict, unless the operator sent it (protectedWriter): the studio,
// attached or not, may save .atelier.toml as a person at it would. A path
// the write itself would refuse (outside the workspace) is refused here
// with that error. It returns the canonical path the write reaches.
func (s *Server) refuseProtected(r *http.Request, ws *files.Workspace, p string) (string, error) {
	rel, protected, err := ws.ProtectedPath(p)
	if protected && err == nil {
		why := s.protectedWriter(r)
		if why == "" {
			return rel, nil
		}
		where := ""
		if rel != "" && rel != p {
			where = " (" + rel + ")"
		}
		return "", &problemError{status: http.StatusForbidden, code: client.CodeProtectedPath,
			detail: fmt.Sprintf("%s%s is a protected path (.atelier.toml, .atelier/, .state/, .git): only the operator may change it, and %s", p, where, why)}
	}
	if protected {
		// It could not be resolved: the verdict asks, and nobody here can.
		return "", &problemError{status: http.StatusForbidden, code: client.CodeProtectedPath,
			detail: fmt.Sprintf("%s may reach a protected path (.atelier.toml, .atelier/, .state/, .git) and could not be resolved: %v", p, err)}
	}
	if err != nil {
		return "", filesProblem(err)
	}
	return rel, nil
}

// protectedWriter says why r's sender may not change a protected path,
// or "" when it may. The protected paths hold the policies and the
// engine's own state, so the rule is an approver's: not a process the host
// started (which could approve itself by rewriting .atelier.toml), and
// over TCP only with --allow-settings. A server that cannot tell who sent
// a request (no SpawnedCaller) refuses.
func (s *Server) protectedWriter(r *http.Request) string {
	if barred, _ := r.Context().Value(settingsBarredKey{}).(bool); barred {
		return "TCP clients cannot change settings on this host (start it with --allow-settings)"
	}
	if s.opts.SpawnedCaller == nil {
		return "this server cannot tell which process sent the request"
	}
	return s.hostStarted(r, "is not the operator")
}

// filesMapping maps the file layer's errors to problems, in the order they
// are tried: the file layer's own kinds first, then the file system's.
var filesMapping = []struct {
	err    error
	status int
	code   string
}{
	{files.ErrOutsideWorkspace, http.StatusForbidden, client.CodeOutsideWorkspace},
	{files.ErrInvalidPath, http.StatusBadRequest, client.CodeBadPath},
	{files.ErrSymlinkLoop, http.StatusBadRequest, client.CodeBadPath},
	{files.ErrRoot, http.StatusBadRequest, client.CodeBadPath},
	{files.ErrPathChanged, http.StatusConflict, client.CodePathChanged},
	{files.ErrIsDir, http.StatusConflict, client.CodeNotAFile},
	{files.ErrNotRegular, http.StatusConflict, client.CodeNotAFile},
	{files.ErrNotDir, http.StatusConflict, client.CodeNotADirectory},
	{files.ErrTooLarge, http.StatusRequestEntityTooLarge, client.CodeFileTooLarge},
	{files.ErrClosed, http.StatusServiceUnavailable, client.CodeEngineClosed},
	{fs.ErrNotExist, http.StatusNotFound, client.CodeFileNotFound},
	{fs.ErrExist, http.StatusConflict, client.CodeFileExists},
	{fs.ErrPermission, http.StatusForbidden, client.CodePermissionDenied},
	{syscall.ENOTDIR, http.StatusConflict, client.CodeNotADirectory},
	{syscall.EISDIR, http.StatusConflict, client.CodeNotAFile},
	{syscall.ENAMETOOLONG, http.StatusBadRequest, client.CodeBadPath},
	{syscall.EROFS, http.StatusForbidden, client.CodePermissionDenied},
	{syscall.ENOSPC, http.StatusInsufficientStorage, client.CodeNoSpace},
	{syscall.EDQUOT, http.StatusInsufficientStorage, client.CodeNoSpace},
}

// filesProblem gives an error of the file layer its problem; other errors
// (a problem already, a body too large, an engine error) pass unchanged.
func filesProblem(err error) error {
	var pe *problemError
	if err == nil || errors.As(err, &pe) {
		return err
	}
	for _, m := range filesMapping {
		if errors.Is(err, m.err) {
			return &problemError{status: m.status, code: m.code, detail: err.Error()}
		}
	}
	return err
}
