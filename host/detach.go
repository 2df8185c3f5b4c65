package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/atelier-studio/atelier/sessions"
)

// DefaultDetachTimeout bounds how long Detach waits for a new host to
// answer.
const DefaultDetachTimeout = 10 * time.Second

// logTail is how much of a failed host's log Detach reports.
const logTail = 2 << 10

// Client returns an HTTP client whose every request goes to the unix
// socket at path, whatever the URL's host (http://atelier/v1/health).
func Client(socket string) *http.Client {
	var d net.Dialer
	return &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return d.DialContext(ctx, "unix", socket)
		},
		DisableKeepAlives: true,
	}}
}

// Healthy reports whether the host on socket answers GET /v1/health.
func Healthy(ctx context.Context, socket string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://atelier/v1/health", nil)
	if err != nil {
		return false
	}
	resp, err := Client(socket).Do(req)
	if err != nil {
		return false
	}
	_ = resp.Body.Close() // only the status matters
	return resp.StatusCode == http.StatusOK
}

// Detach starts argv, a command line that hosts the workspace's engine
// (`atelier serve DIR`), as a detached process: in a session of its own,
// stdin from /dev/null, its output appended to .state/engine.log (or, when
// the state cannot be written, to <key>.log in the runtime directory). It
// returns once the new host answers on its socket, with its status; an
// *ErrRunning when a host already runs (or another one won the start); an
// error with the end of the log when the process exits first or does not
// answer before ctx ends (DefaultDetachTimeout when ctx has no deadline).
// While another process hands the host over (BeginHandOver), it first
// waits for the successor, which it then reports as an *ErrRunning.
func Detach(ctx context.Context, workspace string, argv []string) (Status, error) {
	if len(argv) == 0 {
		return Status{}, errors.New("detach: no command")
	}
	p, st, err := locate(workspace)
	if err != nil {
		return Status{}, err
	}
	// While another process restarts the host, its successor is the
	// workspace's: wait for it rather than race it with a plain host.
	if _, err := awaitHandOver(ctx, p); err != nil {
		return Status{Workspace: p.Workspace, Socket: p.Socket}, err
	}
	if s, err := statusAt(p); err != nil || s.Running {
		if err == nil {
			err = &ErrRunning{Workspace: p.Workspace, PID: s.PID, Socket: p.Socket}
		}
		return s, err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultDetachTimeout)
		defer cancel()
	}
	logf, logPath, err := openLog(p, st)
	if err != nil {
		return Status{}, err
	}
	from, _ := logf.Seek(0, io.SeekEnd) // where this run's output starts; 0 if unknown
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = p.Workspace
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	cerr := logf.Close() // the child has its own descriptor
	if err != nil {
		return Status{}, fmt.Errorf("start the host: %w", err)
	}
	if cerr != nil {
		return Status{}, fmt.Errorf("start the host: %s: %w", logPath, cerr)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	return awaitHost(ctx, p, cmd.Process.Pid, exited, logPath, from)
}

// awaitHost waits until the host started as pid answers, exits or ctx
// ends. Waiting on another process, it checks every 50 ms.
func awaitHost(ctx context.Context, p Paths, pid int, exited <-chan error, logPath string, from int64) (Status, error) {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case werr := <-exited:
			s, err := statusAt(p)
			if err == nil && s.Running && s.PID != pid {
				// Another start won: that host is the workspace's.
				return s, &ErrRunning{Workspace: p.Workspace, PID: s.PID, Socket: p.Socket}
			}
			return s, fmt.Errorf("the host (pid %d) exited before it answered (%w); %s ends with:\n%s",
				pid, werr, logPath, tail(logPath, from))
		case <-ctx.Done():
			return Status{Workspace: p.Workspace, Socket: p.Socket}, fmt.Errorf("the host (pid %d) did not answer on %s: %w; %s ends with:\n%s",
				pid, p.Socket, context.Cause(ctx), logPath, tail(logPath, from))
		case <-tick.C:
			hctx, cancel := context.WithTimeout(ctx, time.Second)
			ok := Healthy(hctx, p.Socket)
			cancel()
			if ok {
				return statusAt(p)
			}
		}
	}
}

// locate is Locate that also returns the workspace's store.
func locate(workspace string) (Paths, *sessions.Store, error) {
	ws, err := realWorkspace(workspace)
	if err != nil {
		return Paths{}, nil, err
	}
	st, err := sessions.Open(ws)
	if err != nil {
		return Paths{}, nil, err
	}
	dir, err := RuntimeDir(os.Getenv)
	if err != nil {
		return Paths{}, nil, err
	}
	p, err := pathsIn(dir, ws, st.Trust().ID)
	return p, st, err
}

// openLog opens the detached host's log for appending: .state/engine.log,
// or the runtime directory's when the state is read-only.
func openLog(p Paths, st *sessions.Store) (*os.File, string, error) {
	if !st.ReadOnly() {
		dir := filepath.Join(p.Workspace, sessions.StateDir)
		f, err := sessions.OpenStateFile(dir, LogFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err == nil {
			return f, filepath.Join(dir, LogFile), nil
		}
	}
	f, err := os.OpenFile(p.Log, os.O_WRONLY|os.O_CREATE|os.O_APPEND|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, "", fmt.Errorf("open the host's log: %w", err)
	}
	return f, p.Log, nil
}

// tail returns the end of what a log got from offset from on.
func tail(path string, from int64) string {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return "(unreadable: " + err.Error() + ")"
	}
	defer func() { _ = f.Close() }() // read-only
	if fi, err := f.Stat(); err == nil && fi.Size()-from > logTail {
		from = fi.Size() - logTail
	}
	b, err := io.ReadAll(io.NewSectionReader(f, from, logTail))
	if err != nil {
		return "(unreadable: " + err.Error() + ")"
	}
	return strings.TrimRight(string(b), "\n")
}
