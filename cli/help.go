package cli

import (
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// refuseUnknownHelp makes help refuse a subcommand that does not exist.
// Cobra answers `atelier nosuch --help` with the root's help, and
// `atelier sessions nosuch --help` or `atelier workflow nosuch` with their
// parent's, exiting 0 either way: a typo then looks like a command that
// exists and prints nothing useful. Help is shown only for a command that
// would accept its positional arguments; otherwise the help is replaced
// by an unknown-command error, which the returned function reports after
// the command line ran (cobra's help function cannot return one).
func refuseUnknownHelp(root *cobra.Command) (refused func() error) {
	var err error
	show := root.HelpFunc()
	root.SetHelpFunc(func(cmd *cobra.Command, args []string) {
		if err = unknownSubcommand(cmd); err != nil {
			return
		}
		show(cmd, args)
	})
	return func() error { return err }
}

// unknownSubcommand is the error for a command with subcommands given
// positional arguments it does not take: a group without an action of its
// own, one whose Args refuse them (`sessions`), or the root given
// something other than a directory (its DIR). nil when there is nothing
// to refuse.
func unknownSubcommand(cmd *cobra.Command) error {
	args := cmd.Flags().Args()
	if !cmd.HasAvailableSubCommands() || len(args) == 0 {
		return nil
	}
	unknown := usageErr("unknown command %q for %q (see `%s --help`)", args[0], cmd.CommandPath(), cmd.CommandPath())
	switch {
	case !cmd.Runnable():
		return unknown
	case cmd.ValidateArgs(args) != nil:
		return unknown
	case !cmd.HasParent():
		if fi, err := os.Stat(args[0]); err != nil || !fi.IsDir() {
			return usageErr("unknown command %q for %q, and no directory of that name (see `%s --help`)", args[0], cmd.CommandPath(), cmd.CommandPath())
		}
	}
	return nil
}

// newHelpCmd is `atelier help [COMMAND...]`, which cobra's own help command
// answers for an unknown COMMAND with "Unknown help topic" and the root's
// usage, exiting 0. This one says the topic is unknown and exits 2, as
// `atelier nosuch --help` does.
func newHelpCmd(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Long:  "Help prints the help of any command: `atelier help sessions show` is `atelier sessions show --help`.",
		ValidArgsFunction: func(_ *cobra.Command, args []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
			parent, rest, err := root.Find(args)
			if err != nil || len(rest) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var names []cobra.Completion
			for _, sub := range parent.Commands() {
				if sub.IsAvailableCommand() && strings.HasPrefix(sub.Name(), prefix) {
					names = append(names, cobra.CompletionWithDesc(sub.Name(), sub.Short))
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(_ *cobra.Command, args []string) error {
			cmd, rest, err := root.Find(args)
			if err != nil || len(rest) > 0 {
				return usageErr("unknown help topic %q (see `atelier --help`)", strings.Join(args, " "))
			}
			cmd.InitDefaultHelpFlag()
			return cmd.Help()
		},
	}
}
