package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/atelier-studio/atelier/api"
	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/host"
	"github.com/atelier-studio/atelier/notify"
)

// serveOptions are the flags of `atelier serve`.
type serveOptions struct {
	detach, status, stop, json bool
	restart                    bool
	idleExit                   time.Duration
	tcp                        tcpOptions
}

// tcpOptions are the flags of the TCP listener.
type tcpOptions struct {
	listen, cert, key, cors string
	allowHosts              []string
	allowSettings           bool
	// detached is set by `serve --detach` on the host it starts: the
	// token is printed by the command that was asked, never into the log.
	detached bool
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
parked on a timer or scheduled, and no client is attached (a host serving
TCP with --listen stays until stopped unless --idle-exit is given); an interrupt
(Ctrl-C) or --stop stops it sooner. Its sessions stay resumable by the next
host. A workspace with schedule or on_change triggers keeps its host (they
fire only while it runs): --status says so.

--detach starts the host in the background, in a session of its own, with
its output appended to .state/engine.log, and returns once it answers.

--listen ADDR also serves the API on TCP. Every TCP request needs the bearer
token (loopback included): it is made once, kept in
$XDG_CONFIG_HOME/atelier/token (mode 0600) and printed on start. The Host
header must name the listen address (or localhost, 127.0.0.1, [::1] for a
loopback one) or a name given with --allow-host. An address that is not
loopback requires --tls-cert and --tls-key (or use 127.0.0.1 and ssh -L).
Browsers get no CORS headers unless --cors ORIGIN names their origin. TCP
clients cannot change agents, models or approval policies unless
--allow-settings is given.
--status says which process hosts the workspace and since when; --stop asks
it to stop and waits until it has.

--restart hands the workspace to a new host of this build (a client that
finds a host of another build says so): it asks the running host to stop at
its next boundary, as --stop does (its sessions resume on the new host),
then starts a detached host, as --detach does, and returns once it answers.
With no host running it just starts one. Open studios wait for the new host
and reattach to it. Serving (with --listen or not) while a host runs is
refused: --restart --listen hands the workspace to a host that listens.

Exit codes: 0 done (with --status: whether or not a host runs), 1 another
process already hosts the workspace (its pid is named) or the host failed,
2 usage error.`,
		Example: `  atelier serve                          # host the current workspace in the foreground
  atelier serve --detach ~/src/app       # host it in the background
  atelier serve --status --json          # which process hosts it, as JSON
  atelier serve --listen 127.0.0.1:7420  # also on TCP (loopback), with a bearer token
  atelier serve --stop
  atelier serve --restart                # hand over to a host of this build
  curl --unix-socket "$(atelier serve --status --json | jq -r .socket)" http://atelier/v1/health`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			if n := countTrue(o.detach, o.status, o.stop, o.restart); n > 1 {
				// Checked here, not as a cobra flag group: a group's refusal
				// would exit 1, and a usage error exits 2.
				return usageErr("give one of --detach, --status, --stop and --restart")
			}
			if o.json && !o.status && !o.detach && !o.restart {
				return usageErr("--json goes with --status, --detach or --restart")
			}
			if o.idleExit < 0 {
				return usageErr("--idle-exit must not be negative (0: never exit when idle)")
			}
			if err := o.tcp.check(o.status || o.stop); err != nil {
				return err
			}
			ws, err := workspaceDir(dir)
			if err != nil {
				return err
			}
			if !cmd.Flags().Changed("idle-exit") && !o.status && !o.stop {
				// [engine] idle_exit, when the flag does not say; its notices
				// and errors are the engine's to print when it opens.
				if cfg, err := s.loadConfig(ws, io.Discard); err == nil {
					o.idleExit = cfg.Engine.IdleExit
				}
				if o.tcp.listen != "" {
					// Driven from another machine, a host with a listener
					// stays until it is stopped, unless --idle-exit says.
					o.idleExit = 0
				}
			}
			switch {
			case o.status:
				return serveStatus(ws, o, s)
			case o.stop:
				return serveStop(cmd.Context(), ws, s)
			case o.detach:
				return serveDetach(cmd.Context(), ws, o, s)
			case o.restart:
				return serveRestart(cmd.Context(), ws, o, s)
			}
			return serveForeground(cmd.Context(), ws, o, s)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.detach, "detach", false, "start the host in the background (output in .state/engine.log) and return once it answers")
	f.BoolVar(&o.status, "status", false, "say which process hosts the workspace's engine")
	f.BoolVar(&o.stop, "stop", false, "ask the workspace's host to stop, and wait until it has")
	f.BoolVar(&o.restart, "restart", false, "hand over to a new detached host of this build: stop the running one at its next boundary, start another")
	f.BoolVar(&o.json, "json", false, "with --status, --detach or --restart: print the host's status as one JSON object")
	f.DurationVar(&o.idleExit, "idle-exit", host.DefaultIdleExit, "exit after this long with nothing running and no client attached (0: never)")
	f.StringVar(&o.tcp.listen, "listen", "", "also serve the API on TCP at `ADDR` (host:port), with a bearer token")
	f.StringVar(&o.tcp.cert, "tls-cert", "", "with --listen: serve TLS with this PEM certificate `FILE`")
	f.StringVar(&o.tcp.key, "tls-key", "", "with --listen: the TLS certificate's PEM key `FILE`")
	f.StringSliceVar(&o.tcp.allowHosts, "allow-host", nil, "with --listen: another `NAME` the Host header may give (repeatable)")
	f.StringVar(&o.tcp.cors, "cors", "", "with --listen: let browsers call from this `ORIGIN` (scheme://host[:port])")
	f.BoolVar(&o.tcp.allowSettings, "allow-settings", false, "with --listen: let TCP clients change agents, models and approval policies")
	f.BoolVar(&o.tcp.detached, "detached", false, "")
	if err := f.MarkHidden("detached"); err != nil {
		panic(err) // the flag is defined just above
	}
	return cmd
}

