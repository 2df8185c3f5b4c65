package attach

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/files"
)

// FileOpKind names an operator's change to the workspace's files.
type FileOpKind string

// The studio's file operations.
const (
	OpCreate FileOpKind = "create" // an empty file at Path; nothing there is replaced
	OpMkdir  FileOpKind = "mkdir"  // a folder at Path, and missing ones above
	OpRename FileOpKind = "rename" // Path to To; nothing at To is replaced
	OpDelete FileOpKind = "delete" // Path, a folder with all it holds
	OpUpload FileOpKind = "upload" // the file or folder From (on this machine) to Path; symlinks skipped
)

// FileOp is one change of the file pane, made as the operator under the
// workspace's write lease: the engine's own in-process, the host's when
// attached. So an operator's rename or upload never overlaps an agent's
// write, whichever process the studio is.
type FileOp struct {
	Kind FileOpKind
	Path string
	To   string
	From string
}

// FileOp implements Engine for the engine this process hosts.
func (l local) FileOp(ctx context.Context, op FileOp) (files.CopyStats, error) {
	release, err := l.lease(ctx)
	if err != nil {
		return files.CopyStats{}, err
	}
	defer release()
	ws := l.Files()
	switch op.Kind {
	case OpCreate:
		return files.CopyStats{}, ws.CreateFile(files.Operator, op.Path, nil)
	case OpMkdir:
		return files.CopyStats{}, ws.Mkdir(files.Operator, op.Path)
	case OpRename:
		return files.CopyStats{}, ws.Rename(files.Operator, op.Path, op.To)
	case OpDelete:
		return files.CopyStats{}, ws.Delete(files.Operator, op.Path)
	case OpUpload:
		return ws.Upload(files.Operator, op.From, op.Path)
	}
	return files.CopyStats{}, fmt.Errorf("file operation %q: %w", op.Kind, errors.ErrUnsupported)
}

// FileOp implements Engine through the host's file routes, each under the
// host's write lease.
func (r *Remote) FileOp(ctx context.Context, op FileOp) (files.CopyStats, error) {
	f := r.opts.Client.Files("main")
	var err error
	switch op.Kind {
	case OpCreate:
		_, err = f.Write(ctx, op.Path, nil, client.WriteOptions{Create: true})
	case OpMkdir:
		_, err = f.Mkdir(ctx, op.Path)
	case OpRename:
		_, err = f.Move(ctx, op.Path, op.To)
	case OpDelete:
		err = f.Delete(ctx, op.Path, true)
	case OpUpload:
		return upload(ctx, f, op.From, op.Path)
	default:
		err = fmt.Errorf("file operation %q: %w", op.Kind, errors.ErrUnsupported)
	}
	return files.CopyStats{}, Err(err)
}

// upload copies the file or folder from (on this machine) to p through
// the host, file by file, as files.Workspace.Upload does in-process:
// folders are made, symlinks and special files are skipped and listed,
// and nothing in the workspace is replaced.
func upload(ctx context.Context, f *client.Files, from, p string) (files.CopyStats, error) {
	var st files.CopyStats
	fi, err := os.Lstat(from)
	if err != nil {
		return st, fmt.Errorf("upload %s: source %s: %w", p, from, err)
	}
	if !fi.IsDir() {
		if !fi.Mode().IsRegular() {
			return st, fmt.Errorf("upload %s: source %s is not a file or a folder", p, from)
		}
		return st, uploadFile(ctx, f, from, p, &st)
	}
	err = filepath.WalkDir(from, func(host string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, host)
		if err != nil {
			return err
		}
		dst := path.Join(p, filepath.ToSlash(rel))
		switch {
		case d.IsDir():
			if _, err := f.Mkdir(ctx, dst); err != nil {
				return Err(err)
			}
			st.Dirs++
		case d.Type().IsRegular():
			return uploadFile(ctx, f, host, dst, &st)
		default:
			st.Skipped = append(st.Skipped, dst)
		}
		return nil
	})
	return st, err
}

func uploadFile(ctx context.Context, f *client.Files, host, p string, st *files.CopyStats) error {
	src, err := os.Open(host)
	if err != nil {
		return err
	}
	defer func() { _ = src.Close() }() // read-only
	info, err := f.Upload(ctx, p, src, false)
	if err != nil {
		return Err(err)
	}
	st.Files++
	st.Bytes += info.Size
	return nil
}
