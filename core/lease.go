package core

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/atelier-studio/atelier/sessions"
	"golang.org/x/sys/unix"
)

// LeaseFile is the file in the workspace's state folder that says which
// process runs the workspace's engine. A running engine holds an exclusive
// flock on it for its whole life, so there is never more than one engine
// running a workspace's sessions, and the lock vanishes with the process
// however it dies: the next engine recovers the sessions at once. The
// content (pid, since) is for people and error messages; the lock is what
// counts. Other processes never read the store as a channel: they are
// clients of that engine's host.
const LeaseFile = "engine.lock"

// Lease is the content of the lease file.
type Lease struct {
	Owner string    `json:"owner"`
	PID   int       `json:"pid"`
	Host  string    `json:"host"`
	Since time.Time `json:"since"`
}

// leaseWait bounds how long a running engine waits, at open, for a lease
// that is being let go of: a host handing over to the next, or a short
// command writing a record while no engine ran.
const leaseWait = 5 * time.Second

// ErrEngineElsewhere is the error (wrapped in a *BusyError) of writing
// through an engine while another process runs the workspace's engine:
// the writes go through that engine's host, never around it.
var ErrEngineElsewhere = errors.New("another process runs the workspace's engine")

// BusyError says which process holds the workspace's engine.
type BusyError struct{ Lease Lease }

func (e *BusyError) Error() string {
	if e.Lease.PID == 0 {
		return ErrEngineElsewhere.Error()
	}
	return fmt.Sprintf("%v (pid %d, since %s)", ErrEngineElsewhere, e.Lease.PID, e.Lease.Since.Local().Format(time.DateTime))
}

func (e *BusyError) Unwrap() error { return ErrEngineElsewhere }

// engineLease is the workspace's lease as one engine takes and holds
// it: a part of the engine, guarded by the engine's lock (Open and Close
// take and drop it alone).
type engineLease struct {
	ws    string
	dir   string // the state folder, which holds the lease
	owner string // names the engine in the lease
	now   func() time.Time
	// readOnly, when set, refuses every take: a read-only state runs
	// nothing and writes nothing.
	readOnly error
	// warn says what went wrong that does not stop the engine.
	warn func(error)
	f    *os.File
	keep bool // Close leaves the lease to Destroy
	// prev is what the lease said when this engine took it: the last
	// process that held it, which a recovery names when the turn's own
	// audit lines do not say who ran it.
	prev Lease
}

// take takes the workspace's lease, waiting up to wait for a holder that
// is letting go; it is kept until drop.
func (el *engineLease) take(wait time.Duration) error {
	if el.readOnly != nil {
		return el.readOnly
	}
	// Never through a symlink: a planted lease must not make us truncate
	// another file.
	f, err := sessions.OpenStateFile(el.dir, LeaseFile, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("open the workspace's engine lease: %w", err)
	}
	deadline := time.Now().Add(wait)
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, unix.EWOULDBLOCK) {
			_ = f.Close() // nothing written through it
			return fmt.Errorf("lock the workspace's engine lease: %w", err)
		}
		if !time.Now().Before(deadline) {
			_ = f.Close()
			l, _ := ReadLease(el.ws)
			return &BusyError{Lease: l}
		}
		time.Sleep(20 * time.Millisecond)
	}
	el.prev = readLeaseContent(f)
	host, _ := os.Hostname()
	b, err := json.Marshal(Lease{Owner: el.owner, PID: os.Getpid(), Host: host, Since: el.now()})
	if err == nil {
		err = f.Truncate(0)
	}
	if err == nil {
		_, err = f.WriteAt(append(b, '\n'), 0)
	}
	if err != nil && el.warn != nil {
		// The lock, not the content, makes the lease: a torn content only
		// makes "who runs it" less precise.
		el.warn(fmt.Errorf("writing the workspace's engine lease: %w", err))
	}
	el.f = f
	return nil
}

// drop lets the lease go: the lock goes with the descriptor, and nothing
// is written through it that a failed close could lose.
func (el *engineLease) drop() {
	if el.f != nil {
		_ = el.f.Close()
		el.f = nil
	}
}

// held says whether the engine holds the workspace's lease.
func (el *engineLease) held() bool { return el.f != nil }

// while runs a passive engine's write while it holds the lease, so no
// engine opens (and reads the store) halfway through it; a running engine
// holds it already. While an engine runs the workspace elsewhere it
// refuses with a *BusyError: the write goes through that engine's host,
// never around it. The engine's lock is held.
func (el *engineLease) while(write func() error) error {
	if el.held() {
		return write()
	}
	if err := el.take(0); err != nil {
		return err
	}
	defer el.drop()
	return write()
}

// ReadLease returns which process runs a workspace's engine, if any: ok is
// false when no live process holds the lease.
func ReadLease(workspace string) (Lease, bool) {
	f, err := sessions.OpenStateFile(filepath.Join(workspace, sessions.StateDir), LeaseFile, os.O_RDONLY, 0)
	if err != nil {
		return Lease{}, false
	}
	defer func() { _ = f.Close() }() // read only
	if err := unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB); err == nil {
		// Nobody holds it; closing the descriptor releases our probe.
		return Lease{}, false
	}
	return readLeaseContent(f), true
}

// readLeaseContent reads what a lease file says; a torn or unreadable
// content is an unknown owner (the zero Lease), never an error: the lock,
// not the content, makes the lease.
func readLeaseContent(f *os.File) Lease {
	var l Lease
	b, err := io.ReadAll(io.NewSectionReader(f, 0, 4096))
	if err != nil || json.Unmarshal(b, &l) != nil {
		return Lease{}
	}
	return l
}

// cutTorn cuts the torn tails a crash left on a session's logs; only the
// engine holding the lease cuts (a reader never does: a line that looks
// torn may be one the engine is still writing). What it cut, or failed
// to, goes to the session's repair report.
func cutTorn(store *sessions.Store, id string) []sessions.Repair {
	reps, err := store.Log(id).CutTorn()
	if err != nil {
		reps = append(reps, sessions.Repair{File: id, Action: "a torn last line could not be cut: " + err.Error()})
	}
	return reps
}

// withCut adds what cutTorn cut to a repair report read before the cut,
// in place of the reader's "skipped" for the same file: one torn line is
// one repair.
func withCut(reps, cut []sessions.Repair) []sessions.Repair {
	if len(cut) == 0 {
		return reps
	}
	files := map[string]bool{}
	for _, c := range cut {
		files[c.File] = true
	}
	out := make([]sessions.Repair, 0, len(reps)+len(cut))
	for _, r := range reps {
		if files[r.File] && strings.HasPrefix(r.Action, "torn last line skipped") {
			continue
		}
		out = append(out, r)
	}
	return append(out, cut...)
}