// countTrue counts the flags that are set.
func countTrue(flags ...bool) int {
	n := 0
	for _, f := range flags {
		if f {
			n++
		}
	}
	return n
}

// check refuses TCP flags without --listen, or with --status or --stop,
// and a malformed origin.
func (o tcpOptions) check(inquiry bool) error {
	if o.listen == "" {
		if o.cert != "" || o.key != "" || o.cors != "" || len(o.allowHosts) > 0 || o.allowSettings {
			return usageErr("--tls-cert, --tls-key, --allow-host, --cors and --allow-settings go with --listen")
		}
		return nil
	}
	if inquiry {
		return usageErr("--listen goes with serving, not with --status or --stop")
	}
	if o.cors != "" {
		u, err := url.Parse(o.cors)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			return usageErr("--cors %q: want an origin, scheme://host[:port] (https://app.example.com)", o.cors)
		}
	}
	for _, h := range o.allowHosts {
		if h == "" || strings.ContainsAny(h, " /@") {
			return usageErr("--allow-host %q: want a host name or address", h)
		}
	}
	if err := host.CheckTCP(o.hostTCP("")); err != nil {
		return withCode(ExitUsage, err)
	}
	return nil
}

// hostTCP is the host's TCP listener, guarded with token.
func (o tcpOptions) hostTCP(token string) host.TCP {
	ro := api.RemoteOptions{Token: token, Hosts: host.HostNames(o.listen, o.allowHosts), CORSOrigin: o.cors, AllowSettings: o.allowSettings}
	return host.TCP{Addr: o.listen, CertFile: o.cert, KeyFile: o.key,
		Guard: func(h http.Handler) http.Handler { return api.Remote(h, ro) }}
}

// args are the flags that give a detached host the same listener.
func (o tcpOptions) args() []string {
	if o.listen == "" {
		return nil
	}
	a := []string{"--detached", "--listen", o.listen}
	if o.cert != "" {
		a = append(a, "--tls-cert", o.cert, "--tls-key", o.key)
	}
	for _, h := range o.allowHosts {
		a = append(a, "--allow-host", h)
	}
	if o.cors != "" {
		a = append(a, "--cors", o.cors)
	}
	if o.allowSettings {
		a = append(a, "--allow-settings")
	}
	return a
}

// token loads (or makes) the TCP token and says where it is (sayToken).
func (o tcpOptions) token(s *streams) (string, error) {
	tok, path, err := host.LoadToken(s.env.getenv)
	if err != nil {
		return "", withCode(ExitFailed, err)
	}
	o.sayToken(s, tok, path)
	return tok, nil
}

