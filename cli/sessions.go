package cli

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/atelier-studio/atelier/sessions"
)

// sessionRow is one session in `atelier sessions --json`.
type sessionRow struct {
	ID        string    `json:"id"`
	Title     string    `json:"title"`
	Agent     string    `json:"agent"`
	Status    string    `json:"status"`
	SubState  string    `json:"sub_state,omitempty"`
	Reason    string    `json:"reason,omitempty"`
	EndReason string    `json:"end_reason,omitempty"`
	Archived  bool      `json:"archived,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

func newSessionsCmd(s *streams) *cobra.Command {
	var workspace string
	var asJSON, all bool
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List the workspace's sessions",
		Example: `  atelier sessions
  atelier sessions --json --workspace ~/src/app`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, _, _, err := s.openEngine(workspace, true, false)
			if err != nil {
				return err
			}
			defer eng.Close()
			var rows []sessionRow
			for _, r := range eng.Sessions() {
				if r.Archived && !all {
					continue
				}
				rows = append(rows, sessionRow{ID: r.ID, Title: r.Title, Agent: r.Agent, Status: string(r.Status),
					SubState: string(r.SubState), Reason: string(r.WaitReason), EndReason: string(r.EndReason),
					Archived: r.Archived, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt})
			}
			if asJSON {
				enc := json.NewEncoder(s.out)
				enc.SetIndent("", "  ")
				if rows == nil {
					rows = []sessionRow{}
				}
				return enc.Encode(rows)
			}
			tw := tabwriter.NewWriter(s.out, 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tTITLE\tAGENT\tSTATUS\tUPDATED")
			for _, r := range rows {
				st := r.Status
				if why := r.Reason + r.EndReason; why != "" {
					st += " (" + why + ")"
				} else if r.SubState != "" && r.Status == string(sessions.Running) {
					st += " (" + r.SubState + ")"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, r.Title, r.Agent, st, r.UpdatedAt.Local().Format("2006-01-02 15:04"))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVarP(&workspace, "workspace", "w", ".", "the workspace folder")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&all, "all", false, "include archived sessions")
	return cmd
}
