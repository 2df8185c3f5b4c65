package api

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/workflow"
	"github.com/atelier-studio/atelier/workflow/runs"
)

// maxRunWait bounds a long poll of GET /v1/workflow-runs/{id}?wait=.
const maxRunWait = 60 * time.Second

// routeWorkflows registers the workflow routes (see workflowsOperations).
// The host's runner runs the steps; clients start, follow and resume runs.
func (s *Server) routeWorkflows() {
	s.handle("GET /v1/workflows", s.listWorkflows)
	s.handle("POST /v1/workflows/{name}/runs", s.startWorkflow)
	s.handle("GET /v1/workflow-runs", s.listWorkflowRuns)
	s.handle("GET /v1/workflow-runs/{id}", s.getWorkflowRun)
	s.handle("POST /v1/workflow-runs/{id}/resume", s.resumeWorkflowRun)
}

// workflowsOperations documents the workflow routes.
func workflowsOperations() []operation {
	run := runs.Run{}
	return []operation{
		{method: "GET", path: "/v1/workflows", summary: "The workflows the host finds (the workspace's .atelier/workflows/, the user's)", status: 200, resp: []runs.Source{},
			problems: codes(client.CodeWorkflowsOff)},
		{method: "POST", path: "/v1/workflows/{name}/runs", summary: "Start a run; the same key answers its run (the record of a finished one, the one in flight)", body: client.WorkflowRunRequest{}, status: 200, resp: run,
			problems: codes(client.CodeWorkflowUnusable, client.CodeWorkflowUntrusted, client.CodeWorkflowNotFound, client.CodeWorkflowConflict, client.CodeWorkflowsOff, client.CodeEngineClosed)},
		{method: "GET", path: "/v1/workflow-runs", summary: "Workflow runs, newest first (session=ID: the run of that session)", query: []string{"session"}, status: 200, resp: []runs.Run{},
			problems: codes(client.CodeWorkflowsOff)},
		{method: "GET", path: "/v1/workflow-runs/{id}", summary: "A run's record (wait=DURATION: once it stops running, at most a minute)", query: []string{"wait"}, status: 200, resp: run,
			problems: codes(client.CodeWorkflowNotFound, client.CodeWorkflowsOff)},
		{method: "POST", path: "/v1/workflow-runs/{id}/resume", summary: "Continue a suspended run", body: client.WorkflowResumeRequest{}, status: 200, resp: run,
			problems: codes(client.CodeWorkflowUnusable, client.CodeWorkflowUntrusted, client.CodeWorkflowNotFound, client.CodeWorkflowConflict, client.CodeWorkflowsOff, client.CodeEngineClosed)},
	}
}

// runner is the host's workflow runner, or the refusal when it has none.
func (s *Server) runner() (*workflow.Runner, error) {
	if s.opts.Workflows == nil {
		return nil, &problemError{status: http.StatusServiceUnavailable, code: client.CodeWorkflowsOff, detail: "this host runs no workflows"}
	}
	return s.opts.Workflows, nil
}

// workflowErr gives the runner's errors their problem codes.
func workflowErr(err error) error {
	for _, m := range []struct {
		err    error
		status int
		code   string
	}{
		{workflow.ErrUnusable, http.StatusBadRequest, client.CodeWorkflowUnusable},
		{workflow.ErrConflict, http.StatusConflict, client.CodeWorkflowConflict},
		{workflow.ErrUntrusted, http.StatusForbidden, client.CodeWorkflowUntrusted},
		{workflow.ErrNotFound, http.StatusNotFound, client.CodeWorkflowNotFound},
		{workflow.ErrClosed, http.StatusServiceUnavailable, client.CodeEngineClosed},
	} {
		if errors.Is(err, m.err) {
			return &problemError{status: m.status, code: m.code, detail: err.Error()}
		}
	}
	return err
}

func (s *Server) listWorkflows(w http.ResponseWriter, r *http.Request) error {
	wf, err := s.runner()
	if err != nil {
		return err
	}
	all, err := wf.Workflows()
	if err != nil {
		return workflowErr(err)
	}
	if all == nil {
		all = []runs.Source{}
	}
	writeJSON(w, http.StatusOK, all)
	return nil
}

func (s *Server) startWorkflow(w http.ResponseWriter, r *http.Request) error {
	wf, err := s.runner()
	if err != nil {
		return err
	}
	var req client.WorkflowRunRequest
	if err := decode(w, r, &req); err != nil {
		return err
	}
	run, err := wf.Start(workflow.StartRequest{Workflow: r.PathValue("name"), Input: req.Input, Approve: req.Approve, Retry: req.Retry})
	if err != nil {
		return workflowErr(err)
	}
	writeJSON(w, http.StatusOK, run)
	return nil
}

func (s *Server) listWorkflowRuns(w http.ResponseWriter, r *http.Request) error {
	wf, err := s.runner()
	if err != nil {
		return err
	}
	all, err := wf.Runs()
	if err != nil {
		return workflowErr(err)
	}
	if sess := r.URL.Query().Get("session"); sess != "" {
		// The run a session belongs to (the studio shows its steps).
		var of []*runs.Run
		for _, run := range all {
			if run.Session == sess {
				of = append(of, run)
			}
		}
		all = of
	}
	if all == nil {
		all = []*runs.Run{}
	}
	writeJSON(w, http.StatusOK, all)
	return nil
}

func (s *Server) getWorkflowRun(w http.ResponseWriter, r *http.Request) error {
	wf, err := s.runner()
	if err != nil {
		return err
	}
	id := r.PathValue("id")
	wait := time.Duration(0)
	if v := r.URL.Query().Get("wait"); v != "" {
		if wait, err = time.ParseDuration(v); err != nil || wait < 0 {
			return badRequest("wait is a duration, e.g. 30s")
		}
		wait = min(wait, maxRunWait)
	}
	var run *runs.Run
	if wait > 0 {
		ctx, cancel := context.WithTimeout(r.Context(), wait)
		defer cancel()
		run, err = wf.Wait(ctx, id)
		switch {
		case ctx.Err() != nil:
			run, err = wf.Get(id)
		case err == nil && run.Status == runs.Running:
			// No goroutine runs it, and waiting will not change that:
			// the runner stopped (its host is closing).
			return workflowErr(workflow.ErrClosed)
		}
	} else {
		run, err = wf.Get(id)
	}
	if err != nil {
		return workflowErr(err)
	}
	writeJSON(w, http.StatusOK, run)
	return nil
}

func (s *Server) resumeWorkflowRun(w http.ResponseWriter, r *http.Request) error {
	wf, err := s.runner()
	if err != nil {
		return err
	}
	var req client.WorkflowResumeRequest
	if err := decode(w, r, &req); err != nil {
		return err
	}
	run, err := wf.Resume(r.PathValue("id"), req.Approve)
	if err != nil {
		return workflowErr(err)
	}
	writeJSON(w, http.StatusOK, run)
	return nil
}
