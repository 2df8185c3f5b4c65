package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/sessions"
)

// answerTarget finds the open interaction an id or unique prefix names,
// across the workspace's sessions, through the workspace's host when one
// runs, else through a passive engine. The caller releases it: defer
// done(&err).
func (s *streams) answerTarget(ctx context.Context, workspace, prefix string) (*target, sessions.Interaction, func(*error), error) {
	api, eng, done, err := s.openShort(ctx, workspace)
	if err != nil {
		return nil, sessions.Interaction{}, nil, err
	}
	fail := func(err error) (*target, sessions.Interaction, func(*error), error) {
		done(&err)
		return nil, sessions.Interaction{}, nil, err
	}
	open, err := api.OpenInteractions()
	if err != nil {
		return fail(sessionErr(err))
	}
	var found []core.OpenInteraction
	for _, it := range open {
		if it.ID == prefix {
			found = []core.OpenInteraction{it}
			break
		}
		if strings.HasPrefix(it.ID, prefix) {
			found = append(found, it)
		}
	}
	switch len(found) {
	case 1:
		return &target{eng: eng, api: api, id: found[0].SessionID}, found[0].Interaction, done, nil
	case 0:
		return fail(usageErr("no open interaction %q (see `atelier actions`)", prefix))
	}
	return fail(usageErr("interaction %q is ambiguous: it matches %d open interactions", prefix, len(found)))
}

// answerCmd builds approve, deny and answer: each resolves one open
// interaction of the kind it expects.
func answerCmd(s *streams, ws *string, cmd *cobra.Command, want sessions.InteractionKind,
	answer func(it sessions.Interaction, args []string) (core.Answer, string, error)) *cobra.Command {
	cmd.ValidArgsFunction = completeInteractions(s, ws, want)
	cmd.RunE = func(c *cobra.Command, args []string) (err error) {
		t, it, done, err := s.answerTarget(c.Context(), *ws, args[0])
		if err != nil {
			return err
		}
		defer done(&err)
		if it.Kind != want {
			return usageErr("interaction %s is a %s, not a %s", it.ID, it.Kind, want)
		}
		a, verb, err := answer(it, args[1:])
		if err != nil {
			return err
		}
		a.By = "cli"
		if err := t.api.Answer(t.id, it.ID, a); err != nil {
			return sessionErr(err)
		}
		fmt.Fprintf(s.out, "%s %s of session %s: %s\n", verb, it.ID, t.id, describeInteraction(it))
		return nil
	}
	return cmd
}

func newApproveCmd(s *streams, ws *string) *cobra.Command {
	var forSession bool
	var prefix string
	cmd := &cobra.Command{
		Use:   "approve INTERACTION",
		Short: "Allow what an open approval asks, once or (--session) for the session",
		Long: `Approve allows the action an open approval asks for. With --session the same
action is allowed for the rest of the session: for a command (exec, Claude
Code's Bash, Codex's and ACP agents' commands) that command line only, or with
--prefix the commands starting with the words given (no shell operator may
follow them); for any other tool, the tool. ` + "`sessions grants revoke`" + `
withdraws a grant. Interaction ids are listed by ` + "`atelier actions`" + `; a
unique prefix will do.`,
		Example: `  atelier actions
  atelier sessions approve 2406011230
  atelier sessions approve 2406011230 --session
  atelier sessions approve 2406011230 --prefix "go test"`,
		Args: cobra.ExactArgs(1),
	}
	cmd.Flags().BoolVar(&forSession, "session", false, "allow the same action for the rest of the session")
	cmd.Flags().StringVar(&prefix, "prefix", "", "with a command: allow the commands starting with `WORDS` for the session (implies --session)")
	return answerCmd(s, ws, cmd, sessions.Approval, func(it sessions.Interaction, _ []string) (core.Answer, string, error) {
		if prefix != "" {
			if it.Command == "" {
				return core.Answer{}, "", usageErr("approval %s is of %s, not a command: --prefix needs a command", it.ID, it.Tool)
			}
			return core.Answer{Decision: sessions.AllowSession, Prefix: prefix}, fmt.Sprintf("allowed commands starting with %q for the session", prefix), nil
		}
		if forSession {
			return core.Answer{Decision: sessions.AllowSession}, "allowed for the session", nil
		}
		return core.Answer{Decision: sessions.AllowOnce}, "allowed", nil
	})
}

func newDenyCmd(s *streams, ws *string) *cobra.Command {
	var message string
	cmd := &cobra.Command{
		Use:   "deny INTERACTION",
		Short: "Deny what an open approval asks, with an optional message for the agent",
		Example: `  atelier sessions deny 2406011230
  atelier sessions deny 2406011230 --message "do not touch the CI files"`,
		Args: cobra.ExactArgs(1),
	}
	cmd.Flags().StringVarP(&message, "message", "m", "", "why, for the agent")
	return answerCmd(s, ws, cmd, sessions.Approval, func(it sessions.Interaction, _ []string) (core.Answer, string, error) {
		return core.Answer{Decision: sessions.Deny, Message: message}, "denied", nil
	})
}

func newAnswerCmd(s *streams, ws *string) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "answer INTERACTION [TEXT...]",
		Short: "Answer an open question (no text takes its default)",
		Long: `Answer replies to a question an agent asked. Words after the id are joined
into the answer; without any, the question's default answer is taken (an
error when it has none).`,
		Example: `  atelier sessions answer 2406011230 "use the goodbye greeting"
  atelier sessions answer 2406011230`,
		Args: cobra.MinimumNArgs(1),
	}
	return answerCmd(s, ws, cmd, sessions.Question, func(it sessions.Interaction, args []string) (core.Answer, string, error) {
		text := strings.Join(args, " ")
		if strings.TrimSpace(text) == "" {
			if it.Default == "" {
				return core.Answer{}, "", usageErr("question %s has no default answer: give one", it.ID)
			}
			text = it.Default
		}
		return core.Answer{Text: text}, "answered " + fmt.Sprintf("%q to", text), nil
	})
}
