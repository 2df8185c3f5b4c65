package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/atelier-studio/atelier/core"
)

func newActionsCmd(s *streams) *cobra.Command {
	var workspace string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "actions",
		Short: "List what waits on you: approvals, questions, waiting, parked and stuck sessions",
		Long: `Actions lists the workspace's Action required set, newest first: open
approvals and questions (answer them with ` + "`atelier sessions approve`" + `, deny or
answer), sessions WAITING for their next input, sessions parked on a timer
or an event (nudge them), and sessions the watchdog reports stuck.`,
		Example: `  atelier actions
  atelier actions --json | jq -r '.[] | select(.kind=="approval") | .interaction.id'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			items, err := s.actionItems(cmd.Context(), workspace)
			if err != nil {
				return err
			}
			if asJSON {
				if items == nil {
					items = []core.ActionItem{}
				}
				return writeJSON(s, items)
			}
			if len(items) == 0 {
				fmt.Fprintln(s.err, "nothing waits on you")
				return nil
			}
			tw := s.table()
			fmt.Fprintln(tw, "KIND\tSESSION\tTITLE\tWHAT\tHOW")
			for _, it := range items {
				what, how := actionText(it)
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", it.Kind, it.SessionID, oneLineOf(it.Title, 32), what, how)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVarP(&workspace, "workspace", "w", ".", "the workspace folder")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// actionText says what an action item is about and the command that
// answers it.
func actionText(it core.ActionItem) (what, how string) {
	switch it.Kind {
	case core.NeedsApproval:
		return oneLineOf(describeInteraction(*it.Interaction), 48),
			"atelier sessions approve|deny " + it.Interaction.ID
	case core.NeedsAnswer:
		return oneLineOf(describeInteraction(*it.Interaction), 48),
			"atelier sessions answer " + it.Interaction.ID + " TEXT"
	case core.NeedsInput:
		return "waiting: " + string(it.WaitReason), "atelier sessions send " + it.SessionID + " TEXT"
	case core.CanNudge:
		return describeInteraction(*it.Interaction), "atelier sessions nudge " + it.SessionID
	case core.IsStuck:
		what := "no progress"
		if it.Interaction != nil {
			what = oneLineOf(it.Interaction.Text+" "+it.Interaction.Reason, 48)
		}
		return what, "atelier sessions stop|cancel " + it.SessionID
	}
	return "", ""
}

// actionItems reads a workspace's Action required set; a workspace without
// a state folder has none (see stateless).
func (s *streams) actionItems(ctx context.Context, workspace string) (items []core.ActionItem, err error) {
	api, _, done, err := s.openRead(ctx, workspace)
	if err != nil || api == nil {
		return nil, err
	}
	defer done(&err)
	return api.Actions()
}
