package cli

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/sessions"
)

func newKeysCmd(s *streams, ws *string) *cobra.Command {
	var asJSON bool
	var forget string
	cmd := &cobra.Command{
		Use:   "keys SESSION",
		Short: "List a session's idempotency keys, or forget an uncertain one",
		Long: `Keys lists the idempotency keys a session was given (send --key, exec --key),
oldest first: the key, the item it made (a queue item id, or exec), its
state, the turn it started and, once done, its result.

  queued     the prompt waits in the session's queue
  started    its turn or command is running
  done       it finished: the same key again prints this result and runs
             nothing
  uncertain  it may have run, but its result was not recorded (the process
             running it stopped in between): the same key again is refused

--forget KEY clears an uncertain key once you have checked what its work did
(` + "`sessions show`, `sessions history`" + `): the key is then free for new work.
Keys in other states cannot be forgotten.`,
		Example: `  atelier sessions keys 240601
  atelier sessions keys 240601 --json
  atelier sessions keys 240601 --forget step-2`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeSessions(s, ws),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if forget != "" && asJSON {
				return usageErr("--json lists the keys; it does not go with --forget")
			}
			t, done, err := s.shortTarget(cmd.Context(), *ws, args[0])
			if err != nil {
				return err
			}
			defer done(&err)
			if forget != "" {
				return s.forgetKey(t, forget)
			}
			keys, err := t.api.Keys(t.id)
			if err != nil {
				return sessionErr(err)
			}
			if asJSON {
				rows := []KeyInfo{}
				for _, k := range keys {
					rows = append(rows, keyInfoOf(k))
				}
				return writeJSON(s, rows)
			}
			if len(keys) == 0 {
				fmt.Fprintf(s.err, "session %s has no idempotency keys (give one with `sessions send --key` or `sessions exec --key`)\n", t.id)
				return nil
			}
			tw := s.table()
			fmt.Fprintln(tw, "KEY\tOP\tSTATE\tTURN\tRESULT\tTIME")
			for _, k := range keys {
				turn := ""
				if k.Turn > 0 {
					turn = fmt.Sprint(k.Turn)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", k.Key, k.Op, k.State, turn, keySummary(k),
					k.Time.Local().Format("2006-01-02 15:04:05"))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the keys as JSON")
	cmd.Flags().StringVar(&forget, "forget", "", "clear this uncertain key, so it is free for new work")
	return cmd
}

// forgetKey clears an uncertain key. The state is checked here first so
// that asking to forget a key in another state is the caller's mistake
// (exit 2), as the engine refuses it.
func (s *streams) forgetKey(t *target, key string) error {
	k, ok, err := t.api.KeyResult(t.id, key)
	if err != nil {
		return sessionErr(err)
	}
	if !ok {
		return withCode(ExitUsage, fmt.Errorf("session %s has no key %q: %w (`atelier sessions keys %s` lists them)", t.id, key, core.ErrUnknownKey, t.id))
	}
	if k.State != sessions.KeyUncertain {
		return usageErr("key %s of session %s is %s: only an uncertain key can be forgotten", key, t.id, k.State)
	}
	if err := t.api.ForgetKey(t.id, key); err != nil {
		return sessionErr(err)
	}
	fmt.Fprintf(s.out, "forgot key %s of session %s: a send or exec with it runs again\n", key, t.id)
	return nil
}

// keySummary is a key's result in one short line: a prompt's outcome, the
// status its turn left and the start of its reply; an exec's exit.
func keySummary(k sessions.KeyRecord) string {
	if k.State != sessions.KeyDone || len(k.Result) == 0 {
		return ""
	}
	if k.Op == "exec" {
		var r core.ExecResult
		if err := json.Unmarshal(k.Result, &r); err != nil {
			return "unreadable result"
		}
		switch {
		case r.TimedOut:
			return "timed out"
		case r.Cancelled:
			return "interrupted"
		}
		return fmt.Sprintf("exit %d", r.ExitCode)
	}
	var r core.PromptResult
	if err := json.Unmarshal(k.Result, &r); err != nil {
		return "unreadable result"
	}
	parts := []string{}
	if r.Outcome != "" {
		parts = append(parts, r.Outcome)
	}
	parts = append(parts, statusText(sessions.Session{Status: r.Status, WaitReason: r.WaitReason, EndReason: r.EndReason}))
	out := strings.Join(parts, ", ")
	if text := strings.TrimSpace(r.Text); text != "" {
		out += ": " + oneLineOf(text, 40)
	} else if r.Error != "" {
		out += ": " + oneLineOf(r.Error, 40)
	}
	return out
}
