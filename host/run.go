package host

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/notify"
	"github.com/atelier-studio/atelier/sessions"
)

// DefaultIdleExit is how long a host waits, once nothing runs and no
// client is attached, before it exits.
const DefaultIdleExit = 10 * time.Minute

// shutdownGrace bounds how long a stopping host waits for requests in
// flight before it closes their connections.
const shutdownGrace = 5 * time.Second

// Options configure Run.
type Options struct {
	// Workspace is the folder whose engine is hosted.
	Workspace string
	// Open opens the engine on the workspace (its real path) with the
	// caller's agents and configuration. Required.
	Open func(workspace string) (*core.Engine, error)
	// Handler builds the HTTP API over the engine; hold counts a client
	// that the server no longer sees (a hijacked connection) until the
	// returned release is called. Nil serves only GET /v1/health.
	Handler func(e *core.Engine, hold func() (release func())) http.Handler
	// IdleExit is the idle grace: 0 means DefaultIdleExit, a negative
	// value never exits on idle.
	IdleExit time.Duration
	// Version is the build's version, written into the record.
	Version string
	// Logf receives the host's log lines; nil drops them.
	Logf func(format string, args ...any)
	// Ready, when set, is called once the socket accepts connections.
	Ready func(Record)
	// TCP, when set, also serves the API on TCP, guarded (see TCP).
	TCP *TCP
	// Notifier, when set, tells the operator through its channels of each
	// approval, question and stuck report opened while no studio is
	// attached (notify.go). Nil notifies nothing: a host inside a studio
	// (--in-process) leaves it nil, its studio being always there. The
	// caller closes it after Run returns.
	Notifier *notify.Notifier
	// NotifyAfter is how long a notification waits for an answer or a
	// studio first; 0 means DefaultNotifyAfter.
	NotifyAfter time.Duration
	// Companion, when set, starts what runs beside the engine on its
	// host (the workspace's triggers) once the engine is open, before the
	// API serves. The host stops it before it closes the engine, and
	// never exits on idle while it names reasons to stay (KeepAlive).
	Companion func(e *core.Engine) (Companion, error)
	// Reconfigure, when set, watches the configuration's files while the
	// host serves and applies a change at its next boundary (reload.go).
	Reconfigure *Reconfigure
}

// Companion is what runs beside a host's engine for the host's life.
type Companion interface {
	// KeepAlive says why the host must stay up although idle (a schedule
	// to keep); nil when nothing keeps it.
	KeepAlive() []string
	// Stop stops it; it is called before the engine closes.
	Stop() error
}

// Run hosts a workspace's engine until ctx ends, the idle grace passes or
// the engine fails to serve: it takes the workspace's lock (an *ErrRunning
// when another process holds it), writes the record, opens the engine,
// serves the API on the socket, and on the way out closes the listener and
// the engine (sessions stay resumable), removes the socket and the records
// and releases the lock.
func Run(ctx context.Context, opts Options) (err error) {
	if opts.Open == nil {
		return errors.New("host: no way to open the engine")
	}
	if opts.TCP != nil {
		if err := CheckTCP(*opts.TCP); err != nil {
			return err
		}
	}
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	ws, err := realWorkspace(opts.Workspace)
	if err != nil {
		return err
	}
	st, p, lock, err := lockWorkspace(ws)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, releaseLock(lock)) }()

	rec := Record{PID: os.Getpid(), Socket: p.Socket, Version: opts.Version, StartedAt: time.Now().UTC().Truncate(time.Second), Workspace: ws}
	if err := writeRecord(p.Record, rec); err != nil {
		return err
	}
	defer func() { err = errors.Join(err, removeOwnRecord(p.Record)) }()

	e, err := opts.Open(ws)
	if err != nil {
		return fmt.Errorf("open the engine: %w", err)
	}
	comp := Companion(noCompanion{})
	if opts.Companion != nil {
		if comp, err = opts.Companion(e); err != nil {
			return errors.Join(err, e.Close())
		}
		rec.KeptAlive = comp.KeepAlive() // recorded with the rest below
	}
	// The companion stops before the engine closes, on every way out.
	ln, err := listen(p.Socket)
	if err != nil {
		return errors.Join(err, comp.Stop(), e.Close())
	}
	defer func() { err = errors.Join(err, removeSocket(p.Socket)) }()
	var tcp net.Listener
	if opts.TCP != nil {
		if tcp, err = listenTCP(*opts.TCP); err != nil {
			return errors.Join(err, ln.Close(), comp.Stop(), e.Close())
		}
	}
	// The record says what --status reports: the TCP address, and when
	// (if ever) the host exits idle.
	grace := idleGrace(opts.IdleExit, rec.KeptAlive)
	rec.IdleExit = "never"
	if grace > 0 {
		rec.IdleExit = grace.String()
	}
	if tcp != nil {
		rec.Listen = tcp.Addr().String()
	}
	if werr := writeRecord(p.Record, rec); werr != nil {
		return errors.Join(werr, closeAll(tcp), ln.Close(), comp.Stop(), e.Close())
	}
	if !st.ReadOnly() {
		if werr := writeRecord(engineFile(ws), rec); werr != nil {
			// The record in the runtime directory still says it all.
			logf("cannot write %s: %v", engineFile(ws), werr)
		} else {
			defer func() { err = errors.Join(err, removeOwnRecord(engineFile(ws))) }()
		}
	}
	return serve(ctx, e, comp, listeners{unix: ln, tcp: tcp}, rec, grace, opts, logf)
}

