package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/attach"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/instances"
)

// instancesOptions are the flags the instances commands share.
type instancesOptions struct {
	workspace string
	json      bool
}

const instancesExits = `Exit codes: 0 done, 1 an error (or the question was answered no), 2 a
bad argument or an unknown instance, 4 a question nobody could answer (no
terminal: run again with --yes; nothing was changed), 6 refused
by the workspace's state: apply found files the workspace changed too (try
--3way), a --3way apply left files unmerged (the others are applied), or
discard found sessions still working on the instance.`

func newInstancesCmd(s *streams) *cobra.Command {
	o := &instancesOptions{}
	cmd := &cobra.Command{
		Use:   "instances",
		Short: "Review, apply and discard the worktrees and copies sessions work in",
		Long: `An instance is an isolated file tree a session works in instead of the
workspace folder: a git worktree on its own branch (atelier/ID), or a copy
of the folder. Nothing comes back by itself: diff shows what an instance
changed, apply writes it into the workspace (refusing, naming them, when you
changed the same files since), branch makes a branch of it for a pull
request, discard removes it. Sessions get one with --isolation on ` + "`atelier run`" + `
and ` + "`atelier sessions create`" + `, or join one with --instance. See docs/instances.md.

Without a subcommand, instances lists them, as ` + "`instances list`" + ` does.
The workspace's engine host does the work; these commands are its clients.`,
		Example: `  atelier instances
  atelier instances --json
  atelier instances create worktree review-1
  atelier instances diff review-1
  atelier instances apply review-1 --yes
  atelier instances discard review-1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return s.listInstances(cmd.Context(), o)
		},
	}
	cmd.PersistentFlags().StringVarP(&o.workspace, "workspace", "w", ".", "the workspace folder")
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON")
	cmd.AddCommand(newInstancesListCmd(s, o), newInstancesCreateCmd(s, o), newInstancesDiffCmd(s, o),
		newInstancesApplyCmd(s, o), newInstancesDiscardCmd(s, o), newInstancesBranchCmd(s, o))
	return cmd
}

// withInstances runs do with the workspace's host (started, or hosted by
// this process for the command's life), through the studio's instance
// seam so errors come back typed.
func (s *streams) withInstances(ctx context.Context, workspace string, do func(context.Context, *client.Client, attach.Instances) error) (err error) {
	if ctx == nil {
		ctx = context.Background()
	}
	c, stop, err := s.stayingHost(ctx, workspace)
	if err != nil {
		return err
	}
	defer func() { err = joinStop(err, stop()) }()
	r := attach.NewRemote(attach.RemoteOptions{Workspace: workspace, Client: c})
	defer r.Close()
	return do(ctx, c, r)
}

// instanceErr gives an instance error its exit code.
func instanceErr(err error) error {
	var (
		conflict *instances.ConflictError
		inUse    *core.InUseError
	)
	switch {
	case err == nil:
		return nil
	case errors.As(err, &conflict), errors.As(err, &inUse):
		return withCode(ExitConflict, err)
	case errors.Is(err, instances.ErrNotFound), errors.Is(err, instances.ErrExists),
		errors.Is(err, instances.ErrNotWorktree), errors.Is(err, attach.ErrBadRequest):
		return withCode(ExitUsage, err)
	}
	return remoteErr(err)
}

func newInstancesListCmd(s *streams, o *instancesOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the workspace and its instances, with the sessions on each",
		Long: `List prints the workspace ("main") and each instance: its kind, the sessions
working on it, and its folder (a worktree's branch too).`,
		Example: `  atelier instances list
  atelier instances list --json | jq -r '.[] | select(.kind == "copy") | .id'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return s.listInstances(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON")
	return cmd
}

// listInstances prints the workspace and its instances: `instances list`,
// and `instances` without a subcommand, as `sessions` lists the sessions.
func (s *streams) listInstances(ctx context.Context, o *instancesOptions) error {
	return s.withInstances(ctx, o.workspace, func(ctx context.Context, c *client.Client, _ attach.Instances) error {
		list, err := c.Instances(ctx)
		if err != nil {
			return instanceErr(remoteErr(err))
		}
		if o.json {
			return writeJSON(s, list)
		}
		return s.printInstances(list)
	})
}

func newInstancesCreateCmd(s *streams, o *instancesOptions) *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:   "create KIND [ID]",
		Short: "Make an instance: a worktree (git workspaces) or a copy",
		Long: `Create makes an instance of the workspace as it is now (your uncommitted
changes included) and prints its id: KIND is worktree (a git worktree on
branch atelier/ID) or copy (a copy of the folder without ignored files and
the heavy folders of [instances] omit). Without ID one is made up.
A session joins it with --instance ID.

Before making a copy larger than [instances] warn_size (1 GiB by default)
create says its size and asks; --yes makes it without asking.

` + instancesExits,
		Example: `  atelier instances create worktree review-1
  atelier instances create copy --yes
  atelier run --instance review-1 "fix the flaky test"`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			kind := args[0]
			if kind != string(instances.Worktree) && kind != string(instances.Copy) {
				return usageErr("the kind is worktree or copy, not %q", kind)
			}
			id := ""
			if len(args) == 2 {
				id = args[1]
			}
			return s.withInstances(cmd.Context(), o.workspace, func(ctx context.Context, c *client.Client, _ attach.Instances) error {
				if kind == string(instances.Copy) {
					if err := s.checkCopySize(ctx, c, yes); err != nil {
						return err
					}
				}
				in, err := c.CreateInstance(ctx, client.CreateInstanceRequest{Kind: kind, ID: id})
				if err != nil {
					return instanceErr(remoteErr(err))
				}
				if o.json {
					return writeJSON(s, in)
				}
				fmt.Fprintln(s.out, in.ID)
				fmt.Fprintf(s.err, "made %s instance %s in %s\n", in.Kind, in.ID, in.Path)
				return nil
			})
		},
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "make a copy over warn_size without asking")
	cmd.Flags().BoolVar(&o.json, "json", false, "print the instance as JSON")
	return cmd
}

func newInstancesDiffCmd(s *streams, o *instancesOptions) *cobra.Command {
	var stat bool
	cmd := &cobra.Command{
		Use:   "diff ID",
		Short: "Show what an instance changed against the workspace it was made from",
		Long: `Diff prints the instance's changes as a unified patch (git's format), or with
--stat the files with their status and the lines added and removed. It
compares the instance with its base: the workspace as it was when the
instance was made, your uncommitted changes included.`,
		Example: `  atelier instances diff review-1
  atelier instances diff review-1 --stat
  atelier instances diff review-1 | git apply --check`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return s.withInstances(cmd.Context(), o.workspace, func(ctx context.Context, _ *client.Client, in attach.Instances) error {
				d, err := in.InstanceDiff(ctx, args[0])
				if err != nil {
					return instanceErr(err)
				}
				switch {
				case o.json:
					return writeJSON(s, d)
				case stat:
					return s.printDiffStat(d)
				}
				return s.printPatch(d)
			})
		},
	}
	cmd.Flags().BoolVar(&stat, "stat", false, "the files and their lines only")
	cmd.Flags().BoolVar(&o.json, "json", false, "print the files and the patch as JSON")
	return cmd
}

func newInstancesApplyCmd(s *streams, o *instancesOptions) *cobra.Command {
	var threeWay, yes bool
	cmd := &cobra.Command{
		Use:   "apply ID",
		Short: "Write an instance's changes into the workspace, after a preview",
		Long: `Apply shows what it would write (the files, with the lines added and removed)
and asks, then writes the instance's changes into the workspace under its
write lease. --yes writes without asking; without a terminal and without
--yes it prints the preview and exits 4, writing nothing.

When you changed a file since the instance was made that the instance
changed too, apply refuses, naming the files, and writes nothing (exit 6).
--3way merges such files as git merge-file would; the files it cannot merge
are left as you have them and listed (exit 6, the others applied).

` + instancesExits,
		Example: `  atelier instances apply review-1
  atelier instances apply review-1 --yes
  atelier instances apply review-1 --3way --yes --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return s.withInstances(cmd.Context(), o.workspace, func(ctx context.Context, _ *client.Client, in attach.Instances) error {
				return s.applyInstance(ctx, in, args[0], threeWay, yes, o.json)
			})
		},
	}
	cmd.Flags().BoolVar(&threeWay, "3way", false, "merge the files you changed too, as git merge-file does")
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "apply without asking")
	cmd.Flags().BoolVar(&o.json, "json", false, "print what was applied as JSON")
	return cmd
}

