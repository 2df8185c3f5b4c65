package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/internal/termsafe"
)

// streams are the process's standard streams, passed explicitly so tests
// can run commands in-process. out and err are made safe for a terminal
// (termsafe) by execute: what a command prints there (an agent's text, file
// names, titles, errors) cannot act on the operator's terminal. rawOut and
// rawErr are the streams as they were, for output that is the operator's
// own (a `sessions exec` command's) or data meant for a file (a diff into
// a pipe).
type streams struct {
	in             io.Reader
	out, err       io.Writer
	rawOut, rawErr io.Writer
	env            env
	// demo, when set (tests), replaces the demo agent's pacing.
	demo *harness.Demo
	// client labels the controls this process sends (core.Options.Client):
	// "cli" unless the studio opened the engine.
	client string
	// hostBinary is the atelier binary a command starts a detached host
	// with when the workspace has none (Main: this process's own). Empty
	// (commands run in-process by tests) opens an engine in the process
	// instead, as before hosts existed.
	hostBinary string
	// engine is --engine: the URL of the engine every command drives
	// instead of the workspace's own (engineURL); remoteErr is why it did
	// not answer, for the command that would otherwise open the store.
	engineFlag string
	remoteErr  error
}

// selfBinary finds the atelier binary this process runs, which starts
// detached hosts. The package's tests replace it: a test binary started as
// `serve` would run the tests again, and their hosts in turn.
var selfBinary = os.Executable

// Main runs the command line with args and returns the exit code.
func Main(args []string, in io.Reader, out, errw io.Writer) int {
	self, err := selfBinary()
	if err != nil {
		self = "" // commands then open an engine of their own
	}
	return execute(&streams{in: in, out: out, err: errw, env: env{getenv: os.Getenv}, hostBinary: self}, args)
}

// execute runs the command line on explicit streams (Main, and tests that
// set the streams' hooks).
func execute(s *streams, args []string) int {
	if s.rawOut == nil {
		s.rawOut, s.rawErr = s.out, s.err
		s.out, s.err = termsafe.NewWriter(s.out), termsafe.NewWriter(s.err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newRoot(s)
	refused := refuseUnknownHelp(root)
	root.SetArgs(args)
	root.SetIn(s.in)
	root.SetOut(s.out)
	root.SetErr(s.err)
	err := root.ExecuteContext(ctx)
	if err == nil {
		err = refused()
	}
	var coded *exitError
	if err != nil && !errors.As(err, &coded) && isUsage(err) {
		err = withCode(ExitUsage, err)
	}
	if err != nil && !errors.Is(err, errShown) {
		fmt.Fprintln(s.err, "atelier:", err)
	}
	return ExitCode(err)
}

// errShown marks an error whose message the command already printed.
var errShown = errors.New("")

// isUsage tells cobra's own argument and flag errors, which carry no kind.
// It is asked only of errors without an exit code of their own: a command's
// error that happens to quote such words (a log tail) keeps its code.
func isUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag",
		"flag needs an argument", "invalid argument", "accepts ", "requires "} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

func newRoot(s *streams) *cobra.Command {
	var inProcess bool
	root := &cobra.Command{
		Use:   "atelier [DIR]",
		Short: "A terminal studio for running and steering AI coding agents",
		Long: `Atelier runs AI coding-agent sessions on a workspace and lets you steer them
while they work: watch their turns stream, approve or deny what they want to
do, answer their questions, pause, resume, stop, cancel or steer them, and
browse, edit and run things in the same workspace.

Without a subcommand it opens the studio on DIR (default: the current
directory). The studio attaches to the workspace's engine host, starting a
detached one (` + "`atelier serve`" + `) when none runs, so its sessions run on
after the studio closes; reopening it reattaches. --in-process hosts the
engine in the studio instead, for its life only: quitting while sessions run
asks whether to hand them to a detached host, pause them or cancel them.
With --engine URL (or ` + "`atelier attach URL`" + `) it opens the studio on the
engine another machine serves instead.`,
		Example: `  atelier                 # open the studio on the current directory
  atelier ~/src/project   # open the studio on another workspace
  atelier --in-process    # host the engine in the studio, for its life only
  atelier --engine https://build-box:7777   # the studio on another machine's engine
  atelier run --agent demo "tidy the README"`,
		Args:          cobra.MaximumNArgs(1),
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				if s.engineURL() != "" {
					return usageErr("DIR names a workspace on this machine: with --engine %s the workspace is that engine's", s.engineURL())
				}
				dir = args[0]
			}
			return runStudio(cmd.Context(), dir, inProcess, s)
		},
	}
	root.PersistentFlags().StringVar(&s.engineFlag, "engine", "", "drive the engine at `URL` (atelier serve --listen, on another machine) instead of the workspace's own; ATELIER_ENGINE sets it too")
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		if s.engineFlag != "" && localOnly(cmd) {
			return usageErr("%s works on this machine's workspace: --engine does not apply to it", cmd.CommandPath())
		}
		return nil
	}
	root.Flags().BoolVar(&inProcess, "in-process", false, "host the workspace's engine in the studio, for its life only, instead of attaching to a host")
	root.SetHelpCommand(newHelpCmd(root))
	root.AddCommand(newRunCmd(s), newSessionsCmd(s), newActionsCmd(s), newAgentsCmd(s), newConfigCmd(s), newTrustCmd(s), newServeCmd(s), newAttachCmd(s), newMCPCmd(s), newEventsCmd(s), newWorkflowCmd(s), newInstancesCmd(s), withExample(newVersionCmd(s), "  atelier version"), newCompletionCmd(s))
	return root
}

// withExample gives a command an example when it has none, so every
// command's --help shows one.
func withExample(cmd *cobra.Command, example string) *cobra.Command {
	if cmd.Example == "" {
		cmd.Example = example
	}
	return cmd
}

// localOnly reports whether a command acts on this machine only (hosting,
// trust, configuration, agents, completion, version), so that --engine
// cannot silently mean nothing to it.
func localOnly(cmd *cobra.Command) bool {
	for c := cmd; c != nil && c.HasParent(); c = c.Parent() {
		if !c.Parent().HasParent() {
			switch c.Name() {
			case "serve", "trust", "config", "agents", "completion", "version":
				return true
			}
		}
	}
	return false
}