// sayToken says where the token is: in full on the terminal of the
// command that was asked, never in a detached host's log.
func (o tcpOptions) sayToken(s *streams, tok, path string) {
	if o.detached {
		fmt.Fprintf(s.err, "atelier: the TCP token is in %s\n", path)
	} else {
		fmt.Fprintf(s.err, "token: %s (also in %s)\n", tok, path)
	}
}

// refuseRunning gives the refusal of a host that already serves the
// workspace (an *host.ErrRunning) the way to replace it: a second host
// can never take the workspace, but a restart hands it over, with the
// listener asked for.
func refuseRunning(err error, o *serveOptions) error {
	var running *host.ErrRunning
	if !errors.As(err, &running) {
		return err
	}
	restart := "atelier serve --restart"
	if o.tcp.listen != "" {
		restart += " --listen " + o.tcp.listen
	}
	return withCode(ExitFailed, fmt.Errorf("%w: to hand the workspace over to a new host, use `%s`", err, restart))
}

// serveForeground hosts the engine in this process until it is stopped or
// idle; its log goes to standard error.
func serveForeground(ctx context.Context, ws string, o *serveOptions, s *streams) error {
	logger := log.New(s.err, "atelier: ", log.LstdFlags)
	idle := o.idleExit
	if idle == 0 {
		idle = -1 // never
	}
	// A host that runs already is refused before anything is made or
	// printed (the token above all); one that wins a start in between is
	// refused by Run, before Ready says the token.
	if st, err := host.Probe(ws); err != nil {
		return withCode(ExitFailed, err)
	} else if st.Running {
		return refuseRunning(&host.ErrRunning{Workspace: st.Workspace, PID: st.PID, Socket: st.Socket}, o)
	}
	var tcp *host.TCP
	ready := func(host.Record) {}
	if o.tcp.listen != "" {
		tok, path, err := host.LoadToken(s.env.getenv)
		if err != nil {
			return withCode(ExitFailed, err)
		}
		t := o.tcp.hostTCP(tok)
		tcp = &t
		ready = func(host.Record) { o.tcp.sayToken(s, tok, path) }
	}
	// The channels are the configuration's as the host starts; a broken
	// configuration is the engine's to report when it opens.
	var n *notify.Notifier
	if cfg, err := s.loadConfig(ws, io.Discard); err == nil {
		n = newNotifier(cfg, logger.Printf)
		defer n.Close()
	}
	hc := &hostConfig{} // what Open read, and reloads since
	wfs := newHostWorkflows()
	err := host.Run(ctx, host.Options{
		Workspace: ws,
		Open: func(ws string) (*core.Engine, error) {
			e, c, ag, err := s.openEngine(ws, false)
			if err == nil {
				hc.opened(s.loadOptions(ws), c, ag)
			}
			return e, err
		},
		Companion:   hc.companion(hostTriggers(hc.current, logger.Printf, wfs)),
		Reconfigure: hc.reconfigure(s.loadOptions(ws)),
		Handler:     s.apiHandlerFor(n, wfs, hc),
		TCP:         tcp,
		IdleExit:    idle,
		Version:     version(),
		Logf:        logger.Printf,
		Notifier:    n,
		Ready:       ready,
	})
	// Another host (*host.ErrRunning, named with its pid) and every other
	// failure exit 1; a configuration error keeps its usage code.
	return refuseRunning(err, o)
}

// serveDetach starts a detached host (this binary, `serve DIR`) and prints
// its status once it answers.
func serveDetach(ctx context.Context, ws string, o *serveOptions, s *streams) error {
	st, err := startDetached(ctx, s.hostBinary, ws, o)
	if err != nil {
		return withCode(ExitFailed, refuseRunning(err, o))
	}
	return printDetached(st, o, s)
}

// startDetached starts a detached host of this binary for ws and returns
// its status once it answers (an *host.ErrRunning when one runs already).
func startDetached(ctx context.Context, exe, ws string, o *serveOptions) (host.Status, error) {
	if exe == "" {
		return host.Status{}, errNoHostBinary
	}
	argv := append([]string{exe, "serve", "--idle-exit", o.idleExit.String()}, o.tcp.args()...)
	return host.Detach(ctx, ws, append(argv, "--", ws))
}

// printDetached says where a host that was just started runs (and, with
// --listen, where its token is).
func printDetached(st host.Status, o *serveOptions, s *streams) error {
	if o.tcp.listen != "" {
		// The host made the token, or reused it: this is the same file.
		if _, err := o.tcp.token(s); err != nil {
			return err
		}
	}
	if o.json {
		return printStatusJSON(st, s)
	}
	fmt.Fprintf(s.out, "the engine of %s runs in process %d\nsocket: %s\n", st.Workspace, st.PID, st.Socket)
	return nil
}

