package cli

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/atelier-studio/atelier/engine"
	"github.com/atelier-studio/atelier/sessions"
)

func newQueueCmd(s *streams, ws *string) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "queue SESSION",
		Short: "List a session's pending inputs; remove, move or edit one",
		Long: `Queue lists the prompts, steers and settings changes waiting for the
session's next boundary, in the order they apply (position 0 is next).`,
		Example: `  atelier sessions queue 240601
  atelier sessions queue remove 240601 2406011230
  atelier sessions queue move 240601 2406011230 0
  atelier sessions queue edit 240601 2406011230 "run the tests first"`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeSessions(s, ws),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			t, done, err := s.shortTarget(cmd.Context(), *ws, args[0])
			if err != nil {
				return err
			}
			defer done(&err)
			q, err := t.api.Queue(t.id)
			if err != nil {
				return sessionErr(err)
			}
			if asJSON {
				if q == nil {
					q = []sessions.Control{}
				}
				return writeJSON(s, q)
			}
			if len(q) == 0 {
				fmt.Fprintln(s.err, "the queue is empty")
				return nil
			}
			tw := s.table()
			fmt.Fprintln(tw, "POS\tID\tKIND\tTEXT")
			for i, c := range q {
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", i, c.ID, c.Kind, oneLineOf(c.Text, 60))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.AddCommand(&cobra.Command{
		Use:               "remove SESSION ITEM",
		Short:             "Take a pending input out of the queue",
		Example:           `  atelier sessions queue remove 240601 2406011230`,
		Args:              cobra.ExactArgs(2),
		ValidArgsFunction: completeSessions(s, ws),
		RunE: func(cmd *cobra.Command, args []string) error {
			return s.act(cmd.Context(), *ws, args[0], func(t *target) (string, error) {
				item, err := queuedItem(t, args[1])
				if err != nil {
					return "", err
				}
				if err := t.api.RemoveQueued(t.id, item); err != nil {
					return "", err
				}
				return "removed " + item + " from the queue of " + t.id, nil
			})
		},
	}, &cobra.Command{
		Use:               "move SESSION ITEM POS",
		Short:             "Move a pending input to another position (0 is next)",
		Example:           `  atelier sessions queue move 240601 2406011230 0`,
		Args:              cobra.ExactArgs(3),
		ValidArgsFunction: completeSessions(s, ws),
		RunE: func(cmd *cobra.Command, args []string) error {
			pos, err := strconv.Atoi(args[2])
			if err != nil || pos < 0 {
				return usageErr("position %q: give a whole number, 0 for next", args[2])
			}
			return s.act(cmd.Context(), *ws, args[0], func(t *target) (string, error) {
				item, err := queuedItem(t, args[1])
				if err != nil {
					return "", err
				}
				if err := t.api.MoveQueued(t.id, item, pos); err != nil {
					return "", err
				}
				return fmt.Sprintf("moved %s to position %d in the queue of %s", item, pos, t.id), nil
			})
		},
	}, newQueueEditCmd(s, ws))
	return cmd
}

func newQueueEditCmd(s *streams, ws *string) *cobra.Command {
	var file string
	cmd := &cobra.Command{
		Use:   "edit SESSION ITEM (TEXT... | - | --prompt-file FILE)",
		Short: "Replace the text of a pending prompt or steer, keeping its place",
		Long: `Edit replaces the text of a queued prompt or steer. The item keeps its id, its
place in the queue and its idempotency key (a retry of the original send is
still a repeat of it). An item a turn already took cannot be edited.`,
		Example: `  atelier sessions queue edit 240601 2406011230 "run the tests first"
  atelier sessions queue edit 240601 2406011230 - < prompt.md`,
		Args:              cobra.MinimumNArgs(2),
		ValidArgsFunction: completeSessions(s, ws),
		RunE: func(cmd *cobra.Command, args []string) error {
			text, err := s.promptText(args[2:], file)
			if err != nil {
				return err
			}
			if strings.TrimSpace(text) == "" {
				return usageErr("give the new text: as words, as - to read standard input, or with --prompt-file FILE")
			}
			return s.act(cmd.Context(), *ws, args[0], func(t *target) (string, error) {
				item, err := queuedItem(t, args[1])
				if err != nil {
					return "", err
				}
				if err := t.api.EditQueued(t.id, item, text); err != nil {
					return "", err
				}
				return "edited " + item + " in the queue of " + t.id, nil
			})
		},
	}
	cmd.Flags().StringVar(&file, "prompt-file", "", "read the new text from FILE (- for standard input)")
	return cmd
}

// queuedItem resolves a queued item's id or unique prefix.
func queuedItem(t *target, prefix string) (string, error) {
	q, err := t.api.Queue(t.id)
	if err != nil {
		return "", err
	}
	var found []string
	for _, c := range q {
		if c.ID == prefix {
			return c.ID, nil
		}
		if strings.HasPrefix(c.ID, prefix) {
			found = append(found, c.ID)
		}
	}
	switch len(found) {
	case 0:
		return "", usageErr("session %s has no queued item %q (see `atelier sessions queue %s`)", t.id, prefix, t.id)
	case 1:
		return found[0], nil
	}
	return "", usageErr("queued item %q is ambiguous: it matches %d items", prefix, len(found))
}

func newGrantsCmd(s *streams, ws *string) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "grants SESSION",
		Short: "List a session's \"allow for this session\" grants; revoke one",
		Long: `Grants lists what the operator allowed for the rest of a session, each with
its scope: a tool ("write_file"), one command line of a tool that runs
commands ("exec:go test ./...", "Bash:make"), or the commands starting with
some words ("Bash:go test:*"). Revoke one by its name and the next such call
asks again.`,
		Example: `  atelier sessions grants 240601
  atelier sessions grants revoke 240601 "exec:go test ./..."`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeSessions(s, ws),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			t, done, err := s.readTarget(cmd.Context(), *ws, args[0])
			if err != nil {
				return err
			}
			defer done(&err)
			g, err := t.api.Grants(t.id)
			if err != nil {
				return sessionErr(err)
			}
			sort.Strings(g)
			if asJSON {
				if g == nil {
					g = []string{}
				}
				return writeJSON(s, g)
			}
			if len(g) == 0 {
				fmt.Fprintln(s.err, "no grants")
			}
			for _, x := range g {
				fmt.Fprintf(s.out, "%s\t%s\n", x, engine.ParseGrant(x).Scope())
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.AddCommand(&cobra.Command{
		Use:               "revoke SESSION GRANT",
		Short:             "Withdraw a grant: the next such call asks again",
		Example:           `  atelier sessions grants revoke 240601 write_file`,
		Args:              cobra.ExactArgs(2),
		ValidArgsFunction: completeSessions(s, ws),
		RunE: func(cmd *cobra.Command, args []string) error {
			return s.act(cmd.Context(), *ws, args[0], func(t *target) (string, error) {
				if err := t.api.Revoke(t.id, args[1]); err != nil {
					if strings.Contains(err.Error(), "has no grant") {
						return "", withCode(ExitUsage, err)
					}
					return "", err
				}
				return "revoked " + args[1] + " of " + t.id, nil
			})
		},
	})
	return cmd
}
