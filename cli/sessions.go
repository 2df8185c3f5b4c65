package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/atelier-studio/atelier/engine"
	"github.com/atelier-studio/atelier/sessions"
)

// sessionRow is one session in `atelier sessions --json`: its task is
// the preview lists carry (engine.TaskPreview), TaskTruncated set when it
// was cut; `sessions show` has the whole task.
type sessionRow struct {
	ID            string    `json:"id"`
	Title         string    `json:"title"`
	Task          string    `json:"task"`
	TaskTruncated bool      `json:"task_truncated,omitempty"`
	Agent         string    `json:"agent"`
	Mode          string    `json:"mode"`
	Status        string    `json:"status"`
	SubState      string    `json:"sub_state,omitempty"`
	Reason        string    `json:"reason,omitempty"`
	EndReason     string    `json:"end_reason,omitempty"`
	Archived      bool      `json:"archived,omitempty"`
	Turns         int       `json:"turns"`
	CreatedAt     time.Time `json:"created_at"`
	UpdatedAt     time.Time `json:"updated_at"`
}

func rowOf(r sessions.Session) sessionRow {
	task, cut := engine.TaskPreview(r.Instructions)
	return sessionRow{ID: r.ID, Title: r.Title, Task: task, TaskTruncated: cut, Agent: r.Agent, Mode: string(r.Mode), Status: string(r.Status),
		SubState: string(r.SubState), Reason: string(r.WaitReason), EndReason: string(r.EndReason),
		Archived: r.Archived, Turns: r.Turns, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

// statusText is a session's status as the lists show it: the status with
// its reason, or a RUNNING session's sub-state.
func statusText(r sessions.Session) string {
	if r.Unreadable {
		return "unreadable (see `sessions show`)"
	}
	st := string(r.Status)
	if why := string(r.WaitReason) + string(r.EndReason); why != "" {
		st += " (" + why + ")"
	} else if r.SubState != "" && r.Status == sessions.Running {
		st += " (" + string(r.SubState) + ")"
	}
	return st
}

func newSessionsCmd(s *streams) *cobra.Command {
	var workspace string
	var asJSON, all, archived bool
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List the workspace's sessions, or act on one of them",
		Long: `Without a subcommand, sessions lists the workspace's sessions (archived ones
only with --all, or only them with --archived). The subcommands act on one
session, named by its id or a unique prefix of it.

They go through the workspace's engine host, the one process that runs its
sessions (started in the background when none runs), so a control applies at
once whoever opened the session. Start, resume, send and create given --wait
stay with the session to its next stop, with the exit codes of ` + "`atelier run`" + `.`,
		Example: `  atelier sessions
  atelier sessions --all --json --workspace ~/src/app
  atelier sessions show 2406
  atelier sessions pause 240601
  atelier sessions send 240601 --wait "now add a test"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			recs, err := s.listSessions(cmd.Context(), workspace, all || archived)
			if err != nil {
				return err
			}
			if archived {
				recs = onlyArchived(recs)
			}
			if asJSON {
				rows := []sessionRow{}
				for _, r := range recs {
					rows = append(rows, rowOf(r))
				}
				return writeJSON(s, rows)
			}
			if len(recs) == 0 {
				if archived {
					fmt.Fprintln(s.err, "no archived sessions")
					return nil
				}
				fmt.Fprintln(s.err, "no sessions yet: start one with `atelier run` or `atelier sessions create`")
				return nil
			}
			tw := s.table()
			fmt.Fprintln(tw, "ID\tTITLE\tAGENT\tSTATUS\tUPDATED")
			for _, r := range recs {
				title := r.Title
				if r.Archived {
					title += " [archived]"
				}
				updated := r.UpdatedAt.Local().Format("2006-01-02 15:04")
				if r.Unreadable {
					updated = "-"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, title, r.Agent, statusText(r), updated)
			}
			return tw.Flush()
		},
	}
	cmd.PersistentFlags().StringVarP(&workspace, "workspace", "w", ".", "the workspace folder")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&all, "all", false, "include archived sessions")
	cmd.Flags().BoolVar(&archived, "archived", false, "list only archived sessions")
	ws := &workspace
	cmd.AddCommand(
		newCreateCmd(s, ws), newStartCmd(s, ws), newShowCmd(s, ws), newSendCmd(s, ws),
		newPauseCmd(s, ws), newResumeCmd(s, ws), newStopCmd(s, ws), newCancelCmd(s, ws),
		newCloseCmd(s, ws), newNudgeCmd(s, ws), newForkCmd(s, ws), newCompactCmd(s, ws), newClearCmd(s, ws), newContextCmd(s, ws),
		newArchiveCmd(s, ws, true), newArchiveCmd(s, ws, false), newDeleteCmd(s, ws),
		newQueueCmd(s, ws), newSetCmd(s, ws), newGrantsCmd(s, ws),
		newApproveCmd(s, ws), newDenyCmd(s, ws), newAnswerCmd(s, ws), newExecCmd(s, ws),
		newKeysCmd(s, ws), newHistoryCmd(s, ws), newDiffCmd(s, ws), newRestoreCmd(s, ws), newBlameCmd(s, ws),
	)
	return cmd
}

// onlyArchived keeps the archived sessions of recs.
func onlyArchived(recs []sessions.Session) []sessions.Session {
	var out []sessions.Session
	for _, r := range recs {
		if r.Archived {
			out = append(out, r)
		}
	}
	return out
}

// listSessions reads a workspace's sessions (archived ones only with all).
// A workspace without a state folder has none: listing creates nothing, so
// it works on a workspace this user cannot write.
func (s *streams) listSessions(ctx context.Context, workspace string, all bool) (recs []sessions.Session, err error) {
	api, _, done, err := s.openRead(ctx, workspace)
	if err != nil || api == nil {
		return nil, err
	}
	defer done(&err)
	return api.Sessions(all)
}

// stateless reports whether a workspace has no state folder yet, so
// nothing to list; its configuration is still read and checked (and its
// notices printed), as opening the engine would.
func (s *streams) stateless(workspace string) (bool, error) {
	ws, err := workspaceDir(workspace)
	if err != nil {
		return false, err
	}
	if _, err := os.Lstat(filepath.Join(ws, sessions.StateDir)); !errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if _, err := s.loadConfig(ws, s.err); err != nil {
		return false, err
	}
	return true, nil
}

// writeJSON prints v as indented JSON.
func writeJSON(s *streams, v any) error {
	enc := json.NewEncoder(s.jsonOut())
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
