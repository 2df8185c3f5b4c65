package cli

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"
)

func newEventsCmd(s *streams) *cobra.Command {
	var workspace string
	cmd := &cobra.Command{
		Use:   "events",
		Short: "Fire named events that parked sessions wait for",
		Long: `An agent's wait tool can park its session until a named event fires (a
deploy finished, a review came back). ` + "`events fire`" + ` fires one on the workspace's
engine: every session parked on it wakes, and its wait returns the data, and
the workspace's triggers that listen for it (on_event) start their sessions.`,
		Example: `  atelier events fire deploy-done --data '{"version": 7}'`,
		Args:    cobra.NoArgs,
	}
	cmd.PersistentFlags().StringVarP(&workspace, "workspace", "w", ".", "the workspace folder")
	var data string
	fire := &cobra.Command{
		Use:   "fire NAME",
		Short: "Fire a named event: the sessions parked on it wake, with the data",
		Long: `Fire wakes every session of the workspace parked on the named event (the
wait tool's event), giving its wait the data (any JSON) as its result, and
prints how many it woke. It goes through the workspace's engine host, started
in the background when none runs, so sessions parked while no studio was open
wake too. The triggers with on_event = "NAME" fire once for it, each creating
and starting a session whose prompt can use the data ({{ .event.data.KEY }});
.state/triggers.jsonl records each firing.`,
		Example: `  atelier events fire deploy-done
  atelier events fire review --data '{"approved": true, "by": "ana"}'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			var raw json.RawMessage
			if data != "" {
				if !json.Valid([]byte(data)) {
					return usageErr("--data must be JSON (a string is written \"in quotes\")")
				}
				raw = json.RawMessage(data)
			}
			c, stop, err := s.stayingHost(cmd.Context(), workspace)
			if err != nil {
				return err
			}
			defer func() { err = joinStop(err, stop()) }()
			n, err := c.Signal(cmd.Context(), args[0], raw)
			if err != nil {
				return sessionErr(remoteErr(err))
			}
			fmt.Fprintf(s.out, "%s fired: woke %d parked session(s)\n", args[0], n)
			return nil
		},
	}
	fire.Flags().StringVar(&data, "data", "", "JSON the woken waits return to their agents")
	cmd.AddCommand(fire)
	return cmd
}
