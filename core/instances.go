package core

import (
	"errors"
	"fmt"
	"slices"

	"github.com/atelier-studio/atelier/instances"
	"github.com/atelier-studio/atelier/sessions"
)

// The isolations a session can be created with (CreateOptions.Isolation).
const (
	IsolationInPlace  = "in-place"
	IsolationWorktree = "worktree"
	IsolationCopy     = "copy"
)

// InstanceOptions configure the workspace's instances ([instances] in the
// configuration).
type InstanceOptions struct {
	// Root holds the instances; "" is instances.DefaultRoot().
	Root string
	// Include lists ignored files an instance carries anyway (".env").
	Include []string
	// Omit names the folders a copy leaves out; nil is instances.DefaultOmit.
	Omit []string
	// Setup is a shell command run in a new instance before its first
	// session's first turn ("npm ci"); "" runs nothing.
	Setup string
	// WarnSize is the size in bytes over which making a copy is announced
	// with its size first; 0 means DefaultWarnSize.
	WarnSize int64
}

// DefaultWarnSize is [instances] warn_size's default: 1 GB.
const DefaultWarnSize = 1 << 30

// ErrNoInstances is returned by instance operations on an engine that has
// none: a passive engine (the workspace's host has them), or a state
// without an id.
var ErrNoInstances = errors.New("instances are not available")

// InstanceInfo is an instance with the sessions that work on it.
type InstanceInfo struct {
	instances.Instance
	// Sessions are the ids of the sessions on the instance, oldest first.
	Sessions []string `json:"sessions"`
}

// InstancesError says why the engine has no instances, if it has none.
func (e *Engine) InstancesError() error {
	_, err := e.places.manager()
	return err
}

// ListInstances returns the workspace's instances with their sessions.
func (c Caller) ListInstances() ([]InstanceInfo, error) {
	m, err := c.e.places.manager()
	if err != nil {
		return nil, err
	}
	list, err := m.List()
	if err != nil {
		return nil, err
	}
	users := c.e.instanceUsers()
	out := make([]InstanceInfo, 0, len(list))
	for _, in := range list {
		out = append(out, InstanceInfo{Instance: in, Sessions: users[in.ID]})
	}
	return out, nil
}

// instanceUsers maps each instance id to its sessions, oldest first.
func (e *Engine) instanceUsers() map[string][]string {
	e.mu.Lock()
	defer e.mu.Unlock()
	// Ids sort by their second only: two sessions made in one second are
	// told apart by when they were made.
	ls := e.sortedLocked()
	slices.SortStableFunc(ls, func(a, b *live) int { return a.rec.CreatedAt.Compare(b.rec.CreatedAt) })
	users := map[string][]string{}
	for _, l := range ls {
		if l.rec.Instance != "" {
			users[l.rec.Instance] = append(users[l.rec.Instance], l.rec.ID)
		}
	}
	return users
}

// CreateInstance makes an instance of the workspace.
func (c Caller) CreateInstance(kind instances.Kind, id string) (instances.Instance, error) {
	m, err := c.e.places.manager()
	if err != nil {
		return instances.Instance{}, err
	}
	in, err := m.Create(kind, id)
	if err != nil {
		return in, err
	}
	c.e.instanceChanged(in.ID)
	return in, nil
}

// InstanceDiff compares an instance with its base.
func (c Caller) InstanceDiff(id string) (instances.Diff, error) {
	m, err := c.e.places.manager()
	if err != nil {
		return instances.Diff{}, err
	}
	return m.Diff(id)
}

// InstanceSize measures an instance on disk.
func (c Caller) InstanceSize(id string) (instances.Size, error) {
	m, err := c.e.places.manager()
	if err != nil {
		return instances.Size{}, err
	}
	return m.Size(id)
}

// EstimateCopy measures what a copy instance of the workspace would hold.
func (c Caller) EstimateCopy() (instances.Size, error) {
	m, err := c.e.places.manager()
	if err != nil {
		return instances.Size{}, err
	}
	return m.EstimateCopy()
}

