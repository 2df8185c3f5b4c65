package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/sessions/history"
)

// openHistory opens a workspace's history (a short command's engine keeps
// none) and its session store, for resolving session ids.
func (s *streams) openHistory(workspace string) (*history.History, *sessions.Store, error) {
	if s.engineURL() != "" {
		return nil, nil, s.notRemote() // another machine's history: not through its API yet
	}
	ws, err := workspaceDir(workspace)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := s.loadConfig(ws, s.err)
	if err != nil {
		return nil, nil, err
	}
	store, err := sessions.Open(ws)
	if err != nil {
		return nil, nil, err
	}
	h, err := history.Open(ws, historyOptions(cfg))
	if err != nil {
		return nil, nil, fmt.Errorf("the workspace history is unavailable: %w", err)
	}
	return h, store, nil
}

func historyOptions(cfg *config.Config) history.Options {
	return history.Options{MaxFileSize: cfg.History.MaxFileSize, ExtraSecretPatterns: cfg.History.SecretPatterns}
}

// historyErr gives history errors their exit code: a bad commit, path or
// turn is the caller's mistake.
func historyErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, history.ErrBadCommit), errors.Is(err, history.ErrBadPath), errors.Is(err, history.ErrBadInput),
		errors.Is(err, history.ErrNotFound), errors.Is(err, history.ErrNothingToRestore), errors.Is(err, history.ErrEmpty):
		return withCode(ExitUsage, err)
	}
	return err
}

// commitRow is one commit in `sessions history --json`.
type commitRow struct {
	Hash         string               `json:"hash"`
	Parent       string               `json:"parent,omitempty"`
	Kind         history.Kind         `json:"kind"`
	SessionID    string               `json:"session_id,omitempty"`
	Turn         int                  `json:"turn,omitempty"`
	Summary      string               `json:"summary"`
	Time         string               `json:"time"`
	RestoredFrom string               `json:"restored_from,omitempty"`
	Skipped      []string             `json:"skipped,omitempty"`
	Files        []history.FileChange `json:"files,omitempty"`
}

