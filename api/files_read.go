package api

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/files"
)

// Listing bounds: entries per answer, and folder levels.
const (
	defaultTreeLimit = 1000
	maxTreeLimit     = 10000
	maxTreeDepth     = 64
)

// MaxRead bounds the file content one answer holds: as much as a write may
// send, so whatever was written can be read back. Bigger files stream
// through download.
const MaxRead = MaxBody

// queryInt parses an integer query parameter in [lo, hi], def when absent.
func queryInt(r *http.Request, name string, def, lo, hi int) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, badRequest(fmt.Sprintf("%s=%q: want %d to %d", name, v, lo, hi))
	}
	return n, nil
}

// queryBool parses a boolean query parameter, false when absent.
func queryBool(r *http.Request, name string) (bool, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, badRequest(fmt.Sprintf("%s=%q: want true or false", name, v))
	}
	return b, nil
}

// requiredPath is the path a route works on: a ?path= or a body's field.
func requiredPath(name, p string) error {
	if p == "" {
		return &problemError{status: http.StatusBadRequest, code: client.CodeBadPath, detail: name + ": a workspace path is required"}
	}
	return nil
}

func (s *Server) fileTree(w http.ResponseWriter, r *http.Request) error {
	ws, err := s.workspace(r)
	if err != nil {
		return err
	}
	depth, err := queryInt(r, "depth", 1, 1, maxTreeDepth)
	if err != nil {
		return err
	}
	limit, err := queryInt(r, "limit", defaultTreeLimit, 1, maxTreeLimit)
	if err != nil {
		return err
	}
	hidden, err := queryBool(r, "hidden")
	if err != nil {
		return err
	}
	p := r.URL.Query().Get("path")
	// Listing first refuses what is not a folder of the workspace; the
	// canonical path is then the one the listing reached.
	if _, err := ws.List(p); err != nil {
		return filesProblem(err)
	}
	names, err := ws.Reaches(p)
	if err != nil {
		return filesProblem(err)
	}
	dir := ""
	if len(names) > 0 {
		dir = names[0]
	}
	t := &treeWalk{ws: ws, ig: files.NewIgnore(), hidden: hidden, limit: limit}
	if err := t.loadRules(dir); err != nil {
		return filesProblem(err)
	}
	// A folder asked for by name is listed even when it is hidden itself;
	// its entries then carry the flag.
	inHidden := dir != "" && (t.ig.Match(dir, true) || slices.ContainsFunc(strings.Split(dir, "/"), isDefaultHidden))
	if err := t.list(dir, depth, inHidden); err != nil {
		return filesProblem(err)
	}
	if t.out == nil {
		t.out = []client.FileEntry{}
	}
	writeJSON(w, http.StatusOK, client.FileTree{Path: dir, Entries: t.out, Truncated: t.truncated})
	return nil
}

// treeWalk lists folders depth first, as the studio's tree shows them.
type treeWalk struct {
	ws        *files.Workspace
	ig        *files.Ignore
	hidden    bool
	limit     int
	out       []client.FileEntry
	truncated bool
}

// loadRules loads the .gitignore rules of dir and of every folder above
// it, which decide what in dir is ignored.
func (t *treeWalk) loadRules(dir string) error {
	at := ""
	for {
		if err := t.ig.Load(t.ws, at); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if at == dir {
			return nil
		}
		next, _, _ := strings.Cut(strings.TrimPrefix(dir[len(at):], "/"), "/")
		at = path.Join(at, next)
	}
}

// isDefaultHidden reports whether a name is one of the folders the studio
// hides wherever they are.
func isDefaultHidden(name string) bool { return slices.Contains(files.DefaultHidden, name) }

