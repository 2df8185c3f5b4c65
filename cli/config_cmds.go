package cli

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

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
				return json.NewEncoder(s.out).Encode(list)
			}
			tw := tabwriter.NewWriter(s.out, 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "AGENT\tHARNESS\tSOURCE\tSTATUS")
			for _, a := range list {
				status := "available"
				if !a.Available {
					status = "unavailable: " + a.Why
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
				return err
			}
			entries := cfg.Effective()
			if asJSON {
				return json.NewEncoder(s.out).Encode(entries)
			}
			tw := tabwriter.NewWriter(s.out, 2, 4, 2, ' ', 0)
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
			return tw.Flush()
		},
	}
	cmd.Flags().StringVarP(&workspace, "workspace", "w", ".", "the workspace folder")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newTrustCmd(s *streams) *cobra.Command {
	var workspace string
	var distrust bool
	cmd := &cobra.Command{
		Use:   "trust",
		Short: "Trust (or, with --distrust, stop trusting) the workspace's .atelier.toml",
		Long: `A workspace's .atelier.toml can be written by the agents themselves, so
Atelier obeys it only once you trust it. Trust is kept in your own
configuration folder with the file's SHA-256: any change to the file makes it
untrusted again, and Atelier says so.`,
		Example: `  atelier trust
  atelier trust --distrust --workspace ~/src/app`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ws, err := workspaceDir(workspace)
			if err != nil {
				return err
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
			if err := store.Trust(ws); err != nil {
				return err
			}
			fmt.Fprintln(s.out, "trusted", config.WorkspaceFileName, "of", ws)
			return nil
		},
	}
	cmd.Flags().StringVarP(&workspace, "workspace", "w", ".", "the workspace folder")
	cmd.Flags().BoolVar(&distrust, "distrust", false, "stop trusting the file")
	return cmd
}
