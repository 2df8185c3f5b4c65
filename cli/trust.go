package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/internal/termsafe"
	"github.com/atelier-studio/atelier/internal/textdiff"
)

func newTrustCmd(s *streams) *cobra.Command {
	var workspace string
	var distrust, yes, state bool
	cmd := &cobra.Command{
		Use:   "trust",
		Short: "Review and trust (or, with --distrust, stop trusting) the workspace's .atelier.toml and .atelier/",
		Long: `A workspace's .atelier.toml can be written by the agents themselves, so
Atelier obeys it only once you trust it. The same trust covers every file
under .atelier/ (its workflows, .atelier/workflows/NAME.toml): they are
shown after the file, each under a header line naming it, and a change to
any of them needs your trust again. Trust shows the file first, with
its SHA-256: the whole file, or, when you trusted an earlier version, what
changed since. Control characters in it are shown as escapes (\x1b), never
sent to the terminal. It then asks on the terminal; with no terminal it
trusts only given --yes (read what it printed first).

Trust is kept in your own configuration folder with the file's SHA-256 and
content: any change to the file makes it untrusted again, and Atelier says
so. If the file changes between the review and the answer, nothing is
trusted.

With --state, it reviews the workspace's .state/ instead, when your Atelier
did not make it (it came with a clone or an archive): such a state opens
read-only and nothing in it runs. Trust lists its sessions and the tool
calls a resumed turn would run, and adopts it once you say so. Even then,
those calls ask before they run again.`,
		Example: `  atelier trust
  atelier trust --yes --workspace ~/src/app
  atelier trust --distrust --workspace ~/src/app
  atelier trust --state --workspace ~/src/cloned`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ws, err := workspaceDir(workspace)
			if err != nil {
				return err
			}
			if state {
				return s.trustState(ws, yes)
			}
			store, err := s.loadOptions(ws).TrustStore()
			if err != nil {
				return err
			}
			if distrust {
				if err := store.Distrust(ws); err != nil {
					return err
				}
				fmt.Fprintln(s.out, "distrusted", config.WorkspaceFileName, "of", ws)
				return nil
			}
			return s.trust(store, ws, yes)
		},
	}
	cmd.Flags().StringVarP(&workspace, "workspace", "w", ".", "the workspace folder")
	cmd.Flags().BoolVar(&distrust, "distrust", false, "stop trusting the file")
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "trust the file as shown without asking (needed without a terminal)")
	cmd.Flags().BoolVar(&state, "state", false, "review and adopt a .state/ your Atelier did not make (a cloned or unpacked one)")
	return cmd
}

// trust shows the workspace's file and trusts what was shown, once the
// operator says so (or gave --yes).
func (s *streams) trust(store *config.TrustStore, ws string, yes bool) error {
	rev, err := store.Review(ws)
	if errors.Is(err, config.ErrNoWorkspaceFile) {
		return usageErr("%s has no %s and no %s/: nothing to trust", ws, config.WorkspaceFileName, config.WorkspaceDirName)
	}
	if err != nil {
		return err
	}
	if rev.State == config.TrustTrusted {
		fmt.Fprintf(s.out, "%s is already trusted as it is (sha256 %s)\n", rev.File, rev.Digest)
		return nil
	}
	showReview(s, rev)
	if !yes {
		ok, asked := s.confirm(fmt.Sprintf("Trust %s as shown above? Its agents, commands and policies will be obeyed. [y/N] ", rev.File))
		switch {
		case !asked:
			return usageErr("no terminal to ask on: read the file above, then trust it with `atelier trust --yes`")
		case !ok:
			return withCode(ExitFailed, fmt.Errorf("%s not trusted", rev.File))
		}
	}
	err = store.TrustDigest(ws, rev.Digest)
	if errors.Is(err, config.ErrDigestMismatch) {
		return withCode(ExitFailed, fmt.Errorf("%s changed while it was shown; nothing was trusted: run `atelier trust` again", rev.File))
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(s.out, "trusted %s (sha256 %s)\n", rev.File, rev.Digest)
	return nil
}

// showReview prints what the operator is asked to trust: the file whole,
// or its changes since the version trusted before, with its digest.
// Control characters show as escapes, so nothing in the file can hide a
// line or act on the terminal.
func showReview(s *streams, rev config.Review) {
	now := termsafe.Visible(string(rev.Content))
	switch {
	case rev.Previous != nil:
		fmt.Fprintf(s.out, "%s changed since you trusted it (%s); what changed:\n", rev.File, rev.TrustedAt.Local().Format("2006-01-02 15:04"))
		before := termsafe.Visible(string(rev.Previous))
		fmt.Fprint(s.out, textdiff.Unified("trusted", "now", fileLines(before), fileLines(now), 3))
	case rev.State == config.TrustChanged:
		fmt.Fprintf(s.out, "%s changed since you trusted it (%s; that version was not kept); all of it:\n", rev.File, rev.TrustedAt.Local().Format("2006-01-02 15:04"))
		printNumbered(s, now)
	default:
		fmt.Fprintf(s.out, "%s is not trusted; all of it:\n", rev.File)
		printNumbered(s, now)
	}
	fmt.Fprintf(s.out, "covers %s\n", termsafe.Visible(strings.Join(rev.Covers, ", ")))
	fmt.Fprintf(s.out, "sha256 %s\n", rev.Digest)
}

// printNumbered prints text with line numbers, so the end of the file is
// plain to see.
func printNumbered(s *streams, text string) {
	for i, l := range fileLines(text) {
		fmt.Fprintf(s.out, "%4d  %s\n", i+1, l)
	}
}

// fileLines splits text into its lines, without a last empty one.
func fileLines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}
