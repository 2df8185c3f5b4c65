package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/atelier-studio/atelier/api"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/host"
)

// serveOptions are the flags of `atelier serve`.
type serveOptions struct {
	detach, status, stop, json bool
	idleExit                   time.Duration
}

func newServeCmd(s *streams) *cobra.Command {
	o := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve [DIR]",
		Short: "Host the workspace's engine without a UI",
		Long: `Serve hosts the engine of the workspace DIR (default: the current directory)
in this process, without a UI, and serves its API over HTTP on a unix socket
in the user's runtime directory ($XDG_RUNTIME_DIR/atelier/, or a private
folder under the temporary directory). One process hosts a workspace at a
time: it holds a lock next to the socket for its whole life.

The host exits by itself after --idle-exit once no session is running,
parked on a timer or scheduled, and no client is attached; an interrupt
(Ctrl-C) or --stop stops it sooner. Its sessions stay resumable by the next
host.

--detach starts the host in the background, in a session of its own, with
its output appended to .state/engine.log, and returns once it answers.
--status says which process hosts the workspace and since when; --stop asks
it to stop and waits until it has.

Exit codes: 0 done (with --status: whether or not a host runs), 1 another
process already hosts the workspace (its pid is named) or the host failed,
2 usage error.`,
		Example: `  atelier serve                      # host the current workspace in the foreground
  atelier serve --detach ~/src/app   # host it in the background
  atelier serve --status --json      # which process hosts it, as JSON
  atelier serve --stop
  curl --unix-socket "$(atelier serve --status --json | jq -r .socket)" http://atelier/v1/health`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			if o.json && !o.status && !o.detach {
				return usageErr("--json goes with --status or --detach")
			}
			if o.idleExit < 0 {
				return usageErr("--idle-exit must not be negative (0: never exit when idle)")
			}
			ws, err := workspaceDir(dir)
			if err != nil {
				return err
			}
			switch {
			case o.status:
				return serveStatus(ws, o, s)
			case o.stop:
				return serveStop(cmd.Context(), ws, s)
			case o.detach:
				return serveDetach(cmd.Context(), ws, o, s)
			}
			return serveForeground(cmd.Context(), ws, o, s)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.detach, "detach", false, "start the host in the background (output in .state/engine.log) and return once it answers")
	f.BoolVar(&o.status, "status", false, "say which process hosts the workspace's engine")
	f.BoolVar(&o.stop, "stop", false, "ask the workspace's host to stop, and wait until it has")
	f.BoolVar(&o.json, "json", false, "with --status or --detach: print the host's status as one JSON object")
	f.DurationVar(&o.idleExit, "idle-exit", host.DefaultIdleExit, "exit after this long with nothing running and no client attached (0: never)")
	cmd.MarkFlagsMutuallyExclusive("detach", "status", "stop")
	return cmd
}

// serveForeground hosts the engine in this process until it is stopped or
// idle; its log goes to standard error.
func serveForeground(ctx context.Context, ws string, o *serveOptions, s *streams) error {
	logger := log.New(s.err, "atelier: ", log.LstdFlags)
	idle := o.idleExit
	if idle == 0 {
		idle = -1 // never
	}
	err := host.Run(ctx, host.Options{
		Workspace: ws,
		Open: func(ws string) (*core.Engine, error) {
			e, _, _, err := s.openEngine(ws, false)
			return e, err
		},
		Handler: func(e *core.Engine, _ func() func()) http.Handler {
			return api.NewServer(e, api.Options{Version: version()})
		},
		IdleExit: idle,
		Version:  version(),
		Logf:     logger.Printf,
	})
	// Another host (*host.ErrRunning, named with its pid) and every other
	// failure exit 1; a configuration error keeps its usage code.
	return err
}

// serveDetach starts a detached host (this binary, `serve DIR`) and prints
// its status once it answers.
func serveDetach(ctx context.Context, ws string, o *serveOptions, s *streams) error {
	exe, err := os.Executable()
	if err != nil {
		return withCode(ExitFailed, fmt.Errorf("find the atelier binary: %w", err))
	}
	st, err := host.Detach(ctx, ws, []string{exe, "serve", "--idle-exit", o.idleExit.String(), ws})
	if err != nil {
		return withCode(ExitFailed, err)
	}
	if o.json {
		return printStatusJSON(st, s)
	}
	fmt.Fprintf(s.out, "the engine of %s runs in process %d\nsocket: %s\n", st.Workspace, st.PID, st.Socket)
	return nil
}

// serveStatus prints which process hosts the workspace.
func serveStatus(ws string, o *serveOptions, s *streams) error {
	st, err := host.Probe(ws)
	if err != nil {
		return withCode(ExitFailed, err)
	}
	if o.json {
		return printStatusJSON(st, s)
	}
	if !st.Running {
		fmt.Fprintf(s.out, "no process hosts the engine of %s\n", st.Workspace)
		return nil
	}
	fmt.Fprintf(s.out, "the engine of %s runs in process %d", st.Workspace, st.PID)
	if st.StartedAt != nil {
		fmt.Fprintf(s.out, " since %s", st.StartedAt.Local().Format(time.DateTime))
	}
	if st.Version != "" {
		fmt.Fprintf(s.out, " (atelier %s)", st.Version)
	}
	fmt.Fprintf(s.out, "\nsocket: %s\n", st.Socket)
	return nil
}

// serveStatusJSON is what `serve --status --json` prints: every field is
// always present.
type serveStatusJSON struct {
	Running   bool       `json:"running"`
	PID       int        `json:"pid"`
	Socket    string     `json:"socket"`
	Version   string     `json:"version"`
	StartedAt *time.Time `json:"started_at"`
	Workspace string     `json:"workspace"`
}

func printStatusJSON(st host.Status, s *streams) error {
	b, err := json.Marshal(serveStatusJSON{Running: st.Running, PID: st.PID, Socket: st.Socket,
		Version: st.Version, StartedAt: st.StartedAt, Workspace: st.Workspace})
	if err != nil {
		return withCode(ExitFailed, err)
	}
	fmt.Fprintln(s.out, string(b))
	return nil
}

// serveStop stops the workspace's host and waits until it has let go.
func serveStop(ctx context.Context, ws string, s *streams) error {
	ctx, cancel := context.WithTimeout(ctx, host.DefaultStopTimeout)
	defer cancel()
	st, err := host.Stop(ctx, ws)
	if errors.Is(err, host.ErrNotRunning) {
		fmt.Fprintf(s.out, "no process hosts the engine of %s\n", st.Workspace)
		return nil
	}
	if err != nil {
		return withCode(ExitFailed, err)
	}
	fmt.Fprintf(s.out, "stopped the engine of %s (process %d)\n", st.Workspace, st.PID)
	return nil
}