// applyInstance previews, asks and applies.
func (s *streams) applyInstance(ctx context.Context, in attach.Instances, id string, threeWay, yes, asJSON bool) error {
	pre, err := in.ApplyInstance(ctx, id, instances.ApplyOptions{ThreeWay: threeWay, Preview: true})
	if err != nil {
		return instanceErr(err)
	}
	if len(pre.Files) == 0 {
		if asJSON {
			return writeJSON(s, pre)
		}
		fmt.Fprintf(s.err, "instance %s: nothing to apply (the workspace holds its changes)\n", id)
		return nil
	}
	d, err := in.InstanceDiff(ctx, id)
	if err != nil {
		return instanceErr(err)
	}
	s.printApplyPreview(pre, d)
	if !yes {
		ok, asked := s.confirm(fmt.Sprintf("apply these %d file(s) to the workspace? [y/N] ", len(pre.Files)))
		if !asked {
			return withCode(ExitNeedsYou, fmt.Errorf("instance %s: not applied: no terminal to ask on (run again with --yes)", id))
		}
		if !ok {
			return fmt.Errorf("instance %s: not applied", id)
		}
	}
	res, err := in.ApplyInstance(ctx, id, instances.ApplyOptions{ThreeWay: threeWay})
	if err != nil {
		return instanceErr(err)
	}
	if asJSON {
		if err := writeJSON(s, res); err != nil {
			return err
		}
	} else {
		s.printApplied(res)
	}
	if res.CommitErr != nil {
		fmt.Fprintf(s.err, "atelier: the files are written, but the history commit failed: %v\n", res.CommitErr)
	}
	if len(res.Unmerged) > 0 {
		return withCode(ExitConflict, fmt.Errorf("instance %s: %d file(s) could not be merged and were left as they are", id, len(res.Unmerged)))
	}
	return nil
}

