package cli

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/atelier-studio/atelier/config"
)

func newAgentsCmd(s *streams) *cobra.Command {
	var workspace string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "agents",
		Short: "List the configured and detected agents, and why any is unavailable",
		Example: `  atelier agents
  atelier agents --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ws, err := workspaceDir(workspace)
			if err != nil {
				return err
			}
			cfg, err := s.loadConfig(ws, s.err)
			if err != nil {
				return err
			}
			list := newAgents(cfg, s.env.getenv).list()
			if asJSON {
				return json.NewEncoder(s.jsonOut()).Encode(list)
			}
			tw := s.table()
			fmt.Fprintln(tw, "AGENT\tHARNESS\tSOURCE\tSTATUS")
			for _, a := range list {
				status := "available"
				switch {
				case !a.Available:
					status = "unavailable: " + a.Why
				case a.Why != "":
					status = "available (" + a.Why + ")" // e.g. "may need a login"
				}
				name := a.Name
				if a.Default {
					name += " (default)"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", name, a.Harness, a.Source, status)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVarP(&workspace, "workspace", "w", ".", "the workspace folder")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newConfigCmd(s *streams) *cobra.Command {
	var workspace string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show the effective configuration, secrets masked, with the file each value came from",
		Long: `Config checks the configuration (the user's file, and the workspace's
.atelier.toml once trusted) and prints every value in force with the file
and line it came from, secrets masked. It also checks what only the studio
applies: each [keys] override (the action exists, the key is one the studio
reads, it collides with no other) and a ui.theme file (it is a theme). Any
problem is reported with its file, line and key, and the command exits 2.

When a host runs the workspace, config also asks it what it uses: a host
applies a change to the files while it runs, each part at its boundary, or
keeps what it had and says why. Config says when the host's view differs
from the files ("the host has not applied: ... because: ..."). It never
starts a host to ask.`,
		Example: `  atelier config
  atelier config --json | jq '.[] | select(.key | startswith("agents."))'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ws, err := workspaceDir(workspace)
			if err != nil {
				return err
			}
			cfg, err := s.loadConfig(ws, s.err)
			if err != nil {
				if !asJSON {
					printHostConfig(cmd.Context(), s.err, ws, nil)
				}
				return err
			}
			if ps := studioProblems(cfg); len(ps) > 0 {
				return withCode(ExitUsage, config.NewError(ps))
			}
			entries := cfg.Effective()
			if asJSON {
				return json.NewEncoder(s.jsonOut()).Encode(entries)
			}
			tw := s.table()
			for _, e := range entries {
				from := "default"
				if e.File != "" {
					from = fmt.Sprintf("%s:%d", e.File, e.Line)
				}
				fmt.Fprintf(tw, "%s\t= %s\t%s\n", e.Key, e.Value, from)
			}
			fmt.Fprintf(tw, "\nuser file\t%s\t\n", cfg.UserFile)
			if cfg.WorkspaceFile != "" {
				fmt.Fprintf(tw, "workspace file\t%s\t(%s)\n", cfg.WorkspaceFile, cfg.WorkspaceTrust)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			printHostConfig(cmd.Context(), s.out, ws, cfg)
			return nil
		},
	}
	cmd.Flags().StringVarP(&workspace, "workspace", "w", ".", "the workspace folder")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
