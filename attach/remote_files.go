package attach

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/files"
)

// RemoteFiles are the files of a workspace another machine's engine
// serves, read through its API: the studio attached to it never opens a
// folder of this machine in its stead. The host applies its own limits
// (16 MB a read) and its confinement; the tree's .gitignore rules are read
// through it as the local tree reads them. It also remembers the ETag of
// each file the operator read, so a save is refused (ErrStaleWrite) when
// the file changed on the host since, rather than overwrite a change the
// studio has not been told of yet.
type RemoteFiles struct {
	c       *client.Client
	f       *client.Files
	ctx     context.Context
	timeout time.Duration

	mu    sync.Mutex
	peeks map[string]peek   // sub-folder listings a deep ReadDir brought
	etags map[string]string // the ETag of the content the operator last read or wrote, by path
}

// peek is a folder's listing kept for the List that follows its parent's
// ReadDir.
type peek struct {
	ents []fs.DirEntry
	at   time.Time
}

// peekFresh is how long a listing brought along stays good for List.
const peekFresh = 2 * time.Second

// treeLimit bounds the entries of one listing request.
const treeLimit = 2000

// Files returns the workspace's files through the host's API.
func (r *Remote) Files() *RemoteFiles { return r.filesOf(client.MainInstance) }

// filesOf returns an instance's files through the host's API, one
// RemoteFiles an instance (each remembers the ETags of its reads).
func (r *Remote) filesOf(instance string) *RemoteFiles {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.files == nil {
		r.files = map[string]*RemoteFiles{}
	}
	rf := r.files[instance]
	if rf == nil {
		rf = &RemoteFiles{c: r.opts.Client, f: r.opts.Client.Files(instance), ctx: r.ctx, timeout: r.opts.CallTimeout,
			peeks: map[string]peek{}, etags: map[string]string{}}
		r.files[instance] = rf
	}
	return rf
}

func (rf *RemoteFiles) call() (context.Context, context.CancelFunc) {
	return context.WithTimeout(rf.ctx, rf.timeout)
}

// ReadDir lists a folder and, in the same request, the folders in it, so
// the tree's counts (List) cost no request of their own.
func (rf *RemoteFiles) ReadDir(dir string) ([]files.Entry, error) {
	ctx, cancel := rf.call()
	defer cancel()
	t, err := rf.f.Tree(ctx, client.TreeQuery{Path: dir, Depth: 2, Limit: treeLimit, Hidden: true})
	if err != nil {
		return nil, remotePathErr("list", dir, err)
	}
	if t.Truncated {
		// The folder's own entries may be cut short: list it alone.
		t, err = rf.f.Tree(ctx, client.TreeQuery{Path: dir, Depth: 1, Limit: treeLimit, Hidden: true})
		if err != nil {
			return nil, remotePathErr("list", dir, err)
		}
		return rf.direct(t, nil), nil
	}
	return rf.direct(t, map[string][]fs.DirEntry{}), nil
}

// direct picks the folder's own entries out of a listing; with below, it
// keeps the listings of the (real, listed) folders in it for List.
func (rf *RemoteFiles) direct(t client.FileTree, below map[string][]fs.DirEntry) []files.Entry {
	var out []files.Entry
	dirs := map[string]bool{}
	for _, e := range t.Entries {
		if parentOf(e.Path) == t.Path {
			out = append(out, entryOf(e))
			if e.Kind == "dir" && e.Error == "" {
				dirs[e.Path] = true
			}
			continue
		}
		if below != nil {
			p := parentOf(e.Path)
			below[p] = append(below[p], dirEntry{e})
		}
	}
	if below == nil {
		return out
	}
	now := time.Now()
	rf.mu.Lock()
	defer rf.mu.Unlock()
	for p := range dirs {
		rf.peeks[p] = peek{ents: below[p], at: now}
	}
	return out
}

// List is a folder's names and kinds: the listing its parent's ReadDir
// brought along, or a request.
func (rf *RemoteFiles) List(dir string) ([]fs.DirEntry, error) {
	rf.mu.Lock()
	pk, ok := rf.peeks[dir]
	delete(rf.peeks, dir)
	rf.mu.Unlock()
	if ok && time.Since(pk.at) < peekFresh {
		return pk.ents, nil
	}
	ctx, cancel := rf.call()
	defer cancel()
	t, err := rf.f.Tree(ctx, client.TreeQuery{Path: dir, Depth: 1, Limit: treeLimit, Hidden: true})
	if err != nil {
		return nil, remotePathErr("list", dir, err)
	}
	out := make([]fs.DirEntry, 0, len(t.Entries))
	for _, e := range t.Entries {
		out = append(out, dirEntry{e})
	}
	return out, nil
}

