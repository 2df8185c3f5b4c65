package api

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/files"
)

// MaxUpload bounds an upload. Uploads stream to a temporary file of the
// host first (so a slow client never holds the workspace's write lease),
// then into the workspace; the bound keeps one request from filling the
// host's temporary directory.
const MaxUpload = 1 << 30

func staleWrite(p, why string) error {
	return &problemError{status: http.StatusConflict, code: client.CodeStaleWrite,
		detail: fmt.Sprintf("%s %s since it was read: read it again, then write", p, why)}
}

// normalETag quotes an ETag given without its quotes (as people type it in
// a shell), so it compares with the ones the server hands out.
func normalETag(v string) string {
	v = strings.TrimSpace(v)
	if v == "*" || strings.HasPrefix(v, `"`) {
		return v
	}
	return `"` + v + `"`
}

// writeContent replaces or creates a file with the request's raw body. With
// If-Match the file's current content must still be the one read (its ETag,
// or "*" for any); with If-None-Match: * the file must not exist. The check
// and the write happen under the workspace's write lease, so no other
// writer comes between them.
func (s *Server) writeContent(w http.ResponseWriter, r *http.Request) error {
	ws, err := s.workspace(r)
	if err != nil {
		return err
	}
	p := r.URL.Query().Get("path")
	if err := requiredPath("path", p); err != nil {
		return err
	}
	ifMatch := r.Header.Get("If-Match")
	createOnly := false
	switch v := r.Header.Get("If-None-Match"); v {
	case "":
	case "*":
		createOnly = true
	default:
		return badRequest(fmt.Sprintf("If-None-Match %q: only * (create, never replace) is understood", v))
	}
	if ifMatch != "" && createOnly {
		return badRequest("give If-Match or If-None-Match, not both")
	}
	rel, err := s.refuseProtected(r, ws, p)
	if err != nil {
		return err
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		return err
	}
	release, err := s.writeLease(r)
	if err != nil {
		return err
	}
	defer release()
	created := false
	switch {
	case createOnly:
		err = ws.CreateFile(files.Operator, p, data)
		created = true
	case ifMatch != "":
		if err := checkBase(ws, p, normalETag(ifMatch)); err != nil {
			return err
		}
		err = ws.WriteFile(files.Operator, p, data)
	default:
		_, statErr := ws.Stat(p)
		created = errors.Is(statErr, fs.ErrNotExist)
		err = ws.WriteFile(files.Operator, p, data)
	}
	if err != nil {
		return filesProblem(err)
	}
	writeJSON(w, http.StatusOK, client.FileInfo{Path: rel, Size: int64(len(data)), ETag: client.ETagOf(data), Created: created})
	return nil
}

// checkBase refuses a write whose base (an ETag, or "*" for any content)
// is not what the file holds now. A file over the read limit cannot have
// been read through the API, so it cannot match.
func checkBase(ws *files.Workspace, p, etag string) error {
	cur, err := ws.ReadFile(files.Operator, p, files.ReadOptions{MaxBytes: MaxRead, AllowBinary: true})
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return staleWrite(p, "was deleted")
	case errors.Is(err, files.ErrTooLarge):
		return staleWrite(p, "grew past the read limit")
	case err != nil:
		return filesProblem(err)
	case etag != "*" && client.ETagOf(cur.Data) != etag:
		return staleWrite(p, "was changed")
	}
	return nil
}

// upload streams a new file into the workspace from the raw body, or from
// the one file part of a multipart form. It spools the body to a private
// temporary file first, then copies that in with the file layer's upload,
// which never replaces anything (overwrite=true replaces a file).
func (s *Server) upload(w http.ResponseWriter, r *http.Request) error {
	ws, err := s.workspace(r)
	if err != nil {
		return err
	}
	p := r.URL.Query().Get("path")
	if err := requiredPath("path", p); err != nil {
		return err
	}
	overwrite, err := queryBool(r, "overwrite")
	if err != nil {
		return err
	}
	rel, err := s.refuseProtected(r, ws, p)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "atelier-upload-")
	if err != nil {
		return err
	}
	defer removeTemp(tmp)
	spool := filepath.Join(tmp, "body")
	size, etag, err := spoolBody(w, r, spool)
	if err != nil {
		return err
	}
	release, err := s.writeLease(r)
	if err != nil {
		return err
	}
	defer release()
	created := true
	if overwrite {
		_, statErr := ws.Stat(p)
		created = errors.Is(statErr, fs.ErrNotExist)
		err = writeFrom(ws, p, spool)
	} else {
		_, err = ws.Upload(files.Operator, spool, p)
	}
	if err != nil {
		return filesProblem(err)
	}
	writeJSON(w, http.StatusCreated, client.FileInfo{Path: rel, Size: size, ETag: etag, Created: created})
	return nil
}

// writeFrom replaces the workspace file p with the host file src.
func writeFrom(ws *files.Workspace, p, src string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }() // only read from
	return ws.WriteFrom(files.Operator, p, f)
}

// spoolBody writes the upload's content (the raw body, or a multipart
// form's one file part) to the new host file dst, hashing it on the way.
func spoolBody(w http.ResponseWriter, r *http.Request, dst string) (int64, string, error) {
	r.Body = http.MaxBytesReader(w, r.Body, MaxUpload)
	src := io.Reader(r.Body)
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err == nil && mt == "multipart/form-data" {
		part, err := onePart(r)
		if err != nil {
			return 0, "", err
		}
		src = part
	}
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, "", err
	}
	sum := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, sum), src)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return 0, "", err
		}
		return 0, "", fmt.Errorf("receive the upload: %w", err)
	}
	return n, `"` + hex.EncodeToString(sum.Sum(nil)) + `"`, nil
}

