package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/workflow"
	"github.com/atelier-studio/atelier/workflow/runs"
)

const twoSteps = `description = "two steps"
key = "id"
[input]
type = "object"
required = ["id"]
properties = { id = { type = "string" } }
[[steps]]
key = "hello"
exec = "echo hello {{ .input.id }}"
[[steps]]
key = "ask"
ask = "say {{ .steps.hello.stdout }}"
`

// workflowServer serves a real engine with a workflow runner over HTTP.
func workflowServer(t *testing.T) *client.Client {
	t.Helper()
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, workflow.WorkspaceDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, workflow.WorkspaceDir, "two.toml"), []byte(twoSteps), 0o644); err != nil {
		t.Fatal(err)
	}
	eng, err := core.Open(ws, core.Options{Agents: core.DemoResolver{Demo: &harness.Demo{Wait: 10 * time.Millisecond}}, NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	wf := workflow.NewRunner(eng, workflow.Options{Finder: workflow.Finder{Workspace: ws,
		Trust: func() (config.TrustState, error) { return config.TrustTrusted, nil }}})
	srv := NewServer(eng, Options{Version: "test", Workflows: wf})
	hs := httptest.NewServer(newDeclaredAnswers(t, srv, srv))
	t.Cleanup(func() {
		hs.Close()
		wf.Close()
		srv.Close()
		if err := eng.Close(); err != nil {
			t.Error(err)
		}
	})
	c, err := client.New(hs.URL, client.Options{Label: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// problemCode is the code of the problem err carries ("" for none).
func problemCode(err error) string {
	var p *client.Problem
	if errors.As(err, &p) {
		return p.Code
	}
	return ""
}

func TestWorkflowRoutes(t *testing.T) {
	c := workflowServer(t)
	ctx := context.Background()
	list, err := c.Workflows(ctx)
	if err != nil || len(list) != 1 || list[0].Name != "two" || list[0].Description != "two steps" {
		t.Fatalf("workflows %+v, %v", list, err)
	}
	run, err := c.StartWorkflow(ctx, "two", client.WorkflowRunRequest{Input: json.RawMessage(`{"id":"a"}`), Approve: "auto"})
	if err != nil {
		t.Fatal(err)
	}
	done, err := c.AwaitWorkflowRun(ctx, run.ID)
	if err != nil || done.Status != runs.Completed || done.Steps[0].Stdout != "hello a\n" {
		t.Fatalf("run %+v, %v", done, err)
	}
	all, err := c.WorkflowRuns(ctx)
	if err != nil || len(all) != 1 || all[0].ID != run.ID {
		t.Errorf("runs %+v, %v", all, err)
	}
	of, err := c.SessionWorkflowRuns(ctx, done.Session)
	if err != nil || len(of) != 1 || of[0].ID != run.ID {
		t.Errorf("the session's run: %+v, %v", of, err)
	}
	if of, err := c.SessionWorkflowRuns(ctx, "other"); err != nil || len(of) != 0 {
		t.Errorf("another session's runs: %+v, %v", of, err)
	}
	for _, cse := range []struct {
		name string
		call func() error
		code string
	}{
		{"conflict", func() error {
			_, err := c.StartWorkflow(ctx, "two", client.WorkflowRunRequest{Input: json.RawMessage(`{"id":"a","x":1}`)})
			return err
		}, client.CodeWorkflowConflict},
		{"input", func() error {
			_, err := c.StartWorkflow(ctx, "two", client.WorkflowRunRequest{Input: json.RawMessage(`{"id":3}`)})
			return err
		}, client.CodeWorkflowUnusable},
		{"approve", func() error {
			_, err := c.StartWorkflow(ctx, "two", client.WorkflowRunRequest{Input: json.RawMessage(`{"id":"b"}`), Approve: "yes"})
			return err
		}, client.CodeWorkflowUnusable},
		{"unknown workflow", func() error {
			_, err := c.StartWorkflow(ctx, "three", client.WorkflowRunRequest{Input: json.RawMessage(`{}`)})
			return err
		}, client.CodeWorkflowNotFound},
		{"unknown run", func() error { _, err := c.WorkflowRun(ctx, "two-000000000000", time.Second); return err }, client.CodeWorkflowNotFound},
		{"resume unknown run", func() error {
			_, err := c.ResumeWorkflowRun(ctx, "nope", client.WorkflowResumeRequest{})
			return err
		}, client.CodeWorkflowNotFound},
	} {
		if got := problemCode(cse.call()); got != cse.code {
			t.Errorf("%s: code %q, want %q", cse.name, got, cse.code)
		}
	}
}

func TestWorkflowRoutesOff(t *testing.T) {
	r := newRig(t, Options{})
	_, err := r.c.Workflows(context.Background())
	var p *client.Problem
	if !errors.As(err, &p) || p.Code != client.CodeWorkflowsOff || p.Status != http.StatusServiceUnavailable {
		t.Errorf("a server without a runner: %v", err)
	}
}
