package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/terminal"
)

func newExecCmd(s *streams, ws *string) *cobra.Command {
	var key string
	var timeout time.Duration
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "exec SESSION -- COMMAND...",
		Short: "Run a command in a session's execution environment",
		Long: `Exec runs COMMAND in the session's execution environment (its container,
for a Docker session), with the workspace as the working directory, without
a model turn. It prints the command's stdout and stderr and exits with the
command's exit code. The result goes to the session's audit log, not its
conversation. When the workspace's engine host runs, the host runs it (in
the container the session's agent uses). Its output streams as it comes.

Several words after -- are the command's argv, run as they are, with no
shell in between: "exec ID -- sh -c 'echo one; echo two'" runs sh with the
two arguments -c and 'echo one; echo two'. A single word is a command line
for the shell (sh -c): "exec ID -- 'make test && ls'".

--timeout kills the command after that long; exec then exits 124, as
timeout(1) does. An interrupted command exits 3.

With --key, a key that completed before prints its recorded result and does
not run again; a key whose command may have run without a recorded result
(a crash in between) is refused: check, then clear it with
` + "`sessions keys SESSION --forget KEY`" + `.`,
		Example: `  atelier sessions exec 240601 -- go test ./...
  atelier sessions exec 240601 -- "go vet ./... && go test ./..."
  atelier sessions exec 240601 --key check-1 --timeout 5m -- make lint
  atelier sessions exec 240601 --json -- git status --short`,
		Args:              cobra.MinimumNArgs(2),
		ValidArgsFunction: completeSessions(s, ws),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			// One word runs through the shell ("make test && ls"); several run
			// as the argv they are, never joined and parsed again.
			command := core.ExecCommand{Key: key, Timeout: timeout}
			if len(args) == 2 {
				command.Shell = args[1]
			} else {
				command.Argv = args[1:]
			}
			if strings.TrimSpace(args[1]) == "" {
				return usageErr("the command is empty")
			}
			if timeout < 0 {
				return usageErr("--timeout must not be negative")
			}
			t, done, err := s.shortTarget(cmd.Context(), *ws, args[0])
			if err != nil {
				return err
			}
			defer done(&err)
			// Without --json the output goes to the terminal as the
			// command writes it, its colours and progress bars as they
			// are; with it, the result says it all.
			var out core.ExecOutput
			if !asJSON {
				out = func(st terminal.Stream, text string) {
					w := s.rawStdout()
					if st == terminal.Stderr {
						w = s.rawStderr()
					}
					fmt.Fprint(w, text)
				}
			}
			res, err := t.api.Exec(t.id, command, out)
			if err != nil {
				if ctx := cmd.Context(); ctx != nil && ctx.Err() != nil {
					return withCode(ExitCancelled, fmt.Errorf("the command was interrupted"))
				}
				return execErr(t.api.KeyResult, t.id, key, err)
			}
			if res.Replayed && out != nil {
				out(terminal.Stdout, res.Stdout)
				out(terminal.Stderr, res.Stderr)
			}
			if asJSON {
				if err := writeJSON(s, res); err != nil {
					return err
				}
			}
			if res.Replayed {
				fmt.Fprintf(s.err, "atelier: the recorded result of key %s; the command did not run again\n", key)
			}
			switch {
			case res.TimedOut:
				return withCode(ExitTimedOut, fmt.Errorf("the command timed out after %s and was killed", timeout))
			case res.Cancelled:
				return withCode(ExitCancelled, fmt.Errorf("the command was interrupted"))
			case res.ExitCode != 0:
				return withCode(res.ExitCode, errShown)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&key, "key", "", "idempotency key: a key that completed returns its recorded result")
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "kill the command after this long and exit 124 (0: no limit)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON (exit code, stdout, stderr, duration)")
	return cmd
}

// execErr gives an exec's error its exit code; a key whose command may
// have run without a recorded result says how to clear it.
func execErr(keyResult func(id, key string) (sessions.KeyRecord, bool, error), id, key string, err error) error {
	if key == "" {
		return sessionErr(err)
	}
	k, ok, kerr := keyResult(id, key)
	if kerr != nil || !ok || k.State != sessions.KeyUncertain {
		return sessionErr(err)
	}
	return withCode(ExitFailed, fmt.Errorf("%w: check what it did, then clear the key with `atelier sessions keys %s --forget %s`", err, id, key))
}