// ApplyInstance writes an instance's changes into the workspace (or, with
// opt.Preview, says what it would write).
func (c Caller) ApplyInstance(id string, opt instances.ApplyOptions) (instances.ApplyResult, error) {
	m, err := c.e.places.manager()
	if err != nil {
		return instances.ApplyResult{}, err
	}
	if _, err := m.Get(id); err != nil {
		return instances.ApplyResult{}, err
	}
	if !opt.Preview && !c.e.opts.NoHistory {
		// The instance's turns that ended are committed first, and the
		// operator's own edits in it after them, so the apply's
		// provenance names the turn that last changed each file, and
		// only when a turn did.
		c.e.commits.barrier()
		c.e.operatorCommitOf(c.e.ctx, id, "")
	}
	if !opt.Preview {
		// What is applied is the instance at one moment: no session on it
		// writes or runs a command while the apply reads it.
		release, err := c.e.LeaseWriteOf(c.e.ctx, id, "apply")
		if err != nil {
			return instances.ApplyResult{}, fmt.Errorf("apply instance %s: %w", id, err)
		}
		defer release()
	}
	res, err := m.Apply(id, opt)
	c.e.publishApplyCommits()
	if err == nil && !opt.Preview {
		c.e.instanceChanged(id)
	}
	return res, err
}

// InUseError refuses to discard an instance sessions still work on.
type InUseError struct {
	Instance string
	Sessions []string
}

func (e *InUseError) Error() string {
	return fmt.Sprintf("instance %s is in use by session(s) %v: close them first", e.Instance, e.Sessions)
}

// DiscardInstance removes an instance. It refuses while a session that has
// not ended works on it, and, unless force, while it has changes not
// applied (an *instances.UnappliedError).
func (c Caller) DiscardInstance(id string, force bool) error {
	m, err := c.e.places.manager()
	if err != nil {
		return err
	}
	if busy := c.e.instanceBusy(id); len(busy) > 0 {
		return &InUseError{Instance: id, Sessions: busy}
	}
	// The last turns of its ended sessions are committed before its chain
	// is dropped.
	c.e.commits.barrier()
	if err := m.Discard(id, force); err != nil {
		return err
	}
	// The instance is gone: its file access and its history chain with it
	// (the commits an apply recorded stay on the workspace's branch).
	err = errors.Join(c.e.places.drop(id), c.e.hist.drop(id), setupsOf(c.e.Workspace()).drop(id))
	c.e.instanceChanged(id)
	return err
}

// instanceBusy lists the sessions on instance id that have not ended.
func (e *Engine) instanceBusy(id string) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var busy []string
	for _, l := range e.sortedLocked() {
		if l.rec.Instance == id && l.rec.Status != sessions.Ended {
			busy = append(busy, l.rec.ID)
		}
	}
	return busy
}

// BranchInstance turns a worktree instance's work into branch name of the
// user's repository.
func (c Caller) BranchInstance(id, name string) (string, error) {
	m, err := c.e.places.manager()
	if err != nil {
		return "", err
	}
	return m.Branch(id, name)
}

// placeInstance settles the instance a new session works on: the one it
// joins, or one made for it (id: the session's id). made says a new one
// was made (removed again if the session cannot be created).
func (e *Engine) placeInstance(o CreateOptions, sessionID string) (id string, made bool, err error) {
	switch o.Isolation {
	case "", IsolationInPlace:
		if o.Instance == "" {
			return "", false, nil
		}
		m, err := e.places.manager()
		if err != nil {
			return "", false, fmt.Errorf("create session: %w", err)
		}
		in, err := m.Get(o.Instance)
		if err != nil {
			return "", false, fmt.Errorf("create session on instance %s: %w", o.Instance, err)
		}
		if !in.Ready {
			return "", false, fmt.Errorf("create session on instance %s: it is still being made", o.Instance)
		}
		return in.ID, false, nil
	case IsolationWorktree, IsolationCopy:
		if o.Instance != "" {
			return "", false, fmt.Errorf("create session: isolation %s makes a new instance; it cannot also join instance %s", o.Isolation, o.Instance)
		}
		m, err := e.places.manager()
		if err != nil {
			return "", false, fmt.Errorf("create session: %w", err)
		}
		in, err := m.Create(instances.Kind(o.Isolation), sessionID)
		if err != nil {
			return "", false, fmt.Errorf("create session: %w", err)
		}
		e.instanceChanged(in.ID)
		return in.ID, true, nil
	default:
		return "", false, fmt.Errorf("create session: isolation must be one of %v, not %q", isolations, o.Isolation)
	}
}

var isolations = []string{IsolationInPlace, IsolationWorktree, IsolationCopy}

// ValidIsolation reports whether s names an isolation ("" is in-place).
func ValidIsolation(s string) bool { return s == "" || slices.Contains(isolations, s) }
