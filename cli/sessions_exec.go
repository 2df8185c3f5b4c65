package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

func newExecCmd(s *streams, ws *string) *cobra.Command {
	var key string
	var timeout time.Duration
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "exec SESSION -- COMMAND...",
		Short: "Run a command in a session's execution environment",
		Long: `Exec runs COMMAND with the shell in the session's execution environment (its
container, for a Docker session), with the workspace as the working
directory, without a model turn. It prints the command's stdout and stderr
and exits with the command's exit code. The result goes to the session's
audit log, not its conversation.

With --key, a key that completed before prints its recorded result and does
not run again; a key whose command may have run without a recorded result
(a crash in between) is refused.`,
		Example: `  atelier sessions exec 240601 -- go test ./...
  atelier sessions exec 240601 --key check-1 --timeout 5m -- make lint
  atelier sessions exec 240601 --json -- git status --short`,
		Args:              cobra.MinimumNArgs(2),
		ValidArgsFunction: completeSessions(s, ws),
		RunE: func(cmd *cobra.Command, args []string) error {
			command := strings.Join(args[1:], " ")
			if strings.TrimSpace(command) == "" {
				return usageErr("the command is empty")
			}
			if timeout < 0 {
				return usageErr("--timeout must not be negative")
			}
			t, err := s.openTarget(*ws, args[0], true)
			if err != nil {
				return err
			}
			defer t.eng.Close()
			res, err := t.eng.Exec(cmd.Context(), t.id, command, key, timeout)
			if err != nil {
				return sessionErr(err)
			}
			if asJSON {
				if err := writeJSON(s, res); err != nil {
					return err
				}
			} else {
				fmt.Fprint(s.out, res.Stdout)
				fmt.Fprint(s.err, res.Stderr)
			}
			if res.Replayed {
				fmt.Fprintf(s.err, "atelier: the recorded result of key %s; the command did not run again\n", key)
			}
			switch {
			case res.TimedOut:
				return withCode(ExitFailed, fmt.Errorf("the command timed out after %s", timeout))
			case res.Cancelled:
				return withCode(ExitCancelled, fmt.Errorf("the command was interrupted"))
			case res.ExitCode != 0:
				return withCode(res.ExitCode, errShown)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&key, "key", "", "idempotency key: a key that completed returns its recorded result")
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "kill the command after this long (0: no limit)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON (exit code, stdout, stderr, duration)")
	return cmd
}
