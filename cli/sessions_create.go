package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/atelier-studio/atelier/api/client"

	"github.com/spf13/cobra"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/sessions"
)

func newCreateCmd(s *streams, ws *string) *cobra.Command {
	o := &runOptions{}
	w := &waitFlags{}
	var noStart, asJSON bool
	var startAt, approval, promptFile string
	cmd := &cobra.Command{
		Use:   "create [flags] (TASK... | - | --prompt-file FILE)",
		Short: "Create a session, started now, later (--start-at) or by hand (--no-start)",
		Long: `Create makes a session with TASK as its first input and prints its id.

By default it starts at once in the workspace's engine host (atelier serve),
which this command starts in the background when none runs; given --wait,
the command follows it there to its next stop. --start-at gives it a start time (RFC 3339, or a duration
from now such as 10m); --no-start leaves it CREATED until
` + "`atelier sessions start`" + `.

A single - reads the task from standard input instead of the words, and
--prompt-file from a file (up to 16 MiB).`,
		Example: `  atelier sessions create --agent local "refactor the config loader"
  atelier sessions create --no-start --title nightly "update the dependencies"
  atelier sessions create --start-at 2h "run the slow integration tests"
  atelier sessions create --start-at 2025-06-01T02:00:00Z --mode continuous "review open TODOs"
  atelier sessions create --wait --approve auto "write a hello note"`,
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			o.workspace, o.approve = *ws, "ask"
			if err := o.validate(); err != nil {
				return err
			}
			if len(args) == 0 && promptFile == "" {
				return usageErr("give the task: as words, as - to read standard input, or with --prompt-file FILE")
			}
			task, err := s.promptText(args, promptFile)
			if err != nil {
				return err
			}
			if strings.TrimSpace(task) == "" {
				return usageErr("the task is empty")
			}
			switch approval {
			case "", core.PolicyAsk, core.PolicyAuto, core.PolicyReadOnly:
			default:
				return usageErr("--approval must be ask, auto or read-only, not %q", approval)
			}
			at, err := parseStartAt(startAt, time.Now())
			if err != nil {
				return err
			}
			if noStart && w.wait {
				return usageErr("--no-start and --wait contradict each other")
			}
			if w.wait {
				if err := w.check(); err != nil {
					return err
				}
			}
			// The workspace's host creates (and starts) the session;
			// with --wait the command follows it there.
			if w.wait {
				c, stop, err := s.stayingHost(cmd.Context(), *ws)
				if err != nil {
					return err
				}
				defer func() { err = joinStop(err, stop()) }()
				return s.createAndWaitOnHost(cmd.Context(), c, *ws, o, task, approval, at, w)
			}
			api, eng, done, err := s.openShort(cmd.Context(), *ws)
			if err != nil {
				return err
			}
			defer done(&err)
			if r, ok := api.(*remoteAPI); ok {
				return s.createOnHost(cmd.Context(), r.C, *ws, o, task, approval, at, noStart, asJSON)
			}
			// No host to reach: the session is recorded for the next
			// engine that opens the workspace.
			cfg, err := s.loadConfig(eng.Workspace(), io.Discard) // its notices were said when eng opened
			if err != nil {
				return err
			}
			co, err := o.createFrom(cfg, task)
			if err != nil {
				return err
			}
			co.AutoStart, co.StartAt, co.Approval, co.Key = !noStart && at == nil, at, approval, ""
			rec, err := eng.Create(co)
			if err != nil {
				return sessionErr(err)
			}
			if asJSON {
				return writeJSON(s, rec)
			}
			fmt.Fprintln(s.out, rec.ID)
			switch {
			case at != nil:
				fmt.Fprintf(s.err, "session %s starts at %s, when the workspace's engine next runs (no engine host could be started)\n", rec.ID, at.Local().Format(time.RFC3339))
			case noStart:
				fmt.Fprintf(s.err, "session %s created; start it with `atelier sessions start %s`\n", rec.ID, rec.ID)
			default:
				fmt.Fprintf(s.err, "session %s created; no engine host could be started, so it starts when the workspace's engine next runs, or run it here with `atelier sessions start %s --wait`\n", rec.ID, rec.ID)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.agent, "agent", "", "the agent (see `atelier agents`; default: the configured default, else demo)")
	f.StringVar(&o.title, "title", "", "the session's title (default: the task's first line)")
	f.StringVar(&promptFile, "prompt-file", "", "read the task from this file (- for standard input)")
	f.StringVar(&o.mode, "mode", "one-shot", "one-shot or continuous")
	f.StringVar(&o.exec, "exec", "", "where commands run: local or docker (default: the agent's execution)")
	f.StringVar(&o.image, "image", "", "the container image, with --exec docker")
	f.StringVar(&o.access, "access", "read-write", "read-write or read-only")
	f.StringVar(&approval, "approval", "", "the approval policy: ask, auto or read-only (default: the agent's)")
	f.BoolVar(&noStart, "no-start", false, "leave the session CREATED until `sessions start`")
	f.StringVar(&startAt, "start-at", "", "start at this time: RFC 3339, or a duration from now such as 10m")
	f.BoolVar(&asJSON, "json", false, "print the session's record as JSON (with --wait: the event stream)")
	f.BoolVar(&w.wait, "wait", false, "run the session here to its next stop; exit with the codes of `atelier run`")
	f.StringVar(&w.approve, "approve", "ask", "with --wait, who answers approvals: ask, auto or deny")
	f.DurationVar(&w.timeout, "timeout", 0, "with --wait, cancel the session after this long (0: no limit)")
	addIsolationFlags(cmd, o)
	registerEnumCompletions(cmd, map[string][]string{
		"mode": {"one-shot", "continuous"}, "exec": {"local", "docker"}, "access": {"read-write", "read-only"},
		"approve": approveModes, "approval": {core.PolicyAsk, core.PolicyAuto, core.PolicyReadOnly},
	})
	cmd.PreRunE = func(cmd *cobra.Command, args []string) error {
		w.json = asJSON && w.wait
		return nil
	}
	return cmd
}

// parseStartAt reads --start-at: an RFC 3339 time, or a duration from now.
// nil means no start time.
func parseStartAt(v string, now time.Time) (*time.Time, error) {
	if v == "" {
		return nil, nil
	}
	if d, err := time.ParseDuration(v); err == nil {
		if d <= 0 {
			return nil, usageErr("--start-at %s: the duration must be positive", v)
		}
		t := now.Add(d)
		return &t, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return nil, usageErr("--start-at %q: give an RFC 3339 time (2025-06-01T02:00:00Z) or a duration (10m)", v)
	}
	if !t.After(now) {
		return nil, usageErr("--start-at %s is in the past", v)
	}
	return &t, nil
}

func newForkCmd(s *streams, ws *string) *cobra.Command {
	var at, title string
	cmd := &cobra.Command{
		Use:   "fork SESSION",
		Short: "Copy a session's history into a new session",
		Long: `Fork creates a new continuous session (CREATED) with the history of SESSION,
up to and including message --at (the whole history without it), and prints
its id. Send it a message to go on from there. Message ids are in
` + "`atelier sessions show SESSION --json`" + `.`,
		Example: `  atelier sessions fork 240601
  atelier sessions fork 240601 --at 240601123456ab12cd34ef --title "try another way"`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeSessions(s, ws),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			t, done, err := s.shortTarget(cmd.Context(), *ws, args[0])
			if err != nil {
				return err
			}
			defer done(&err)
			rec, err := t.api.Fork(t.id, at, title)
			if err != nil {
				if strings.Contains(err.Error(), "no message") {
					return withCode(ExitUsage, err)
				}
				return sessionErr(err)
			}
			fmt.Fprintln(s.out, rec.ID)
			fmt.Fprintf(s.err, "forked %s into %s (%s)\n", t.id, rec.ID, sessions.Created)
			return nil
		},
	}
	cmd.Flags().StringVar(&at, "at", "", "the last message (id) to copy")
	cmd.Flags().StringVar(&title, "title", "", "the new session's title (default: the original's, marked fork)")
	return cmd
}