func newHistoryCmd(s *streams, ws *string) *cobra.Command {
	var asJSON, files bool
	cmd := &cobra.Command{
		Use:   "history [SESSION]",
		Short: "List the workspace history's commits: one per turn, plus restores",
		Long: `History lists the commits of the workspace history, newest first: one commit
per agent turn, snapshots of edits made outside any turn, and restores. Given
SESSION, only that session's commits. --files adds the files each changed.`,
		Example: `  atelier sessions history
  atelier sessions history 240601 --files
  atelier sessions history --json | jq -r '.[] | select(.kind=="turn") | .hash'`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: completeSessions(s, ws),
		RunE: func(cmd *cobra.Command, args []string) error {
			h, store, err := s.openHistory(*ws)
			if err != nil {
				return err
			}
			filter := ""
			if len(args) == 1 {
				if filter, err = store.Resolve(args[0]); err != nil {
					return sessionErr(err)
				}
			}
			ctx := cmd.Context()
			log, err := h.Log(ctx, filter)
			if err != nil {
				return historyErr(err)
			}
			rows := []commitRow{}
			for _, c := range log {
				r := commitRow{Hash: c.Hash, Parent: c.Parent, Kind: c.Kind, SessionID: c.SessionID, Turn: c.Turn,
					Summary: c.Summary, Time: c.Time.UTC().Format("2006-01-02T15:04:05Z"), RestoredFrom: c.RestoredFrom}
				for _, sk := range c.Skipped {
					r.Skipped = append(r.Skipped, sk.Path)
				}
				if files {
					if r.Files, err = h.Changes(ctx, c.Hash); err != nil {
						return historyErr(err)
					}
				}
				rows = append(rows, r)
			}
			if asJSON {
				return writeJSON(s, rows)
			}
			tw := s.table()
			fmt.Fprintln(tw, "COMMIT\tWHEN\tWHAT\tSUMMARY")
			for i, r := range rows {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", short(r.Hash), log[i].Time.Local().Format("2006-01-02 15:04"), commitWhat(log[i]), r.Summary)
				for _, f := range r.Files {
					fmt.Fprintf(tw, "\t\t  %s\t%s\n", f.Status, changeText(f))
				}
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&files, "files", false, "list the files each commit changed")
	return cmd
}

// commitWhat names what made a commit: a session's turn, a restore, or a
// snapshot.
func commitWhat(c history.Commit) string {
	switch c.Kind {
	case history.KindTurn:
		return fmt.Sprintf("%s turn %d", c.SessionID, c.Turn)
	case history.KindRestore:
		if c.SessionID != "" {
			return "restore by " + c.SessionID
		}
		return "restore"
	}
	return string(c.Kind)
}

func changeText(f history.FileChange) string {
	p := f.Path
	if f.OldPath != "" {
		p = f.OldPath + " → " + f.Path
	}
	if f.Binary {
		return p + " (binary)"
	}
	return fmt.Sprintf("%s +%d -%d", p, f.Additions, f.Deletions)
}

// turnCommit finds the commit named by args: one commit hash (or prefix),
// or SESSION TURN.
func turnCommit(ctx context.Context, h *history.History, store *sessions.Store, args []string) (history.Commit, error) {
	if len(args) == 1 {
		c, err := h.Show(ctx, args[0])
		return c, historyErr(err)
	}
	id, err := store.Resolve(args[0])
	if err != nil {
		return history.Commit{}, sessionErr(err)
	}
	turn, err := strconv.Atoi(args[1])
	if err != nil || turn < 1 {
		return history.Commit{}, usageErr("turn %q: give a turn number (1, 2, ...)", args[1])
	}
	log, err := h.Log(ctx, id)
	if err != nil {
		return history.Commit{}, historyErr(err)
	}
	for _, c := range log {
		if c.Kind == history.KindTurn && c.Turn == turn {
			return c, nil
		}
	}
	return history.Commit{}, usageErr("session %s has no commit for turn %d (see `atelier sessions history %s`)", id, turn, id)
}

func newDiffCmd(s *streams, ws *string) *cobra.Command {
	var stat bool
	cmd := &cobra.Command{
		Use:   "diff (COMMIT | SESSION TURN) [-- PATH...]",
		Short: "Show what one turn changed in the workspace, as a unified diff",
		Example: `  atelier sessions diff 240601 3
  atelier sessions diff 9f2c41d07a1b
  atelier sessions diff 240601 3 --stat
  atelier sessions diff 240601 3 -- main.go`,
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: completeSessions(s, ws),
		RunE: func(cmd *cobra.Command, args []string) error {
			args, paths := splitDash(cmd, args)
			if len(args) < 1 || len(args) > 2 {
				return usageErr("diff takes COMMIT, or SESSION TURN")
			}
			h, store, err := s.openHistory(*ws)
			if err != nil {
				return err
			}
			c, err := turnCommit(cmd.Context(), h, store, args)
			if err != nil {
				return err
			}
			if stat {
				ch, err := h.Changes(cmd.Context(), c.Hash)
				if err != nil {
					return historyErr(err)
				}
				for _, f := range ch {
					fmt.Fprintf(s.out, "%-8s %s\n", f.Status, changeText(f))
				}
				return nil
			}
			d, err := h.Diff(cmd.Context(), c.Hash, paths...)
			if err != nil {
				return historyErr(err)
			}
			fmt.Fprint(s.dataOut(), d)
			return nil
		},
	}
	cmd.Flags().BoolVar(&stat, "stat", false, "list the changed files with line counts instead of the diff")
	return cmd
}

// splitDash separates the arguments before "--" from the paths after it.
func splitDash(cmd *cobra.Command, args []string) ([]string, []string) {
	if n := cmd.ArgsLenAtDash(); n >= 0 {
		return args[:n], args[n:]
	}
	return args, nil
}

func newRestoreCmd(s *streams, ws *string) *cobra.Command {
	var yes bool
	var files []string
	cmd := &cobra.Command{
		Use:   "restore (COMMIT | SESSION TURN) [--files PATH,...] [--yes]",
		Short: "Put workspace files back as they were after one turn (preview, then --yes)",
		Long: `Restore puts the workspace's files (or only --files) back to their state
after the given turn. It always prints what it would change first, with the
files someone changed since (you, or another session); it changes nothing
without --yes. Applied, it is a new commit in the history, so a restore can
itself be undone, and edits not yet recorded are saved in a snapshot first.
Session logs are never restored; nor are files the history does not record
(ignored, secret or oversized files).`,
		Example: `  atelier sessions restore 240601 2
  atelier sessions restore 240601 2 --files main.go,go.mod --yes
  atelier sessions restore 9f2c41d07a1b --yes`,
		Args:              cobra.RangeArgs(1, 2),
		ValidArgsFunction: completeSessions(s, ws),
		RunE: func(cmd *cobra.Command, args []string) error {
			h, store, err := s.openHistory(*ws)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			c, err := turnCommit(ctx, h, store, args)
			if err != nil {
				return err
			}
			p, err := h.PreviewRestore(ctx, c.Hash, files)
			if err != nil {
				return historyErr(err)
			}
			printPreview(s, p)
			if !yes {
				fmt.Fprintln(s.err, "nothing changed: add --yes to restore")
				return nil
			}
			done, err := h.Restore(ctx, c.Hash, files, history.RestoreOptions{})
			if err != nil {
				return historyErr(err)
			}
			fmt.Fprintf(s.out, "restored: commit %s (%s); undo it with `atelier sessions restore %s --yes`\n",
				short(done.Hash), done.Summary, short(done.Parent))
			return nil
		},
	}
	cmd.Flags().StringSliceVar(&files, "files", nil, "restore only these files or folders (comma-separated or repeated)")
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "apply the restore (without it, only the preview)")
	return cmd
}

func printPreview(s *streams, p history.RestorePreview) {
	fmt.Fprintf(s.out, "restore to %s (%s: %s)\n", short(p.Target.Hash), commitWhat(p.Target), p.Target.Summary)
	if len(p.Files) == 0 {
		fmt.Fprintln(s.out, "  nothing to change")
	}
	for _, f := range p.Files {
		var notes []string
		if f.UserChanged {
			notes = append(notes, "changed since outside any turn")
		}
		if len(f.ChangedBy) > 0 {
			notes = append(notes, "changed since by "+strings.Join(f.ChangedBy, ", "))
		}
		if f.Blocked != "" {
			notes = append(notes, "left alone: "+f.Blocked)
		}
		line := fmt.Sprintf("  %-6s %s", f.Action, f.Path)
		if len(notes) > 0 {
			line += "  (" + strings.Join(notes, "; ") + ")"
		}
		fmt.Fprintln(s.out, line)
	}
}

func newBlameCmd(s *streams, ws *string) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "blame FILE",
		Short: "Say which session and turn last changed a file",
		Example: `  atelier sessions blame main.go
  atelier sessions blame --json docs/guide.md`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			h, _, err := s.openHistory(*ws)
			if err != nil {
				return err
			}
			c, err := h.Blame(cmd.Context(), args[0])
			if err != nil {
				return historyErr(err)
			}
			if asJSON {
				return writeJSON(s, commitRow{Hash: c.Hash, Parent: c.Parent, Kind: c.Kind, SessionID: c.SessionID,
					Turn: c.Turn, Summary: c.Summary, Time: c.Time.UTC().Format("2006-01-02T15:04:05Z"), RestoredFrom: c.RestoredFrom})
			}
			fmt.Fprintf(s.out, "%s: %s, commit %s, %s: %s\n", args[0], commitWhat(c), short(c.Hash),
				c.Time.Local().Format("2006-01-02 15:04"), c.Summary)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// short abbreviates a commit hash for people.
func short(hash string) string {
	if len(hash) > 12 {
		return hash[:12]
	}
	return hash
}
