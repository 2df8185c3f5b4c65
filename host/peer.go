package host

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/atelier-studio/atelier/core"
)

// The socket's callers. The host reads the process id of each client of
// its unix socket when it connects (SO_PEERCRED), so the API can refuse a
// process the host started — a session's agent or command, or anything
// they started — the answers and policy changes that would let an agent
// approve itself.
//
// Which processes the host started is read from the process tree, not
// from the engine: the caller descends from the host, or its process
// group's or session's leader does (agents and commands run in process
// groups of their own, and a double fork that leaves a process orphaned,
// re-parented out of the host's tree, keeps its group and session). A
// process that also leaves its group and session (setsid after a double
// fork) escapes the check: local execution is not a sandbox.

// peerKey keys a connection's peer in its context.
type peerKey struct{}

// peer is the process at the other end of a unix socket connection.
type peer struct {
	pid int
	uid int
	// more are other processes holding the same socket (a TCP client's
	// descriptor inherited across a fork): each is vetted too.
	more []int
	err  error
}

// ConnContext records the peer of a connection in its context, for
// SpawnedCaller and CallerUser (http.Server.ConnContext): a unix socket's
// at once, a TCP one's when asked (tcppeer.go). The host's servers use it;
// so does anything that serves the API as the host does (the contract
// test).
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	if uc, ok := c.(*net.UnixConn); ok {
		return context.WithValue(ctx, peerKey{}, peerOf(uc))
	}
	if tc := tcpConn(c); tc != nil {
		return context.WithValue(ctx, peerKey{}, &tcpPeer{conn: tc})
	}
	return ctx
}

// peerFrom is the peer recorded for r's connection; remote is true for a
// TCP client on another machine.
func peerFrom(r *http.Request) (p peer, remote, ok bool) {
	switch v := r.Context().Value(peerKey{}).(type) {
	case peer:
		return v, false, true
	case *tcpPeer:
		p, remote := v.get()
		return p, remote, true
	}
	return peer{}, false, false
}

func peerOf(c *net.UnixConn) peer {
	raw, err := c.SyscallConn()
	if err != nil {
		return peer{err: fmt.Errorf("the caller's credentials: %w", err)}
	}
	var p peer
	if err := raw.Control(func(fd uintptr) {
		cred, err := unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
		if err != nil {
			p.err = fmt.Errorf("the caller's credentials: %w", err)
			return
		}
		p.pid, p.uid = int(cred.Pid), int(cred.Uid)
	}); err != nil {
		return peer{err: fmt.Errorf("the caller's credentials: %w", err)}
	}
	return p
}

// CallerUser says who sent r, for the audit log: the user of the process
// at the other end of the unix socket ("uid 1000 (alice)"), or the TCP
// peer's address, which only proved it holds the token. The TCP peer's
// process is not looked up for this: that walk is for the approver
// routes alone.
func CallerUser(r *http.Request) string {
	if p, ok := r.Context().Value(peerKey{}).(peer); ok && p.err == nil {
		return core.UserOf(p.uid)
	}
	return "tcp " + r.RemoteAddr
}

// SpawnedCaller reports whether the process that sent r over the host's
// unix socket, or over TCP from this machine, was started by this host
// (see the top of this file and tcppeer.go); a TCP client on another
// machine was not. It is an error when r came over neither listener or
// the caller's process cannot be read (it exited, or is another user's):
// callers refuse the request then.
func SpawnedCaller(r *http.Request) (bool, error) {
	p, remote, ok := peerFrom(r)
	if !ok {
		return false, errors.New("the request did not come over the host's socket or TCP listener")
	}
	if remote || p.err != nil {
		return false, p.err
	}
	if s, err := spawnedBy(p.pid, os.Getpid()); err != nil || s {
		return s, err
	}
	for _, pid := range p.more {
		// Another holder that is gone tells nothing.
		if s, err := spawnedBy(pid, os.Getpid()); err == nil && s {
			return true, nil
		}
	}
	return false, nil
}

// spawnedBy reports whether pid, or the leader of its process group or
// session, descends from the process host.
func spawnedBy(pid, host int) (bool, error) {
	st, err := readStat(pid)
	if err != nil {
		return false, fmt.Errorf("the caller (process %d): %w", pid, err)
	}
	for _, c := range []int{pid, st.pgrp, st.session} {
		if c <= 1 || c == host {
			continue
		}
		d, err := descends(c, host)
		if err != nil && c == pid {
			return false, fmt.Errorf("the caller (process %d): %w", pid, err)
		}
		// A group or session leader that is gone tells nothing.
		if err == nil && d {
			return true, nil
		}
	}
	return false, nil
}

// maxDepth bounds the walk up the process tree.
const maxDepth = 4096

// descends reports whether pid is a descendant of ancestor, walking up
// through each process's parent.
func descends(pid, ancestor int) (bool, error) {
	for range maxDepth {
		st, err := readStat(pid)
		if err != nil {
			return false, err
		}
		if st.ppid == ancestor {
			return true, nil
		}
		if st.ppid <= 1 {
			return false, nil
		}
		pid = st.ppid
	}
	return false, fmt.Errorf("the process tree above %d is deeper than %d", pid, maxDepth)
}

// procStat is what the check reads of /proc/PID/stat.
type procStat struct {
	ppid, pgrp, session int
}

func readStat(pid int) (procStat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, err
	}
	// pid (comm) state ppid pgrp session ...: comm may hold spaces and
	// parentheses, so the fields are counted from the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procStat{}, fmt.Errorf("/proc/%d/stat: unexpected form", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 4 {
		return procStat{}, fmt.Errorf("/proc/%d/stat: unexpected form", pid)
	}
	var st procStat
	var errs [3]error
	st.ppid, errs[0] = strconv.Atoi(f[1])
	st.pgrp, errs[1] = strconv.Atoi(f[2])
	st.session, errs[2] = strconv.Atoi(f[3])
	if err := errors.Join(errs[:]...); err != nil {
		return procStat{}, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return st, nil
}
