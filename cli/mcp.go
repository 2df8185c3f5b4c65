package cli

import (
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/mcp"
)

func newMCPCmd(s *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp [DIR]",
		Short: "Serve the workspace's engine to another agent as MCP tools on stdio",
		Long: `Mcp serves the engine of the workspace DIR (default: the current directory)
as Model Context Protocol tools on standard input and output, so Claude Code,
Codex or any MCP client can run and supervise Atelier sessions: list them,
create and start one, send a prompt, read a session's status and latest
messages, list and answer what waits on the operator, pause, resume or cancel,
and exec a command with a key (docs/api.md, "The MCP tools").

It attaches to the process that hosts the workspace's engine, and starts a
detached ` + "`atelier serve`" + ` when none runs (again later if that host has
exited when idle). It keeps nothing itself: stopping it stops no session.`,
		Example: `  atelier mcp ~/src/app
  claude mcp add atelier -- atelier mcp ~/src/app
  # or in an --mcp-config file:
  {"mcpServers": {"atelier": {"command": "atelier", "args": ["mcp", "/home/me/src/app"]}}}`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			attach, err := s.mcpAttach(dir)
			if err != nil {
				return err
			}
			// Attach now, so a workspace whose engine cannot be started
			// fails here rather than on the first tool call.
			if _, err := attach(cmd.Context()); err != nil {
				return withCode(ExitFailed, err)
			}
			err = mcp.Serve(cmd.Context(), mcp.Options{Version: version(), Attach: attach, Env: s.handedEnv(dir)}, &sdk.StdioTransport{})
			if err != nil && cmd.Context().Err() == nil {
				return withCode(ExitFailed, fmt.Errorf("mcp: %w", err))
			}
			return nil
		},
	}
}

// mcpAttach returns how the MCP server reaches its engine: the one at
// --engine, or the workspace's host, started when none runs.
func (s *streams) mcpAttach(dir string) (func(ctx context.Context) (*client.Client, error), error) {
	if s.engineURL() != "" {
		s.client = "mcp"
		return s.remoteEngine, nil
	}
	ws, err := workspaceDir(dir)
	if err != nil {
		return nil, err
	}
	exe := s.hostBinary
	if exe == "" {
		return nil, withCode(ExitFailed, fmt.Errorf("mcp: %w", errNoHostBinary))
	}
	return func(ctx context.Context) (*client.Client, error) {
		c, _, err := mcp.Attach(ctx, ws, exe)
		return c, err
	}, nil
}
