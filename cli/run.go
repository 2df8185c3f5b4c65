package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/sessions"
)

// runOptions are the flags of `atelier run`.
type runOptions struct {
	agent, workspace, title, mode, exec, image, access, approve, key string
	json                                                             bool
	timeout                                                          time.Duration
	promptFile                                                       string // --prompt-file
	output                                                           string // --output: a JSON Schema file
	schema                                                           json.RawMessage
	isolation, instance                                              string // --isolation, --instance
	yes                                                              bool   // --yes: make a copy over warn_size without asking
}

func newRunCmd(s *streams) *cobra.Command {
	o := &runOptions{}
	cmd := &cobra.Command{
		Use:   "run [flags] (PROMPT... | - | --prompt-file FILE)",
		Short: "Run a session headless: create, start, stream, exit when it stops",
		Long: `Run creates a session on the workspace, starts it with PROMPT as its task,
streams its output, and exits when the session ends or needs the operator.
Words after the flags are joined into one prompt; a single - reads the
prompt from standard input instead, and --prompt-file from a file (a long
prompt, or one with newlines, up to 16 MiB).

Approvals and questions are answered as --approve says: "ask" prompts on the
terminal (and, with no terminal, leaves the session waiting: exit code 4),
"auto" allows approvals and takes a question's default answer (never for a
protected path: that run exits 4), "deny" denies approvals and takes
defaults.

With --key, a repeated key does not run again: it reports the session the
key created, its result if it ended, or follows it if it still runs.

When the workspace's engine host runs (atelier serve), the host creates and
runs the session and run follows it as a client; otherwise run hosts the
engine itself while it lives.

Interrupting run (Ctrl-C, SIGTERM) or reaching --timeout cancels the
session; a second interrupt exits at once, whatever the engine is doing.

A write that fails (a full disk) fails the session: run prints the error
and exits 1.

With --output FILE (a JSON Schema; - reads standard input) the task asks
for a structured answer: the engine adds guidance derived from the schema
to the prompt and checks the final answer against it (the last JSON value
of the answer that matches: a fenced block or an object amid prose). run
then prints the validated JSON alone on stdout, the agent's text going to
stderr; with --json, an output event carries it. A schema that cannot be
used exits 2 before any session is made; an answer with no JSON that
matches exits 5, with the validation errors. There is no automatic repair
turn.

Exit codes: 0 completed (or a continuous session waiting for its next
message), 1 failed, 2 usage error (an unusable output schema too),
3 cancelled, 4 needs the operator, 5 the answer does not match --output's
schema, 130 or 143 a second SIGINT or SIGTERM.`,
		Example: `  atelier run --agent demo --approve auto "write a hello note"
  atelier run --json --workspace ~/src/app "fix the failing test" | jq -r .type
  atelier run --key nightly-2024-06-01 --timeout 30m "update the dependencies"
  atelier run --exec docker --image golang:1.26 --access read-only "review main.go"
  { echo "review this change:"; git diff; } | atelier run -
  atelier run --prompt-file task.md
  atelier run --output report.schema.json "summarise the last commit" | jq .summary`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && o.promptFile == "" {
				return usageErr("give the prompt: as words, as - to read standard input, or with --prompt-file FILE")
			}
			if o.output == "-" && (o.promptFile == "-" || (len(args) == 1 && args[0] == "-")) {
				return usageErr("the prompt and --output cannot both be read from standard input")
			}
			prompt, err := s.promptText(args, o.promptFile)
			if err != nil {
				return err
			}
			if o.schema, err = s.readSchema(o.output); err != nil {
				return err
			}
			return runHeadless(cmd.Context(), o, prompt, s)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.agent, "agent", "", "the agent to run (see `atelier agents`; default: the configured default, else demo)")
	f.StringVarP(&o.workspace, "workspace", "w", ".", "the workspace folder")
	f.StringVar(&o.title, "title", "", "the session's title (default: the prompt's first line)")
	f.StringVar(&o.promptFile, "prompt-file", "", "read the prompt from this file (- for standard input)")
	f.StringVar(&o.output, "output", "", "a JSON Schema file the answer must match: print the validated JSON on stdout (exit 5 when it does not match)")
	f.StringVar(&o.mode, "mode", "one-shot", "one-shot or continuous")
	f.StringVar(&o.exec, "exec", "", "where commands run: local or docker (default: the agent's execution)")
	f.StringVar(&o.image, "image", "", "the container image, with --exec docker (default: the agent's image)")
	f.StringVar(&o.access, "access", "read-write", "read-write or read-only")
	f.StringVar(&o.approve, "approve", "ask", "who answers approvals: ask, auto or deny")
	f.StringVar(&o.key, "key", "", "idempotency key: a repeated key returns the session it created instead of running again")
	f.BoolVar(&o.json, "json", false, "print one JSON object per event line (schema in docs/cli.md)")
	f.DurationVar(&o.timeout, "timeout", 0, "cancel the session after this long, e.g. 10m (0: no limit)")
	addIsolationFlags(cmd, o)
	registerEnumCompletions(cmd, map[string][]string{
		"mode": {"one-shot", "continuous"}, "exec": {"local", "docker"},
		"access": {"read-write", "read-only"}, "approve": approveModes,
	})
	return cmd
}

// approveModes are the values of --approve.
var approveModes = []string{"ask", "auto", "deny"}

