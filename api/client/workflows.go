package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"time"

	"github.com/atelier-studio/atelier/workflow/runs"
)

// Problem codes of the workflow routes.
const (
	CodeWorkflowUnusable  = "workflow_unusable"  // the workflow, a schema, a template or the input cannot be used
	CodeWorkflowConflict  = "workflow_conflict"  // the key's run was started with another input
	CodeWorkflowUntrusted = "workflow_untrusted" // the workspace's workflow files are not trusted as they are
	CodeWorkflowNotFound  = "workflow_not_found" // no such workflow or run
	CodeWorkflowsOff      = "workflows_off"      // the host runs no workflows
)

// WorkflowRunRequest is the body of POST /v1/workflows/{name}/runs.
type WorkflowRunRequest struct {
	Input json.RawMessage `json:"input"`
	// Approve is ask (the default: a run that needs a person is
	// suspended), auto or deny.
	Approve string `json:"approve,omitempty"`
	// Retry runs a failed run again from its failed step.
	Retry bool `json:"retry,omitempty"`
}

// WorkflowResumeRequest is the body of POST /v1/workflow-runs/{id}/resume.
type WorkflowResumeRequest struct {
	// Approve, when set, replaces the run's approve mode.
	Approve string `json:"approve,omitempty"`
}

// Workflows lists the workflows the host finds.
func (c *Client) Workflows(ctx context.Context) ([]runs.Source, error) {
	var out []runs.Source
	err := c.do(ctx, http.MethodGet, "/v1/workflows", nil, &out)
	return out, err
}

// StartWorkflow starts a run of workflow name, or answers the run its key
// already has (see the runner's rules in docs/workflows.md).
func (c *Client) StartWorkflow(ctx context.Context, name string, req WorkflowRunRequest) (runs.Run, error) {
	var out runs.Run
	err := c.do(ctx, http.MethodPost, "/v1/workflows/"+url.PathEscape(name)+"/runs", req, &out)
	return out, err
}

// WorkflowRuns lists the runs, newest first.
func (c *Client) WorkflowRuns(ctx context.Context) ([]runs.Run, error) {
	var out []runs.Run
	err := c.do(ctx, http.MethodGet, "/v1/workflow-runs", nil, &out)
	return out, err
}

// SessionWorkflowRuns lists the runs whose session is session (at most
// one: a run's session is its own), so a view of the session can show the
// run's steps.
func (c *Client) SessionWorkflowRuns(ctx context.Context, session string) ([]runs.Run, error) {
	var out []runs.Run
	err := c.do(ctx, http.MethodGet, "/v1/workflow-runs?session="+url.QueryEscape(session), nil, &out)
	return out, err
}

// WorkflowRun returns a run's record. With wait > 0 the host answers once
// the run stops running (it completed, failed or was suspended) or after
// wait, whichever comes first.
func (c *Client) WorkflowRun(ctx context.Context, id string, wait time.Duration) (runs.Run, error) {
	var out runs.Run
	path := "/v1/workflow-runs/" + url.PathEscape(id)
	if wait > 0 {
		path += "?wait=" + url.QueryEscape(wait.String())
	}
	err := c.do(ctx, http.MethodGet, path, nil, &out)
	return out, err
}

// ResumeWorkflowRun continues a suspended run.
func (c *Client) ResumeWorkflowRun(ctx context.Context, id string, req WorkflowResumeRequest) (runs.Run, error) {
	var out runs.Run
	err := c.do(ctx, http.MethodPost, "/v1/workflow-runs/"+url.PathEscape(id)+"/resume", req, &out)
	return out, err
}

// AwaitWorkflowRun waits until run id stops running, asking the host in
// long polls, and returns its record.
func (c *Client) AwaitWorkflowRun(ctx context.Context, id string) (runs.Run, error) {
	for {
		run, err := c.WorkflowRun(ctx, id, 30*time.Second)
		if err != nil || run.Status != runs.Running {
			return run, err
		}
		if err := ctx.Err(); err != nil {
			return run, err
		}
	}
}