// list appends dir's entries, and those of its folders down to depth
// levels. An entry hidden itself (ignored, or one of the default hidden
// folders) is left out unless hidden entries are asked for; inHidden says
// dir is inside one, so its entries are flagged too. Symlinked folders
// are listed but not entered (a loop would never end); a folder that
// cannot be listed carries its error.
func (t *treeWalk) list(dir string, depth int, inHidden bool) error {
	ents, err := t.ws.ReadDir(dir)
	if err != nil {
		return err
	}
	slices.SortFunc(ents, func(a, b files.Entry) int {
		if a.IsDir() != b.IsDir() {
			if a.IsDir() {
				return -1
			}
			return 1
		}
		if c := strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	for _, e := range ents {
		if strings.HasPrefix(e.Name, files.TempPrefix) {
			continue
		}
		own := isDefaultHidden(e.Name) || t.ig.MatchEntry(e.Path, e.IsDir())
		if own && !t.hidden {
			continue
		}
		hid := own || inHidden
		if len(t.out) == t.limit {
			t.truncated = true
			return nil
		}
		t.out = append(t.out, wireEntry(e, hid))
		if depth <= 1 || e.Kind != files.KindDir {
			continue
		}
		err := t.ig.Load(t.ws, e.Path)
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			err = t.list(e.Path, depth-1, hid)
		}
		if err != nil {
			t.out[len(t.out)-1].Error = filesProblem(err).Error()
		}
		if t.truncated {
			return nil
		}
	}
	return nil
}

func kindName(k files.Kind) string {
	switch k {
	case files.KindFile:
		return "file"
	case files.KindDir:
		return "dir"
	case files.KindSymlink:
		return "symlink"
	}
	return "other"
}

func wireEntry(e files.Entry, hidden bool) client.FileEntry {
	out := client.FileEntry{Name: e.Name, Path: e.Path, Kind: kindName(e.Kind), IsDir: e.IsDir(), Size: e.Size,
		Mode: fmt.Sprintf("%04o", e.Mode.Perm()), ModTime: e.ModTime, Hidden: hidden, Protected: files.IsProtected(e.Path)}
	if e.Kind == files.KindSymlink {
		out.Target, out.Broken = e.Target, e.Broken
		if !e.Broken {
			out.TargetKind = kindName(e.TargetIs)
		}
	}
	return out
}

// readContent answers a file's bytes as they are, binary or not, with the
// ETag a write gives as its base.
func (s *Server) readContent(w http.ResponseWriter, r *http.Request) error {
	ws, err := s.workspace(r)
	if err != nil {
		return err
	}
	p := r.URL.Query().Get("path")
	if err := requiredPath("path", p); err != nil {
		return err
	}
	c, err := ws.ReadFile(files.Operator, p, files.ReadOptions{MaxBytes: MaxRead, AllowBinary: true})
	if errors.Is(err, files.ErrTooLarge) {
		return &problemError{status: http.StatusRequestEntityTooLarge, code: client.CodeFileTooLarge,
			detail: err.Error() + "; download streams a file of any size (GET .../files/download?path=)"}
	}
	if err != nil {
		return filesProblem(err)
	}
	h := w.Header()
	h.Set("Content-Type", "application/octet-stream")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(len(c.Data)))
	h.Set("ETag", client.ETagOf(c.Data))
	h.Set("Last-Modified", c.ModTime.UTC().Format(http.TimeFormat))
	h.Set("Atelier-Path", c.Path)
	h.Set("Atelier-Binary", strconv.FormatBool(c.Binary))
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(c.Data); err != nil {
		panic(http.ErrAbortHandler) // the client went away mid-answer
	}
	return nil
}

// download streams a file, or a folder as a tar archive. The file layer
// copies it out first, into a private temporary folder, through the same
// confinement as every other read (symlinks inside a folder are skipped,
// never followed); the copy is then streamed and removed. Once the answer
// has started, a failure can only cut it short.
func (s *Server) download(w http.ResponseWriter, r *http.Request) error {
	ws, err := s.workspace(r)
	if err != nil {
		return err
	}
	p := r.URL.Query().Get("path")
	if err := requiredPath("path", p); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "atelier-download-")
	if err != nil {
		return err
	}
	defer removeTemp(tmp)
	copyPath := filepath.Join(tmp, "copy")
	st, err := ws.Download(files.Operator, p, copyPath)
	if err != nil {
		return filesProblem(err)
	}
	name := "workspace"
	if names, err := ws.Reaches(p); err == nil && len(names) > 0 && names[0] != "" {
		name = path.Base(names[0])
	}
	fi, err := os.Lstat(copyPath)
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Atelier-Skipped", strconv.Itoa(len(st.Skipped)))
	if fi.Mode().IsRegular() {
		return streamFile(w, copyPath, name, fi.Size())
	}
	h.Set("Content-Type", "application/x-tar")
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name + ".tar"}))
	w.WriteHeader(http.StatusOK)
	if err := writeTar(w, copyPath, name); err != nil {
		panic(http.ErrAbortHandler) // cut short: a tar without its end is seen as broken
	}
	return nil
}

// removeTemp removes a temporary folder of this package. A failure leaves
// a folder in the system's temporary directory, which nothing reads and
// the system clears; the answer was already decided by then.
func removeTemp(dir string) { _ = os.RemoveAll(dir) }

// streamFile answers the host file at p as an attachment named name.
func streamFile(w http.ResponseWriter, p, name string, size int64) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }() // only read from
	h := w.Header()
	h.Set("Content-Type", "application/octet-stream")
	h.Set("Content-Length", strconv.FormatInt(size, 10))
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	w.WriteHeader(http.StatusOK)
	if _, err := io.Copy(w, f); err != nil {
		panic(http.ErrAbortHandler) // cut short: the length says so
	}
	return nil
}

// writeTar writes the folder at root (a copy that holds only folders and
// regular files) as a tar archive whose entries start with name/.
func writeTar(w io.Writer, root, name string) error {
	tw := tar.NewWriter(w)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		hdr, err := tar.FileInfoHeader(fi, "")
		if err != nil {
			return err
		}
		hdr.Name = path.Join(name, filepath.ToSlash(rel))
		if d.IsDir() {
			hdr.Name += "/"
		}
		hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname = 0, 0, "", ""
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if !fi.Mode().IsRegular() {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer func() { _ = f.Close() }() // only read from
		_, err = io.Copy(tw, f)
		return err
	})
	if err != nil {
		return err
	}
	return tw.Close()
}
