package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/atelier-studio/atelier/attach"
	"github.com/atelier-studio/atelier/host"
	"github.com/atelier-studio/atelier/tui"
)

// newAttachCmd is `atelier attach URL`: the studio on an engine another
// machine serves (`atelier serve --listen`), the same as `atelier
// --engine URL`.
func newAttachCmd(s *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "attach URL",
		Short: "Open the studio on the engine another machine serves (atelier serve --listen)",
		Long: `Opens the studio on a workspace served by another machine's engine, reached
at URL directly over TLS or through an SSH tunnel. The token is ATELIER_TOKEN,
or else the one in this user's token file (the one ` + "`atelier serve --listen`" + `
printed there). The sessions, the file tree, the editor, the history and the
terminals all go through that engine's API: nothing of this machine's folders
is read as the workspace. Quitting leaves the sessions running there.

` + "`atelier --engine URL`" + ` (or ATELIER_ENGINE in the environment) does the same.
The new-session form offers the engine's default agent and leaves what it
is left at (access, execution) to the engine; choosing other settings needs a
host started with --allow-settings.`,
		Example: `  ATELIER_TOKEN=... atelier attach https://build-box:7777
  ssh -L 7777:127.0.0.1:7777 build-box   # then, in another terminal:
  atelier attach http://127.0.0.1:7777`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if s.engineFlag != "" && s.engineFlag != args[0] {
				return usageErr("attach %s names another engine than --engine %s: give one", args[0], s.engineFlag)
			}
			s.engineFlag = args[0]
			return runStudioAttached(cmd.Context(), s)
		},
	}
}

// runStudioAttached opens the studio on the engine at engineURL, on
// another machine: its files, history and terminals through the API, the
// status line saying where it is attached.
func runStudioAttached(ctx context.Context, s *streams) error {
	s.client = host.StudioLabel
	c, err := s.remoteEngine(ctx)
	if err != nil {
		return err
	}
	hctx, cancel := context.WithTimeout(ctx, hostProbeTimeout)
	h, err := c.Health(hctx)
	cancel()
	if err != nil {
		c.CloseIdle()
		return withCode(ExitFailed, fmt.Errorf("the engine at %s: %w", s.engineURL(), remoteErr(err)))
	}
	// No history here, no Ensure: the host is someone else's to keep, and
	// its history is read through its API.
	// The variables the agents read are handed over as the commands with
	// --engine hand them (docs/cli.md).
	remote := attach.NewRemote(attach.RemoteOptions{Workspace: h.Workspace, Client: c, Env: s.handedEnv(".")})
	defer remote.Close()
	return tui.Run(ctx, tui.Options{Engine: remote, Attached: true, Remote: s.engineURL(), Files: remote.Files(),
		Workspace: h.Workspace, UIStateFile: uiStateFile()})
}