func checkApprove(mode string) error {
	for _, m := range approveModes {
		if m == mode {
			return nil
		}
	}
	return usageErr("--approve must be ask, auto or deny, not %q", mode)
}

func (o *runOptions) validate() error {
	if err := checkApprove(o.approve); err != nil {
		return err
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
	if o.exec != "" && o.exec != "local" && o.exec != "docker" {
		return usageErr("--exec must be local or docker, not %q", o.exec)
	}
	if o.timeout < 0 {
		return usageErr("--timeout must not be negative")
	}
	if !core.ValidIsolation(o.isolation) {
		return usageErr("--isolation must be in-place, worktree or copy, not %q", o.isolation)
	}
	if o.instance != "" && o.isolation != "" && o.isolation != core.IsolationInPlace {
		return usageErr("--isolation %s makes a new instance; it cannot be given with --instance", o.isolation)
	}
	return nil
}

// addIsolationFlags adds --isolation, --instance and --yes to a command
// that creates a session.
func addIsolationFlags(cmd *cobra.Command, o *runOptions) {
	f := cmd.Flags()
	f.StringVar(&o.isolation, "isolation", "", "where the session works: in-place, worktree or copy (an instance of its own; default: the agent's isolation, else in-place)")
	f.StringVar(&o.instance, "instance", "", "work on the existing instance `ID` (see atelier instances list)")
	f.BoolVarP(&o.yes, "yes", "y", false, "make a copy larger than [instances] warn_size without asking")
	registerEnumCompletions(cmd, map[string][]string{"isolation": {core.IsolationInPlace, core.IsolationWorktree, core.IsolationCopy}})
}

// createFrom is createOptions with the agent's defaults read from cfg,
// and the configured default agent when none was named.
func (o *runOptions) createFrom(cfg *config.Config, prompt string) (core.CreateOptions, error) {
	if o.agent == "" {
		o.agent = cfg.DefaultAgent()
	}
	co, err := o.createOptions(func(name string) (string, string) {
		ag, _ := cfg.Agent(name)
		return string(ag.Execution), ag.Image
	}, prompt)
	if err == nil && co.Isolation == "" && co.Instance == "" {
		ag, _ := cfg.Agent(co.Agent)
		co.Isolation = ag.Isolation
	}
	return co, err
}

// createOptions turns the flags into the engine's, filling execution and
// image from the agent's configuration when the flags leave them out.
func (o *runOptions) createOptions(cfgAgent func(string) (string, string), prompt string) (core.CreateOptions, error) {
	exec, image := o.exec, o.image
	agExec, agImage := cfgAgent(o.agent)
	if exec == "" {
		exec = agExec
	}
	if exec == "" {
		exec = "local"
	}
	if image == "" && exec == "docker" {
		image = agImage
	}
	if exec == "docker" && image == "" {
		return core.CreateOptions{}, usageErr("--exec docker needs --image (or an image in the agent's configuration)")
	}
	if exec == "local" && image != "" {
		return core.CreateOptions{}, usageErr("--image needs --exec docker")
	}
	return core.CreateOptions{
		Agent: o.agent, Title: o.title, Instructions: prompt, Mode: sessions.Mode(o.mode),
		Access: sessions.Access(o.access), Execution: exec, Image: image, AutoStart: true, Key: o.key,
		OutputSchema: o.schema, Isolation: o.isolation, Instance: o.instance,
	}, nil
}

func runHeadless(ctx context.Context, o *runOptions, prompt string, s *streams) (err error) {
	if err := o.validate(); err != nil {
		return err
	}
	if strings.TrimSpace(prompt) == "" {
		return usageErr("the prompt is empty")
	}
	// The workspace's one engine runs the session: its host's, or this
	// process's for the run's life when no host could be started.
	c, stop, err := s.stayingHost(ctx, o.workspace)
	if err != nil {
		return err
	}
	defer func() { err = joinStop(err, stop()) }()
	return s.runOnHost(ctx, c, o, prompt)
}

// joinStop adds the failure to let a host go to a command's error: alone
// it is the news; beside another error it is said too.
func joinStop(err, stopErr error) error {
	if stopErr == nil {
		return err
	}
	if err == nil || errors.Is(err, errShown) {
		return stopErr
	}
	return errors.Join(err, stopErr)
}

// createKeyed runs create once per run key: with a key a run used before it
// returns the session that run created (replay true), and exists says
// whether that session is still there. The workspace's run-key record is
// locked from the lookup to the record, so runs with one key, in this
// process or another, through a host or not, create one session.
func createKeyed(workspace, key string, create func() (string, error), exists func(id string) error) (id string, replay bool, err error) {
	if key == "" {
		id, err := create()
		return id, false, err
	}
	keys, err := openRunKeys(workspace)
	if err != nil {
		return "", false, err
	}
	defer func() {
		if cerr := keys.close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("close run keys: %w", cerr))
		}
	}()
	prev, ok, err := keys.lookup(key)
	if err != nil {
		return "", false, err
	}
	if ok {
		if err := exists(prev); err != nil {
			return "", false, withCode(ExitFailed, fmt.Errorf("key %q created session %s, which no longer exists: use another key", key, prev))
		}
		return prev, true, nil
	}
	if id, err = create(); err != nil {
		return "", false, err
	}
	return id, false, keys.record(key, id)
}
