package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/sessions"
)

// runOptions are the flags of `atelier run`.
type runOptions struct {
	agent, workspace, title, mode, exec, image, access, approve string
	json                                                        bool
	timeout                                                     time.Duration
}

func newRunCmd(s *streams) *cobra.Command {
	o := &runOptions{}
	cmd := &cobra.Command{
		Use:   "run [flags] PROMPT",
		Short: "Run a one-shot session headless: create, start, stream, exit when it ends",
		Long: `Run creates a session on the workspace, starts it with PROMPT as its task,
streams its output, and exits when the session ends or needs the operator.

Approvals and questions are answered as --approve says: "ask" prompts on the
terminal (and, with no terminal, leaves the session waiting: exit code 4),
"auto" allows approvals and takes a question's default answer (never for a
protected path: that run exits 4), "deny" denies approvals and takes
defaults.

Exit codes: 0 completed, 1 failed, 2 usage error, 3 cancelled, 4 needs the
operator.`,
		Example: `  atelier run --agent demo --approve auto "write a hello note"
  atelier run --json --workspace ~/src/app "fix the failing test" | jq .type`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runHeadless(cmd.Context(), o, joinArgs(args), s)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.agent, "agent", "", "the agent to run (see `atelier agents`; default: the configured default, else demo)")
	f.StringVarP(&o.workspace, "workspace", "w", ".", "the workspace folder")
	f.StringVar(&o.title, "title", "", "the session's title (default: the prompt's first line)")
	f.StringVar(&o.mode, "mode", "one-shot", "one-shot or continuous")
	f.StringVar(&o.exec, "exec", "local", "where commands run: local or docker")
	f.StringVar(&o.image, "image", "", "the container image, with --exec docker")
	f.StringVar(&o.access, "access", "read-write", "read-write or read-only")
	f.StringVar(&o.approve, "approve", "ask", "who answers approvals: ask, auto or deny")
	f.BoolVar(&o.json, "json", false, "print one JSON object per event line")
	f.DurationVar(&o.timeout, "timeout", 0, "cancel the session after this long (0: no limit)")
	return cmd
}

func joinArgs(args []string) string {
	out := ""
	for i, a := range args {
		if i > 0 {
			out += " "
		}
		out += a
	}
	return out
}

func (o *runOptions) validate() error {
	switch o.approve {
	case "ask", "auto", "deny":
	default:
		return usageErr("--approve must be ask, auto or deny, not %q", o.approve)
	}
	switch sessions.Mode(o.mode) {
	case sessions.OneShot, sessions.Continuous:
	default:
		return usageErr("--mode must be one-shot or continuous, not %q", o.mode)
	}
	switch sessions.Access(o.access) {
	case sessions.ReadWrite, sessions.ReadOnly:
	default:
		return usageErr("--access must be read-write or read-only, not %q", o.access)
	}
	if o.exec != "local" && o.exec != "docker" {
		return usageErr("--exec must be local or docker, not %q", o.exec)
	}
	if o.exec == "docker" && o.image == "" {
		return usageErr("--exec docker needs --image")
	}
	return nil
}

func runHeadless(ctx context.Context, o *runOptions, prompt string, s *streams) error {
	if err := o.validate(); err != nil {
		return err
	}
	eng, cfg, _, err := s.openEngine(o.workspace, false, false)
	if err != nil {
		return err
	}
	defer eng.Close()
	_, sub := eng.Subscribe()
	defer sub.Close()
	if o.agent == "" {
		o.agent = cfg.DefaultAgent()
	}
	rec, err := eng.Create(core.CreateOptions{
		Agent: o.agent, Title: o.title, Instructions: prompt, Mode: sessions.Mode(o.mode),
		Access: sessions.Access(o.access), Execution: o.exec, Image: o.image, AutoStart: true,
	})
	if errors.Is(err, core.ErrUnknownAgent) {
		return usageErr("%v", err)
	}
	if err != nil {
		return err
	}
	out := newPrinter(s, o.json)
	out.created(rec)
	r := &runner{eng: eng, id: rec.ID, mode: o.approve, out: out, s: s}
	var timeout <-chan time.Time
	if o.timeout > 0 {
		t := time.NewTimer(o.timeout)
		defer t.Stop()
		timeout = t.C
	}
	cancelled := false
	for {
		select {
		case <-sub.Ready():
			for _, ev := range sub.Drain() {
				if code, done := r.handle(ev); done {
					return exitFor(code, r.last)
				}
			}
		case <-ctx.Done():
			if !cancelled {
				cancelled = true
				eng.Cancel(rec.ID)
			}
		case <-timeout:
			if !cancelled {
				cancelled = true
				out.notice(rec.ID, fmt.Sprintf("timeout after %s: cancelling", o.timeout))
				eng.Cancel(rec.ID)
			}
		}
	}
}

// exitFor turns the end of a run into the command's error.
func exitFor(code int, last sessions.Session) error {
	switch code {
	case ExitOK:
		return nil
	case ExitFailed:
		return withCode(code, fmt.Errorf("session %s failed: %s", last.ID, last.Error))
	case ExitCancelled:
		return withCode(code, fmt.Errorf("session %s was cancelled", last.ID))
	}
	return withCode(code, fmt.Errorf("session %s needs the operator (%s): answer it in the studio or with `atelier sessions`", last.ID, needs(last)))
}

func needs(s sessions.Session) string {
	if s.Status == sessions.Waiting {
		return "waiting: " + string(s.WaitReason)
	}
	return string(s.Status) + " " + string(s.SubState)
}