func newInstancesDiscardCmd(s *streams, o *instancesOptions) *cobra.Command {
	var yes, force bool
	cmd := &cobra.Command{
		Use:   "discard ID",
		Short: "Remove an instance (its folder, and a worktree's branch)",
		Long: `Discard removes an instance: its folder, and for a worktree its branch
atelier/ID and git's record of it. Your repository is left as it was.

It refuses while a session that has not ended works on the instance (exit
6: close them first). When the instance has changes the workspace does not
hold, it lists them and asks; --yes discards them without asking, and
without a terminal discard exits 4 unless --yes.

` + instancesExits,
		Example: `  atelier instances discard review-1
  atelier instances discard review-1 --yes`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := args[0]
			return s.withInstances(cmd.Context(), o.workspace, func(ctx context.Context, _ *client.Client, in attach.Instances) error {
				err := in.DiscardInstance(ctx, id, yes || force)
				var ue *instances.UnappliedError
				if errors.As(err, &ue) {
					fmt.Fprintf(s.err, "instance %s has changes the workspace does not hold:\n", id)
					for _, f := range ue.Files {
						fmt.Fprintf(s.err, "  %s\n", f)
					}
					ok, asked := s.confirm("discard them? [y/N] ")
					if !asked {
						return withCode(ExitNeedsYou, fmt.Errorf("instance %s: not discarded: no terminal to ask on (apply it, or run again with --yes)", id))
					}
					if !ok {
						return fmt.Errorf("instance %s: not discarded", id)
					}
					err = in.DiscardInstance(ctx, id, true)
				}
				if err != nil {
					return instanceErr(err)
				}
				fmt.Fprintf(s.err, "discarded instance %s\n", id)
				return nil
			})
		},
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "discard changes not applied without asking")
	// --force was discard's flag before --yes was every asking command's:
	// scripts that pass it keep working, told to use --yes.
	cmd.Flags().BoolVar(&force, "force", false, "the same as --yes")
	if err := cmd.Flags().MarkDeprecated("force", "use --yes"); err != nil {
		panic(err) // the flag is defined just above
	}
	return cmd
}

func newInstancesBranchCmd(s *streams, o *instancesOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "branch ID NAME",
		Short: "Make branch NAME of your repository from a worktree instance's work",
		Long: `Branch makes branch NAME in your repository holding the instance's work (its
commits, and one more of its uncommitted files when it has some), for a pull
request. Nothing is checked out; the instance stays. It prints the branch's
commit.`,
		Example: `  atelier instances branch review-1 fix/flaky-test
  git push origin fix/flaky-test`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return s.withInstances(cmd.Context(), o.workspace, func(ctx context.Context, _ *client.Client, in attach.Instances) error {
				commit, err := in.BranchInstance(ctx, args[0], args[1])
				if err != nil {
					return instanceErr(err)
				}
				if o.json {
					return writeJSON(s, client.BranchResult{Branch: args[1], Commit: commit})
				}
				fmt.Fprintln(s.out, commit)
				fmt.Fprintf(s.err, "made branch %s from instance %s\n", args[1], args[0])
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print the branch and its commit as JSON")
	return cmd
}

// checkCopySize asks before a copy over the host's warn_size is made
// (yes: do not ask). Without a terminal it refuses with ExitNeedsYou.
func (s *streams) checkCopySize(ctx context.Context, c *client.Client, yes bool) error {
	est, err := c.CopyEstimate(ctx)
	if err != nil {
		return instanceErr(remoteErr(err))
	}
	if est.Size.Bytes <= est.WarnSize {
		return nil
	}
	fmt.Fprintf(s.err, "a copy of the workspace would hold %d files, %s (over [instances] warn_size, %s)\n",
		est.Size.Files, byteSize(est.Size.Bytes), byteSize(est.WarnSize))
	if yes {
		return nil
	}
	ok, asked := s.confirm("make it? [y/N] ")
	if !asked {
		return withCode(ExitNeedsYou, errors.New("no copy made: no terminal to ask on (run again with --yes, or use a worktree)"))
	}
	if !ok {
		return errors.New("no copy made")
	}
	return nil
}

// checkCreateCopy asks before a session's copy instance over warn_size
// is made (see checkCopySize).
func (s *streams) checkCreateCopy(ctx context.Context, c *client.Client, req client.CreateRequest, yes bool) error {
	if req.Isolation != core.IsolationCopy {
		return nil
	}
	return s.checkCopySize(ctx, c, yes)
}