// idleGrace is how long the host waits idle before it exits: the option
// (0: DefaultIdleExit), or never (-1) when the option says so or triggers
// keep the host alive.
func idleGrace(opt time.Duration, keptAlive []string) time.Duration {
	if opt == 0 {
		opt = DefaultIdleExit
	}
	if len(keptAlive) > 0 && opt > 0 {
		return -1
	}
	return opt
}

// closeAll closes a listener that may be nil.
func closeAll(l net.Listener) error {
	if l == nil {
		return nil
	}
	return l.Close()
}

// noCompanion is the companion of a host that runs none.
type noCompanion struct{}

func (noCompanion) KeepAlive() []string { return nil }
func (noCompanion) Stop() error         { return nil }

// listeners are what a host serves on: its unix socket, and a TCP
// listener when asked.
type listeners struct {
	unix, tcp net.Listener
}

// lockWorkspace opens the workspace's state and takes its host lock. The
// lock is named by the state's id: when the id changed between the two
// (another process made the state at the same moment and wrote its own),
// the lock taken is the wrong one and is taken again under the new id.
func lockWorkspace(ws string) (*sessions.Store, Paths, *os.File, error) {
	dir, err := RuntimeDir(os.Getenv)
	if err != nil {
		return nil, Paths{}, nil, err
	}
	for range 3 {
		st, err := sessions.Open(ws)
		if err != nil {
			return nil, Paths{}, nil, err
		}
		id := st.Trust().ID
		p, err := pathsIn(dir, ws, id)
		if err != nil {
			return nil, Paths{}, nil, err
		}
		lock, err := takeLock(p.Lock)
		if errors.Is(err, errLocked) {
			return nil, Paths{}, nil, runningErr(p)
		}
		if err != nil {
			return nil, Paths{}, nil, err
		}
		if stateID(ws) == id {
			return st, p, lock, nil
		}
		if err := releaseLock(lock); err != nil {
			return nil, Paths{}, nil, err
		}
	}
	return nil, Paths{}, nil, fmt.Errorf("the state id of %s keeps changing: another program rewrites %s", ws, filepath.Join(ws, sessions.StateDir, "id"))
}

