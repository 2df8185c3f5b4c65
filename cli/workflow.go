package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/workflow/runs"
)

// workflowOptions are the flags the workflow commands share.
type workflowOptions struct {
	workspace, input, approve string
	retry, json, runs         bool
}

func newWorkflowCmd(s *streams) *cobra.Command {
	o := &workflowOptions{}
	cmd := &cobra.Command{
		Use:   "workflow",
		Short: "Run workflows: input, keyed exec and ask steps, one session (docs/workflows.md)",
		Long: `A workflow is a file, .atelier/workflows/NAME.toml in the workspace (obeyed once
` + "`atelier trust`" + ` covers it) or workflows/NAME.toml beside your config.toml. It
declares its input (a JSON Schema), the input field that makes a run
idempotent, the agent, and ordered steps: exec runs a command in the run's
session, ask gives the agent a prompt (with an output schema, a checked
JSON answer). The workspace's engine host runs the steps; these commands
are its clients. See docs/workflows.md.`,
		Example: `  atelier workflow list
  atelier workflow run implement --input '{"requestId":"fix-001","request":"fix the typo in README.md"}'
  atelier workflow show implement-3f2a9c01b2d4
  atelier workflow resume implement-3f2a9c01b2d4 --approve auto`,
	}
	cmd.PersistentFlags().StringVarP(&o.workspace, "workspace", "w", ".", "the workspace folder")
	cmd.AddCommand(newWorkflowRunCmd(s, o), newWorkflowListCmd(s, o), newWorkflowShowCmd(s, o), newWorkflowResumeCmd(s, o))
	return cmd
}

const workflowExits = `Exit codes: 0 completed (the result on stdout), 1 a step failed (or could
not run, or was uncertain), 2 the workflow, a schema, a template or the
input cannot be used, the workspace's workflow is not trusted, or the key
was run with another input (all before any step), 4 suspended: a step
waits on a person, 5 an answer did not match its output schema.`

func newWorkflowRunCmd(s *streams, o *workflowOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run NAME --input JSON",
		Short: "Run a workflow (or answer the run its key already has) and print its result",
		Long: `Run starts a run of workflow NAME with the input (JSON; - reads standard input,
@FILE a file) on the workspace's engine host and waits for it. It prints the
run's result, the last step's, as JSON on stdout: an ask step's structured
output (or {"text": ...}), an exec step's {"exit_code", "stdout", "stderr"}.
With --json it prints the run's whole record instead.

The input's key field names the run: the same key with the same input
prints the recorded result (success or failure) and runs nothing; with
another input it is a conflict; a run still in progress is waited on. A
failed run runs again from its failed step with --retry.

--approve says who answers the agent's approvals and questions: ask (a
person: on a terminal, run asks there and goes on; with no terminal the run
is suspended, exit 4, its session left open: answer in the studio or with
` + "`atelier sessions answer`" + `, then ` + "`atelier workflow resume`" + `), auto (allow, take a
question's default; never a protected path), deny.

` + workflowExits,
		Example: `  atelier workflow run implement --input '{"requestId":"fix-001","request":"add a CHANGELOG entry"}'
  atelier workflow run implement --input @request.json --approve auto | jq .summary
  atelier workflow run implement --input @request.json --retry
  atelier workflow run implement --input - --json < request.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkApprove(o.approve); err != nil {
				return err
			}
			input, err := s.readInput(o.input)
			if err != nil {
				return err
			}
			return s.withWorkflowHost(cmd.Context(), o.workspace, func(ctx context.Context, c *client.Client) error {
				run, err := c.StartWorkflow(ctx, args[0], client.WorkflowRunRequest{Input: input, Approve: o.approve, Retry: o.retry})
				if err != nil {
					return workflowErr(err)
				}
				return s.awaitRun(ctx, c, run, o.json)
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.input, "input", "", "the input: JSON, - for standard input, @FILE for a file")
	f.StringVar(&o.approve, "approve", "ask", "who answers approvals and questions: ask (suspend the run), auto or deny")
	f.BoolVar(&o.retry, "retry", false, "run a failed run again from its failed step")
	f.BoolVar(&o.json, "json", false, "print the run's record as JSON instead of its result")
	registerEnumCompletions(cmd, map[string][]string{"approve": approveModes})
	return cmd
}

func newWorkflowResumeCmd(s *streams, o *workflowOptions) *cobra.Command {
	var approve string
	cmd := &cobra.Command{
		Use:   "resume RUN",
		Short: "Continue a suspended run (or one a stopped host left running) and print its result",
		Long: `Resume continues run RUN from its current step: steps done are not run again,
and a step whose result was never recorded (its host was killed while it
ran) is reported uncertain, not run again. A run the host was running when
it stopped is resumed by the next host by itself; resume waits for it.
--approve replaces the run's approve mode.

` + workflowExits,
		Example: `  atelier workflow resume implement-3f2a9c01b2d4
  atelier workflow resume implement-3f2a9c01b2d4 --approve auto --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if approve != "" {
				if err := checkApprove(approve); err != nil {
					return err
				}
			}
			return s.withWorkflowHost(cmd.Context(), o.workspace, func(ctx context.Context, c *client.Client) error {
				run, err := c.ResumeWorkflowRun(ctx, args[0], client.WorkflowResumeRequest{Approve: approve})
				if err != nil {
					return workflowErr(err)
				}
				return s.awaitRun(ctx, c, run, o.json)
			})
		},
	}
	cmd.Flags().StringVar(&approve, "approve", "", "replace the run's approve mode: ask, auto or deny")
	cmd.Flags().BoolVar(&o.json, "json", false, "print the run's record as JSON instead of its result")
	registerEnumCompletions(cmd, map[string][]string{"approve": approveModes})
	return cmd
}