// onePart returns the file part of a multipart upload, which must hold
// exactly one part, a file: a form field would be a field nobody reads.
func onePart(r *http.Request) (io.Reader, error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, badRequest("multipart body: " + err.Error())
	}
	part, err := mr.NextPart()
	if err != nil {
		return nil, badRequest("multipart body: no file part")
	}
	if part.FileName() == "" {
		return nil, badRequest(fmt.Sprintf("multipart body: part %q is not a file; send one file part only", part.FormName()))
	}
	return &lastPart{part: part, mr: mr}, nil
}

// lastPart reads a multipart part and, at its end, checks that no other
// part follows.
type lastPart struct {
	part io.Reader
	mr   *multipart.Reader
}

func (l *lastPart) Read(b []byte) (int, error) {
	n, err := l.part.Read(b)
	if !errors.Is(err, io.EOF) {
		return n, err
	}
	switch _, err := l.mr.NextPart(); {
	case errors.Is(err, io.EOF):
		return n, io.EOF
	case err != nil:
		return n, err
	}
	return n, badRequest("multipart body: more than one part; send one file part only")
}

func (s *Server) mkdir(w http.ResponseWriter, r *http.Request) error {
	ws, err := s.workspace(r)
	if err != nil {
		return err
	}
	var req client.PathRequest
	if err := decode(w, r, &req); err != nil {
		return err
	}
	if err := requiredPath("path", req.Path); err != nil {
		return err
	}
	if req.Recursive {
		return badRequest("recursive: only for delete (mkdir always makes the folders above)")
	}
	rel, err := s.refuseProtected(r, ws, req.Path)
	if err != nil {
		return err
	}
	release, err := s.writeLease(r)
	if err != nil {
		return err
	}
	defer release()
	if err := ws.Mkdir(files.Operator, req.Path); err != nil {
		return filesProblem(err)
	}
	writeJSON(w, http.StatusCreated, client.FileInfo{Path: rel, Created: true})
	return nil
}

// fromTo decodes a move or copy and checks its paths: both given, and the
// destination (and, for a move, the source) not protected. It returns the
// canonical destination.
func (s *Server) fromTo(w http.ResponseWriter, r *http.Request, ws *files.Workspace, move bool) (client.FromToRequest, string, error) {
	var req client.FromToRequest
	if err := decode(w, r, &req); err != nil {
		return req, "", err
	}
	if err := requiredPath("from", req.From); err != nil {
		return req, "", err
	}
	if err := requiredPath("to", req.To); err != nil {
		return req, "", err
	}
	if move {
		if _, err := s.refuseProtected(r, ws, req.From); err != nil {
			return req, "", err
		}
	}
	rel, err := s.refuseProtected(r, ws, req.To)
	return req, rel, err
}

func (s *Server) move(w http.ResponseWriter, r *http.Request) error {
	ws, err := s.workspace(r)
	if err != nil {
		return err
	}
	req, rel, err := s.fromTo(w, r, ws, true)
	if err != nil {
		return err
	}
	release, err := s.writeLease(r)
	if err != nil {
		return err
	}
	defer release()
	if err := ws.Rename(files.Operator, req.From, req.To); err != nil {
		if errors.Is(err, syscall.EINVAL) {
			return &problemError{status: http.StatusBadRequest, code: client.CodeBadPath,
				detail: fmt.Sprintf("cannot move %s into itself (%s)", req.From, req.To)}
		}
		return filesProblem(err)
	}
	writeJSON(w, http.StatusOK, client.FileInfo{Path: rel})
	return nil
}

// copyFiles copies a file or a folder inside the workspace: the file layer
// copies it out to a private temporary folder and back in, so both ends go
// through the confinement and symlinks are skipped, never followed.
func (s *Server) copyFiles(w http.ResponseWriter, r *http.Request) error {
	ws, err := s.workspace(r)
	if err != nil {
		return err
	}
	req, rel, err := s.fromTo(w, r, ws, false)
	if err != nil {
		return err
	}
	release, err := s.writeLease(r)
	if err != nil {
		return err
	}
	defer release()
	in, err := ws.Copy(files.Operator, req.From, req.To)
	if err != nil {
		return filesProblem(err)
	}
	writeJSON(w, http.StatusCreated, client.CopyResult{Path: rel, Files: in.Files, Dirs: in.Dirs, Bytes: in.Bytes, Skipped: in.Skipped})
	return nil
}

func (s *Server) deleteFile(w http.ResponseWriter, r *http.Request) error {
	ws, err := s.workspace(r)
	if err != nil {
		return err
	}
	var req client.PathRequest
	if err := decode(w, r, &req); err != nil {
		return err
	}
	if err := requiredPath("path", req.Path); err != nil {
		return err
	}
	if _, err := s.refuseProtected(r, ws, req.Path); err != nil {
		return err
	}
	release, err := s.writeLease(r)
	if err != nil {
		return err
	}
	defer release()
	e, err := ws.Stat(req.Path)
	if err != nil {
		return filesProblem(err)
	}
	if e.Kind == files.KindDir && e.Path != "" && !req.Recursive {
		return &problemError{status: http.StatusConflict, code: client.CodeNotAFile,
			detail: req.Path + " is a folder: set recursive to delete it with everything in it"}
	}
	if err := ws.Delete(files.Operator, req.Path); err != nil {
		return filesProblem(err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
