package core

import (
	"encoding/json"
	"github.com/atelier-studio/atelier/sessions"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// LeaseFile is the file in a session's folder that says which process owns
// it. The owner holds an exclusive flock on it for as long as it runs the
// session, so the lock vanishes with the process however it dies, and the
// next process that stays to run sessions takes the session over at once.
// The content (owner, pid, heartbeat) is for people and other processes to
// read; the lock is what counts.
const LeaseFile = "lease"

// heartbeatEvery is how often an owner rewrites its lease's heartbeat.
const heartbeatEvery = 5 * time.Second

// Lease is the content of a lease file.
type Lease struct {
	Owner     string    `json:"owner"`
	PID       int       `json:"pid"`
	Host      string    `json:"host"`
	Since     time.Time `json:"since"`
	Heartbeat time.Time `json:"heartbeat"`
}

// cutTorn cuts the torn tails a crash left on a session's logs, once this
// engine holds its lease (a reader never cuts: a line that looks torn may
// be one its owner is still writing). What it cut, or failed to, goes to
// the session's repair report.
func (e *Engine) cutTorn(id string) []sessions.Repair {
	reps, err := e.store.Log(id).CutTorn()
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

// claim tries to take a session's lease without waiting. It returns the
// open lease file, which holds the lock until closed.
func (e *Engine) claim(id string) (*os.File, bool) {
	if e.store.ReadOnly() {
		return nil, false // a read-only state runs nothing
	}
	// Never through a symlink: a planted lease must not make us truncate
	// another file.
	f, err := sessions.OpenStateFile(e.store.Dir(id), LeaseFile, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, false
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		dropLease(f)
		return nil, false
	}
	e.writeLease(f, e.opts.Now())
	return f, true
}

func (e *Engine) writeLease(f *os.File, since time.Time) {
	host, _ := os.Hostname()
	b, err := json.Marshal(Lease{Owner: e.owner, PID: os.Getpid(), Host: host, Since: since, Heartbeat: e.opts.Now()})
	if err == nil {
		err = f.Truncate(0)
	}
	if err == nil {
		_, err = f.WriteAt(append(b, '\n'), 0)
	}
	if err != nil {
		// The lock, not the content, makes the lease: a stale heartbeat only
		// makes `who owns it` less precise.
		e.bus.publish(Event{Kind: EvNotice, Text: "writing a session lease: " + err.Error()})
	}
}

// ReadLease returns who owns a session, if anyone: ok is false when no live
// process holds the lease.
func ReadLease(dir string) (Lease, bool) {
	f, err := sessions.OpenStateFile(dir, LeaseFile, os.O_RDONLY, 0)
	if err != nil {
		return Lease{}, false
	}
	defer dropLease(f)
	if err := unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB); err == nil {
		// Nobody holds it; closing the descriptor releases our probe.
		return Lease{}, false
	}
	var l Lease
	if b, err := io.ReadAll(io.LimitReader(f, 4096)); err == nil && json.Unmarshal(b, &l) != nil {
		l = Lease{} // held, but its content is torn: the owner is unknown
	}
	return l, true
}

// dropLease closes a lease file: the lock goes with the descriptor, and
// nothing is written through it that a failed close could lose.
func dropLease(f *os.File) { _ = f.Close() }