func newWorkflowListCmd(s *streams, o *workflowOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the workflows (or, with --runs, the runs)",
		Long: `List lists the workflows the workspace's host finds: the workspace's
(.atelier/workflows/) and yours (workflows/ beside config.toml), with their
description, or why one cannot be used (not trusted, a mistake in it).
With --runs it lists the runs instead, newest first.`,
		Example: `  atelier workflow list
  atelier workflow list --runs
  atelier workflow list --runs --json | jq -r '.[] | select(.status == "suspended") | .id'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return s.withWorkflowHost(cmd.Context(), o.workspace, func(ctx context.Context, c *client.Client) error {
				if o.runs {
					all, err := c.WorkflowRuns(ctx)
					if err != nil {
						return workflowErr(err)
					}
					if o.json {
						return writeJSON(s, all)
					}
					return s.printRuns(all)
				}
				all, err := c.Workflows(ctx)
				if err != nil {
					return workflowErr(err)
				}
				if o.json {
					return writeJSON(s, all)
				}
				return s.printWorkflows(all)
			})
		},
	}
	cmd.Flags().BoolVar(&o.runs, "runs", false, "list the runs, newest first")
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON")
	return cmd
}

func newWorkflowShowCmd(s *streams, o *workflowOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "show RUN",
		Short: "Show a run: its status, session, steps and result",
		Long: `Show prints run RUN's record: its workflow, key, status, session, each step
with its outcome, the result or the failure, and a failed close beside it.
With --json, the record as the host keeps it (every step's whole output).`,
		Example: `  atelier workflow show implement-3f2a9c01b2d4
  atelier workflow show implement-3f2a9c01b2d4 --json | jq .steps`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return s.withWorkflowHost(cmd.Context(), o.workspace, func(ctx context.Context, c *client.Client) error {
				run, err := c.WorkflowRun(ctx, args[0], 0)
				if err != nil {
					return workflowErr(err)
				}
				if o.json {
					return writeJSON(s, run)
				}
				return s.printRun(run)
			})
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print the record as JSON")
	return cmd
}

// withWorkflowHost runs do with a client of the workspace's engine host
// (one it starts, or this process's for the command's life), which runs
// the steps.
func (s *streams) withWorkflowHost(ctx context.Context, workspace string, do func(context.Context, *client.Client) error) (err error) {
	if ctx == nil {
		ctx = context.Background()
	}
	c, stop, err := s.stayingHost(ctx, workspace)
	if err != nil {
		return err
	}
	defer func() { err = joinStop(err, stop()) }()
	return do(ctx, c)
}

// readInput reads --input: JSON as given, - standard input, @FILE a file.
func (s *streams) readInput(arg string) (json.RawMessage, error) {
	var data []byte
	var err error
	switch {
	case arg == "":
		return nil, usageErr("give the workflow's input with --input JSON (- reads standard input, @FILE a file)")
	case arg == "-":
		data, err = io.ReadAll(io.LimitReader(s.in, 16<<20))
	case strings.HasPrefix(arg, "@"):
		data, err = os.ReadFile(arg[1:])
	default:
		data = []byte(arg)
	}
	if err != nil {
		return nil, usageErr("read --input: %v", err)
	}
	if !json.Valid(data) {
		return nil, usageErr("--input is not JSON")
	}
	return data, nil
}

// workflowErr gives the host's refusals their exit codes: what cannot be
// used, is not trusted, is not found, or conflicts is a usage error (2).
func workflowErr(err error) error {
	var p *client.Problem
	if errors.As(err, &p) {
		switch p.Code {
		case client.CodeWorkflowUnusable, client.CodeWorkflowConflict, client.CodeWorkflowUntrusted,
			client.CodeWorkflowNotFound, client.CodeBadRequest:
			return withCode(ExitUsage, errors.New(p.Detail))
		}
	}
	return remoteErr(err)
}

// awaitRun waits for the run to stop running, prints its result (or its
// record, with asJSON) and returns the error its status maps to.
//
// A run suspended under --approve ask with the operator at a terminal is
// asked there, answered through the host and resumed.
func (s *streams) awaitRun(ctx context.Context, c *client.Client, run runs.Run, asJSON bool) error {
	if run.Status == runs.Running {
		fmt.Fprintf(s.err, "atelier: workflow %s: run %s (session %s)\n", run.Workflow, run.ID, orNone(run.Session))
	}
	ask := &terminalAnswers{s: s}
	for {
		var err error
		if run.Status == runs.Running {
			if run, err = c.AwaitWorkflowRun(ctx, run.ID); err != nil {
				return workflowErr(err)
			}
		}
		if !ask.answer(ctx, c, run) {
			break
		}
		if run, err = c.ResumeWorkflowRun(ctx, run.ID, client.WorkflowResumeRequest{}); err != nil {
			return workflowErr(err)
		}
	}
	if asJSON {
		if err := writeJSON(s, run); err != nil {
			return err
		}
	} else if run.Status == runs.Completed && len(run.Result) > 0 {
		if err := writeJSON(s, run.Result); err != nil {
			return err
		}
	}
	return runExit(s, run)
}

// runExit is the exit of a run as it stands: 0 completed, 4 suspended, 5
// an answer off its schema, 1 any other failure. A failed close is said
// beside it.
func runExit(s *streams, run runs.Run) error {
	if run.CloseError != "" {
		fmt.Fprintf(s.err, "atelier: run %s: closing its session failed: %s\n", run.ID, run.CloseError)
	}
	switch run.Status {
	case runs.Completed:
		return nil
	case runs.Suspended:
		return withCode(ExitNeedsYou, fmt.Errorf("run %s is suspended at step %q: %s; answer it (the studio, `atelier sessions answer`), then `atelier workflow resume %s`",
			run.ID, run.Current, run.Waiting, run.ID))
	case runs.Failed:
		f := run.Failure
		if f == nil {
			return withCode(ExitFailed, fmt.Errorf("run %s failed", run.ID))
		}
		err := fmt.Errorf("run %s failed at step %q: %s", run.ID, f.Step, f.Message)
		if f.Kind == runs.FailOutput {
			return withCode(ExitOutput, err)
		}
		return withCode(ExitFailed, err)
	}
	return withCode(ExitFailed, fmt.Errorf("run %s is still running, but its host stopped running it: `atelier workflow resume %s`", run.ID, run.ID))
}

func orNone(s string) string {
	if s == "" {
		return "not made yet"
	}
	return s
}
