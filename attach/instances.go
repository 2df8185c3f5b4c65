package attach

import (
	"context"
	"errors"
	"fmt"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/instances"
)

// Instances are the workspace's instances as the studio and the command
// line reach them: in-process (Local, through a core.Caller) or through a
// host's API (Remote). The errors are the engine's whichever side
// answered: *instances.ConflictError, *instances.UnappliedError and
// *core.InUseError name their files and sessions, instances.ErrNotFound an
// unknown id, core.ErrNoInstances an engine without instances. Every call
// may do I/O (git, a request): the studio makes them in commands.
type Instances interface {
	// ListInstances lists the instances with the sessions on each (the
	// workspace folder itself is not one).
	ListInstances(ctx context.Context) ([]core.InstanceInfo, error)
	// InstanceSummary measures an instance and counts what it changed.
	InstanceSummary(ctx context.Context, id string) (InstanceSummary, error)
	// InstanceDiff compares an instance with its base.
	InstanceDiff(ctx context.Context, id string) (instances.Diff, error)
	// ApplyInstance writes an instance's changes into the workspace (or,
	// with opt.Preview, says what it would write).
	ApplyInstance(ctx context.Context, id string, opt instances.ApplyOptions) (instances.ApplyResult, error)
	// DiscardInstance removes an instance; force loses changes not
	// applied.
	DiscardInstance(ctx context.Context, id string, force bool) error
	// BranchInstance makes branch name of the user's repository from a
	// worktree instance's work and returns its commit.
	BranchInstance(ctx context.Context, id, name string) (string, error)
	// FilesOf is the file seam of the file pane for an instance ("" or
	// "main": the workspace's files).
	FilesOf(instance string) (Files, error)
	// CopyEstimate measures what a copy instance of the workspace would
	// hold, with the size over which a client asks before making one.
	CopyEstimate(ctx context.Context) (client.CopyEstimate, error)
}

// InstanceSummary is an instance's size on disk and what it changed
// against its base.
type InstanceSummary struct {
	Size    instances.Size
	Files   int // files changed against the base
	Added   int // lines
	Removed int
}

// summarize counts a diff's files and lines.
func summarize(size instances.Size, d instances.Diff) InstanceSummary {
	added, removed := d.Lines()
	return InstanceSummary{Size: size, Files: len(d.Files), Added: added, Removed: removed}
}

// isMain says whether instance names the workspace folder itself.
func isMain(instance string) bool { return instance == "" || instance == client.MainInstance }

func (l local) CopyEstimate(context.Context) (client.CopyEstimate, error) {
	size, err := l.As("").EstimateCopy()
	warn := l.copyWarn
	if warn <= 0 {
		warn = core.DefaultWarnSize
	}
	return client.CopyEstimate{Size: size, WarnSize: warn}, err
}

func (r *Remote) CopyEstimate(ctx context.Context) (client.CopyEstimate, error) {
	est, err := r.opts.Client.CopyEstimate(ctx)
	return est, instanceErr("", err)
}

func (l local) ListInstances(context.Context) ([]core.InstanceInfo, error) {
	return l.As("").ListInstances()
}

func (l local) InstanceSummary(_ context.Context, id string) (InstanceSummary, error) {
	c := l.As("")
	size, err := c.InstanceSize(id)
	if err != nil {
		return InstanceSummary{}, err
	}
	d, err := c.InstanceDiff(id)
	if err != nil {
		return InstanceSummary{}, err
	}
	return summarize(size, d), nil
}

func (l local) InstanceDiff(_ context.Context, id string) (instances.Diff, error) {
	return l.As("").InstanceDiff(id)
}

func (l local) ApplyInstance(_ context.Context, id string, opt instances.ApplyOptions) (instances.ApplyResult, error) {
	return l.As("").ApplyInstance(id, opt)
}

func (l local) DiscardInstance(_ context.Context, id string, force bool) error {
	return l.As("").DiscardInstance(id, force)
}