// ReadFile reads a file through the host, with the local ReadFile's
// limits and errors: ErrTooLarge over o.MaxBytes (or over what the host
// serves in one read), ErrBinary for a binary file unless allowed, an
// fs.ErrNotExist for nothing there. The operator's reads are remembered
// as the base of a later save.
func (rf *RemoteFiles) ReadFile(actor, p string, o files.ReadOptions) (*files.Content, error) {
	ctx, cancel := rf.call()
	defer cancel()
	fc, err := rf.f.Read(ctx, p)
	if err != nil {
		return nil, remotePathErr("read", p, err)
	}
	limit := o.MaxBytes
	if limit <= 0 {
		limit = files.DefaultMaxRead
	}
	if int64(len(fc.Data)) > limit {
		return nil, &files.PathError{Op: "read", Path: p, Err: files.ErrTooLarge,
			Detail: fmt.Sprintf("%d bytes, the limit is %d", len(fc.Data), limit)}
	}
	if fc.Binary && !o.AllowBinary {
		return nil, &files.PathError{Op: "read", Path: p, Err: files.ErrBinary}
	}
	if fc.Path == "" {
		fc.Path = p
	}
	if actor == files.Operator {
		rf.remember(fc.Path, fc.ETag)
	}
	return &files.Content{Path: fc.Path, Data: fc.Data, Binary: fc.Binary, ModTime: fc.ModTime}, nil
}

func (rf *RemoteFiles) remember(p, etag string) {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	if etag == "" {
		delete(rf.etags, p)
		return
	}
	rf.etags[p] = etag
}

// Save writes a file through the host under its write lease, over the
// content the operator last read (ErrStaleWrite when the host's file
// changed since); a file never read is written as it is.
func (rf *RemoteFiles) Save(ctx context.Context, p string, data []byte) error {
	rf.mu.Lock()
	base := rf.etags[p]
	rf.mu.Unlock()
	fi, err := rf.f.Write(ctx, p, data, client.WriteOptions{IfMatch: base})
	if err != nil {
		err = Err(err)
		if errors.Is(err, ErrStaleWrite) {
			return fmt.Errorf("%w, on the engine's side: nothing was written (the change shows in a moment; keep yours then, and a save overwrites it)", ErrStaleWrite)
		}
		return err
	}
	if fi.Path == "" {
		fi.Path = p
	}
	rf.remember(fi.Path, fi.ETag)
	return nil
}

// forget drops what the studio knew of a file gone on the host, so
// saving writes it again.
func (rf *RemoteFiles) forget(p string) {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	delete(rf.etags, p)
	for q := range rf.etags {
		if strings.HasPrefix(q, p+"/") {
			delete(rf.etags, q)
		}
	}
}

// remotePathErr is a files route's problem as the file layer's error.
func remotePathErr(op, p string, err error) error {
	err = Err(err)
	var pe *files.PathError
	if errors.As(err, &pe) {
		return err
	}
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, files.ErrTooLarge) {
		return &files.PathError{Op: op, Path: p, Err: err}
	}
	return fmt.Errorf("%s %s: %w", op, p, err)
}

// entryOf is an entry of the API's listing as the file layer's.
func entryOf(e client.FileEntry) files.Entry {
	out := files.Entry{Name: e.Name, Path: e.Path, Kind: kindOf(e.Kind), Size: e.Size, ModTime: e.ModTime,
		Target: e.Target, TargetIs: kindOf(e.TargetKind), Broken: e.Broken}
	if m, err := strconv.ParseUint(e.Mode, 8, 32); err == nil {
		out.Mode = fs.FileMode(m) & fs.ModePerm
	}
	switch out.Kind {
	case files.KindDir:
		out.Mode |= fs.ModeDir
	case files.KindSymlink:
		out.Mode |= fs.ModeSymlink
	}
	return out
}

func kindOf(k string) files.Kind {
	switch k {
	case "dir":
		return files.KindDir
	case "symlink":
		return files.KindSymlink
	case "other":
		return files.KindOther
	}
	return files.KindFile
}

func parentOf(p string) string {
	if d := path.Dir(p); d != "." {
		return d
	}
	return ""
}

// dirEntry is an entry of the API's listing as an fs.DirEntry.
type dirEntry struct{ e client.FileEntry }

func (d dirEntry) Name() string               { return d.e.Name }
func (d dirEntry) IsDir() bool                { return d.e.Kind == "dir" }
func (d dirEntry) Type() fs.FileMode          { return entryOf(d.e).Mode.Type() }
func (d dirEntry) Info() (fs.FileInfo, error) { return fileInfo{entryOf(d.e)}, nil }

// fileInfo is an entry as an fs.FileInfo.
type fileInfo struct{ e files.Entry }

func (f fileInfo) Name() string       { return f.e.Name }
func (f fileInfo) Size() int64        { return f.e.Size }
func (f fileInfo) Mode() fs.FileMode  { return f.e.Mode }
func (f fileInfo) ModTime() time.Time { return f.e.ModTime }
func (f fileInfo) IsDir() bool        { return f.e.IsDir() }
func (f fileInfo) Sys() any           { return nil }