// createAndWaitOnHost is create --wait through the host: the session is
// made without starting, its event stream opened, and only then started
// (unless --start-at starts it), so the command misses none of its first
// turn; it then follows the session to its next stop, as start --wait.
func (s *streams) createAndWaitOnHost(ctx context.Context, c *client.Client, ws string, o *runOptions, task, approval string,
	at *time.Time, w *waitFlags) error {
	_, req, err := s.hostCreateRequest(ws, o, task)
	if err != nil {
		return err
	}
	if err := s.checkCreateCopy(ctx, c, req, o.yes); err != nil {
		return err
	}
	req.Approval, req.StartAt = approval, at
	rec, err := c.Create(ctx, req)
	if err != nil {
		return sessionErr(remoteErr(err))
	}
	h, err := s.openHostWaitOn(ctx, c, ws, rec.ID)
	if err != nil {
		return err
	}
	defer func() { _ = h.close() }() // the client is the caller's: nothing of its own to release
	out := newPrinter(s, w.json)
	out.created(rec)
	if at == nil {
		if err := h.t.api.Start(rec.ID); err != nil {
			return sessionErr(err)
		}
	}
	return s.remoteStay(ctx, h, w, out, followOptions{})
}

// createOnHost creates a session through the workspace's host (which then
// runs it) and prints what the in-process path prints.
func (s *streams) createOnHost(ctx context.Context, c *client.Client, ws string, o *runOptions, task, approval string,
	at *time.Time, noStart, asJSON bool) error {
	_, req, err := s.hostCreateRequest(ws, o, task)
	if err != nil {
		return err
	}
	if err := s.checkCreateCopy(ctx, c, req, o.yes); err != nil {
		return err
	}
	req.Approval, req.AutoStart, req.StartAt = approval, !noStart && at == nil, at
	rec, err := c.Create(ctx, req)
	if err != nil {
		return sessionErr(remoteErr(err))
	}
	if asJSON {
		return writeJSON(s, rec)
	}
	fmt.Fprintln(s.out, rec.ID)
	switch {
	case at != nil:
		fmt.Fprintf(s.err, "session %s starts at %s, in the workspace's engine host\n", rec.ID, at.Local().Format(time.RFC3339))
	case noStart:
		fmt.Fprintf(s.err, "session %s created; start it with `atelier sessions start %s`\n", rec.ID, rec.ID)
	default:
		fmt.Fprintf(s.err, "session %s created; it runs in the workspace's engine host\n", rec.ID)
	}
	return nil
}