// serveRestart hands the workspace to a new host of this build: it stops
// the running host (SIGTERM, as --stop: the host closes its engine at the
// next boundary and its sessions stay resumable) and starts a detached one,
// which resumes them. A host that another client started in between (a
// short command starts one when it finds none) is kept when it is of this
// build: the hand-over happened; one of another build is an error that
// names it.
//
// The hand-over is marked for its whole length (host.BeginHandOver): an
// open studio, which loses its host with the old one, waits for the new
// one and reattaches to it instead of starting a plain host of its own.
func serveRestart(ctx context.Context, ws string, o *serveOptions, s *streams) (err error) {
	h, err := host.BeginHandOver(ws)
	if err != nil {
		return withCode(ExitFailed, err)
	}
	defer func() {
		if eerr := h.End(); eerr != nil {
			err = errors.Join(err, withCode(ExitFailed, eerr))
		}
	}()
	sctx, cancel := context.WithTimeout(ctx, host.DefaultStopTimeout)
	old, err := host.Stop(sctx, ws)
	cancel()
	stopped := err == nil
	if err != nil && !errors.Is(err, host.ErrNotRunning) {
		return withCode(ExitFailed, err)
	}
	if stopped && !o.json {
		fmt.Fprintf(s.out, "stopped the engine of %s (process %d%s)\n", old.Workspace, old.PID, builtAs(old.Version))
	}
	st, err := startDetached(ctx, s.hostBinary, ws, o)
	var running *host.ErrRunning
	if errors.As(err, &running) {
		cur, perr := host.Probe(ws)
		if perr != nil || !cur.Running || cur.Version != version() {
			return withCode(ExitFailed, fmt.Errorf("another client started a host before this one could (%w); it runs %s, this is %s",
				err, strings.TrimPrefix(builtAs(cur.Version), ", "), version()))
		}
		st, err = cur, nil
	}
	if err != nil {
		return withCode(ExitFailed, err)
	}
	return printDetached(st, o, s)
}

// builtAs names a host's build for a message: ", atelier V", or that it
// did not say.
func builtAs(v string) string {
	if v == "" {
		return ", an unknown build"
	}
	return ", atelier " + v
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
	if st.Listen != "" {
		fmt.Fprintf(s.out, "listening on TCP: %s\n", st.Listen)
	}
	switch st.IdleExit {
	case "":
	case "never":
		fmt.Fprintln(s.out, "exits when idle: never (until stopped)")
	default:
		fmt.Fprintf(s.out, "exits when idle: after %s with nothing running and no client attached\n", st.IdleExit)
	}
	if len(st.KeptAlive) > 0 {
		fmt.Fprintf(s.out, "kept alive by triggers: %s\n", strings.Join(st.KeptAlive, ", "))
	}
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
	// KeptAlive names the triggers that keep the host from its idle exit
	// ([] when none does).
	KeptAlive []string `json:"kept_alive"`
	// Listen is the TCP address it also serves on, "" for none; IdleExit
	// is when it exits idle ("10m0s", "never").
	Listen   string `json:"listen"`
	IdleExit string `json:"idle_exit"`
}

func printStatusJSON(st host.Status, s *streams) error {
	b, err := json.Marshal(serveStatusJSON{Running: st.Running, PID: st.PID, Socket: st.Socket,
		Version: st.Version, StartedAt: st.StartedAt, Workspace: st.Workspace, KeptAlive: append([]string{}, st.KeptAlive...),
		Listen: st.Listen, IdleExit: st.IdleExit})
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

// newNotifier starts the notification channels of cfg ([notify]); the
// caller closes them.
func newNotifier(cfg *config.Config, logf func(string, ...any)) *notify.Notifier {
	return notify.New(notify.Options{Logf: logf, Settings: notify.Settings{Command: cfg.Notify.Command,
		Desktop: cfg.Notify.Desktop, Events: cfg.Notify.Events, Timeout: cfg.Notify.Timeout}})
}

// notifications is n for the API, nil (no channels) when n is.
func notifications(n *notify.Notifier) api.Notifications {
	if n == nil {
		return nil
	}
	return n
}