func (l local) BranchInstance(_ context.Context, id, name string) (string, error) {
	return l.As("").BranchInstance(id, name)
}

// FilesOf is the engine's own file access of the instance, confined to
// its folder.
func (l local) FilesOf(instance string) (Files, error) {
	ws, err := l.Engine.FilesOf(instance)
	if err != nil {
		return nil, err
	}
	return LocalFiles(ws), nil
}

func (r *Remote) ListInstances(ctx context.Context) ([]core.InstanceInfo, error) {
	list, err := r.opts.Client.Instances(ctx)
	if err != nil {
		return nil, Err(err)
	}
	out := make([]core.InstanceInfo, 0, len(list))
	for _, in := range list {
		if in.ID == client.MainInstance && in.Kind == client.KindWorkspace {
			continue // the workspace itself, which Local does not list
		}
		out = append(out, core.InstanceInfo{Instance: in.Instance, Sessions: in.Sessions})
	}
	return out, nil
}

func (r *Remote) InstanceSummary(ctx context.Context, id string) (InstanceSummary, error) {
	d, err := r.opts.Client.Instance(ctx, id)
	if err != nil {
		return InstanceSummary{}, instanceErr(id, err)
	}
	return InstanceSummary{Size: d.Size, Files: d.Changed, Added: d.Added, Removed: d.Removed}, nil
}

func (r *Remote) InstanceDiff(ctx context.Context, id string) (instances.Diff, error) {
	d, err := r.opts.Client.InstanceDiff(ctx, id)
	return d, instanceErr(id, err)
}

func (r *Remote) ApplyInstance(ctx context.Context, id string, opt instances.ApplyOptions) (instances.ApplyResult, error) {
	res, err := r.opts.Client.ApplyInstance(ctx, id, client.ApplyRequest{ThreeWay: opt.ThreeWay, Preview: opt.Preview})
	if err != nil {
		return instances.ApplyResult{}, instanceErr(id, err)
	}
	out := res.ApplyResult
	if res.CommitError != "" {
		out.CommitErr = errors.New(res.CommitError)
	}
	return out, nil
}

func (r *Remote) DiscardInstance(ctx context.Context, id string, force bool) error {
	return instanceErr(id, r.opts.Client.DiscardInstance(ctx, id, force))
}

func (r *Remote) BranchInstance(ctx context.Context, id, name string) (string, error) {
	b, err := r.opts.Client.BranchInstance(ctx, id, name)
	return b.Commit, instanceErr(id, err)
}

// FilesOf reads an instance's files through the host's files routes of
// that instance.
func (r *Remote) FilesOf(instance string) (Files, error) {
	if isMain(instance) {
		return r.Files(), nil
	}
	if !instanceIDPattern(instance) {
		return nil, fmt.Errorf("instance %q: %w", instance, instances.ErrNotFound)
	}
	// The engine refuses an instance it does not have at once: so does
	// the host, asked (the contract holds the two to one answer).
	ctx, cancel := context.WithTimeout(r.ctx, r.opts.CallTimeout)
	defer cancel()
	if _, err := r.opts.Client.Instance(ctx, instance); err != nil {
		return nil, Err(err)
	}
	return r.filesOf(instance), nil
}

// instanceIDPattern checks an instance id as the engine does, so a
// malformed one is refused before any request.
func instanceIDPattern(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for i, c := range id {
		ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || i > 0 && (c == '-' || c == '_')
		if !ok {
			return false
		}
	}
	return true
}

// instanceErr is Err for an instance call, with the instance named in
// the typed refusals the host described.
func instanceErr(id string, err error) error {
	err = Err(err)
	var (
		conflict  *instances.ConflictError
		unapplied *instances.UnappliedError
		inUse     *core.InUseError
	)
	switch {
	case errors.As(err, &conflict):
		conflict.Instance = id
	case errors.As(err, &unapplied):
		unapplied.Instance = id
	case errors.As(err, &inUse):
		inUse.Instance = id
	}
	return err
}

var (
	_ Instances = local{}
	_ Instances = (*Remote)(nil)
)
