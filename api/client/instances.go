package client

import (
	"context"
	"net/http"
	"net/url"

	"github.com/atelier-studio/atelier/instances"
)

// Problem codes of the instance routes. A conflict and an unapplied
// discard name their files in Problem.Files, an instance in use its
// sessions in Problem.Sessions.
const (
	CodeNoInstances      = "no_instances"      // the engine has no instances (a passive engine, an old state)
	CodeInstanceExists   = "instance_exists"   // create: the id is taken
	CodeInstanceConflict = "instance_conflict" // apply: the workspace changed the same files since the base
	CodeInstanceInUse    = "instance_in_use"   // discard: sessions not ended work on it
	CodeUnappliedChanges = "unapplied_changes" // discard: changes not applied (force=1 loses them)
	CodeNotWorktree      = "not_worktree"      // branch: only a worktree instance can become a branch
)

// MainInstance is the id the workspace folder itself goes by in the
// instance routes.
const MainInstance = "main"

// InstanceInfo is an instance with the sessions working on it (oldest
// first). In GET /v1/instances the workspace itself comes first, as id
// "main" and kind "workspace".
type InstanceInfo struct {
	instances.Instance
	Sessions []string `json:"sessions"`
}

// KindWorkspace is the kind of the "main" entry of GET /v1/instances.
const KindWorkspace instances.Kind = "workspace"

// InstanceDetail is GET /v1/instances/{id}: the instance, its size on
// disk and what it changed against its base.
type InstanceDetail struct {
	InstanceInfo
	Size instances.Size `json:"size"`
	// Changed is the number of files changed against the base; Added and
	// Removed count their lines.
	Changed int `json:"changed"`
	Added   int `json:"added"`
	Removed int `json:"removed"`
}

// CreateInstanceRequest is the body of POST /v1/instances. An empty id
// makes one up from the kind.
type CreateInstanceRequest struct {
	Kind string `json:"kind"`
	ID   string `json:"id,omitempty"`
}

// ApplyRequest is the body of POST /v1/instances/{id}/apply.
type ApplyRequest struct {
	ThreeWay bool `json:"three_way,omitempty"`
	Preview  bool `json:"preview,omitempty"`
}

// ApplyResult is what an apply wrote (or, previewing, would write).
// CommitError is set when the files were written but the history commit
// failed.
type ApplyResult struct {
	instances.ApplyResult
	CommitError string `json:"commit_error,omitempty"`
}

// CopyEstimate is what a copy instance of the workspace would hold, and
// the host's [instances] warn_size: over it a client asks first.
type CopyEstimate struct {
	Size     instances.Size `json:"size"`
	WarnSize int64          `json:"warn_size"`
}

// CopyEstimate measures what a copy instance would hold.
func (c *Client) CopyEstimate(ctx context.Context) (CopyEstimate, error) {
	var out CopyEstimate
	err := c.do(ctx, http.MethodGet, "/v1/copy-estimate", nil, &out)
	return out, err
}

// BranchRequest is the body of POST /v1/instances/{id}/branch.
type BranchRequest struct {
	Name string `json:"name"`
}

// BranchResult names the branch made and its commit.
type BranchResult struct {
	Branch string `json:"branch"`
	Commit string `json:"commit"`
}

func instancePath(id string, rest ...string) string {
	p := "/v1/instances/" + url.PathEscape(id)
	for _, r := range rest {
		p += "/" + r
	}
	return p
}

// Instances lists the workspace ("main") and its instances.
func (c *Client) Instances(ctx context.Context) ([]InstanceInfo, error) {
	var out []InstanceInfo
	err := c.do(ctx, http.MethodGet, "/v1/instances", nil, &out)
	return out, err
}

// CreateInstance makes an instance of kind "worktree" or "copy".
func (c *Client) CreateInstance(ctx context.Context, req CreateInstanceRequest) (InstanceInfo, error) {
	var out InstanceInfo
	err := c.do(ctx, http.MethodPost, "/v1/instances", req, &out)
	return out, err
}

// Instance returns an instance with its size and changes.
func (c *Client) Instance(ctx context.Context, id string) (InstanceDetail, error) {
	var out InstanceDetail
	err := c.do(ctx, http.MethodGet, instancePath(id), nil, &out)
	return out, err
}

// InstanceDiff compares an instance with its base.
func (c *Client) InstanceDiff(ctx context.Context, id string) (instances.Diff, error) {
	var out instances.Diff
	err := c.do(ctx, http.MethodGet, instancePath(id, "diff"), nil, &out)
	return out, err
}

// ApplyInstance writes an instance's changes into the workspace, or with
// Preview says what it would write.
func (c *Client) ApplyInstance(ctx context.Context, id string, req ApplyRequest) (ApplyResult, error) {
	var out ApplyResult
	err := c.do(ctx, http.MethodPost, instancePath(id, "apply"), req, &out)
	return out, err
}

// DiscardInstance removes an instance; force loses changes not applied.
func (c *Client) DiscardInstance(ctx context.Context, id string, force bool) error {
	p := instancePath(id)
	if force {
		p += "?force=1"
	}
	return c.do(ctx, http.MethodDelete, p, nil, nil)
}

// BranchInstance makes branch name of the user's repository from a
// worktree instance's work.
func (c *Client) BranchInstance(ctx context.Context, id, name string) (BranchResult, error) {
	var out BranchResult
	err := c.do(ctx, http.MethodPost, instancePath(id, "branch"), BranchRequest{Name: name}, &out)
	return out, err
}