// serve runs the HTTP server until ctx ends, the host is idle for grace
// (never when negative) or the server fails, then stops it and closes the
// engine.
func serve(ctx context.Context, e *core.Engine, comp Companion, ls listeners, rec Record, grace time.Duration, opts Options, logf func(string, ...any)) error {
	c := newClients()
	h := healthHandler(rec)
	if opts.Handler != nil {
		h = opts.Handler(e, c.hold)
	}
	var st studios
	h = st.track(h)
	if opts.Notifier != nil {
		delay := opts.NotifyAfter
		if delay <= 0 {
			delay = DefaultNotifyAfter
		}
		w := newWatcher(e, opts.Notifier, st.attached, delay)
		wctx, stopWatch := context.WithCancel(ctx)
		watched := make(chan struct{})
		go func() {
			defer close(watched)
			w.run(wctx)
		}()
		defer func() { stopWatch(); <-watched }()
	}
	// The watch stops before the companion does: a reload re-arms the
	// companion's triggers, never while it stops.
	stopReloads := func() {}
	if opts.Reconfigure != nil {
		// Watching from before Ready: a change made once the host answers
		// is never missed.
		rctx, stopReload := context.WithCancel(ctx)
		reloaded, err := startConfigWatch(rctx, e, *opts.Reconfigure, logf)
		if err != nil {
			stopReload()
			// The host serves on with the configuration it has; it says so.
			msg := fmt.Sprintf("configuration changes apply only when the host restarts: %v", err)
			e.Notice("", msg)
			logf("%s", msg)
		} else {
			stopReloads = func() { stopReload(); <-reloaded }
		}
	}
	// Both servers record each caller's process (peer.go, tcppeer.go).
	srv := &http.Server{Handler: h, ConnState: c.connState, ConnContext: ConnContext, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 2)
	go func() { served <- srv.Serve(ls.unix) }()
	servers := []*http.Server{srv}
	logf("hosting the engine of %s on %s (pid %d)", rec.Workspace, rec.Socket, rec.PID)
	if ls.tcp != nil {
		tsrv := &http.Server{Handler: opts.TCP.Guard(h), ConnState: c.connState, ConnContext: ConnContext, ReadHeaderTimeout: 10 * time.Second,
			ErrorLog: log.New(logWriter(logf), "", 0)}
		go func() { served <- tsrv.Serve(ls.tcp) }()
		servers = append(servers, tsrv)
		scheme := "http"
		if opts.TCP.CertFile != "" {
			scheme = "https"
		}
		logf("serving the API on %s://%s (a bearer token is required)", scheme, ls.tcp.Addr())
	}
	if len(rec.KeptAlive) > 0 {
		// Its triggers fire by themselves: the host waits for them.
		logf("kept alive by triggers: %s", strings.Join(rec.KeptAlive, ", "))
	}

	if opts.Ready != nil {
		opts.Ready(rec)
	}
	idle := make(chan struct{})
	idleCtx, stopIdle := context.WithCancel(ctx)
	defer stopIdle()
	if grace > 0 {
		go func() {
			waitIdle(idleCtx, e, c, grace)
			close(idle)
		}()
	}

	var serveErr error
	select {
	case <-ctx.Done():
		logf("stopping: %v", context.Cause(ctx))
	case <-idle:
		if ctx.Err() == nil {
			logf("stopping: idle for %s with nothing running and no client attached", grace)
		}
	case serveErr = <-served:
		serveErr = fmt.Errorf("serve the engine's API: %w", serveErr)
	}
	stopReloads()
	cerr := comp.Stop()
	if cerr != nil {
		cerr = fmt.Errorf("stop the workspace's triggers: %w", cerr)
	}
	return errors.Join(serveErr, cerr, shutdown(servers, e))
}

// shutdown stops accepting connections, closes the engine (which ends the
// event streams) and waits a little for requests in flight.
func shutdown(servers []*http.Server, e *core.Engine) error {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	var wg sync.WaitGroup
	for _, srv := range servers {
		wg.Go(func() {
			if err := srv.Shutdown(ctx); err != nil {
				// Requests still in flight past the grace: cut them.
				_ = srv.Close() // the listener is already closed; connections are cut either way
			}
		})
	}
	cerr := e.Close()
	if cerr != nil {
		cerr = fmt.Errorf("close the engine: %w", cerr)
	}
	wg.Wait()
	return cerr
}

// logWriter turns an http.Server's error log (TLS handshakes that fail,
// mostly) into log lines.
type logWriter func(string, ...any)

func (l logWriter) Write(b []byte) (int, error) {
	l("%s", strings.TrimSuffix(string(b), "\n"))
	return len(b), nil
}

// listen removes a socket file a dead host left (the caller holds the
// lock) and listens on a fresh one, owner-only.
func listen(path string) (net.Listener, error) {
	if err := removeSocket(path); err != nil {
		return nil, err
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	// The folder is owner-only already; the socket is too.
	if err := os.Chmod(path, 0o600); err != nil {
		return nil, errors.Join(fmt.Errorf("make %s owner-only: %w", path, err), ln.Close())
	}
	// Closing the listener must not unlink the path: removeSocket does
	// that while the lock is still held.
	if ul, ok := ln.(*net.UnixListener); ok {
		ul.SetUnlinkOnClose(false)
	}
	return ln, nil
}

// removeSocket removes the socket file at path, refusing anything that is
// not a socket.
func removeSocket(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("the host socket: %w", err)
	}
	if fi.Mode()&os.ModeSocket == 0 {
		return fmt.Errorf("%w: %s exists and is not a socket", ErrUnsafeRuntimeDir, path)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove the stale socket %s: %w", path, err)
	}
	return nil
}

func releaseLock(f *os.File) error {
	if err := f.Close(); err != nil {
		return fmt.Errorf("release the host lock: %w", err)
	}
	return nil
}

// runningErr describes the host that holds the lock.
func runningErr(p Paths) error {
	e := &ErrRunning{Workspace: p.Workspace, Socket: p.Socket}
	if r, err := readRecord(p.Record); err == nil {
		e.PID = r.PID
	}
	return e
}
