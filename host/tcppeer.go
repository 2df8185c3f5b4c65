package host

import (
	"bufio"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// The TCP listener's callers. A process on this machine can read the
// token file as well as a person can, so a TCP connection from this
// machine is vetted as the socket's are: its client endpoint is looked up
// in this network namespace's socket tables (/proc/net/tcp and tcp6),
// the socket's inode leads to the processes holding it (/proc/PID/fd),
// and each goes through the same ancestry test. A connection whose client
// endpoint is in no table here came from another machine (or another
// network namespace): that is the token holder, as docs/api.md says.
//
// The lookup costs a walk over /proc, so it runs once per connection and
// only when a request asks (an approver route), not on accept.

// tcpPeer is the lazily found process at the other end of a TCP
// connection.
type tcpPeer struct {
	once   sync.Once
	conn   net.Conn
	p      peer
	remote bool
}

// get finds the peer the first time it is asked for.
func (t *tcpPeer) get() (peer, bool) {
	t.once.Do(func() {
		t.p, t.remote = findTCPPeer(t.conn)
		t.conn = nil
	})
	return t.p, t.remote
}

// tcpConn is the TCP connection under c (a TLS one is unwrapped), or nil.
func tcpConn(c net.Conn) *net.TCPConn {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	t, _ := c.(*net.TCPConn)
	return t
}

// findTCPPeer finds the process that holds the client end of c. remote
// is true when the client end is not on this machine's tables at all.
func findTCPPeer(c net.Conn) (p peer, remote bool) {
	client, ok1 := c.RemoteAddr().(*net.TCPAddr)
	server, ok2 := c.LocalAddr().(*net.TCPAddr)
	if !ok1 || !ok2 {
		return peer{err: errors.New("the connection is not TCP")}, false
	}
	inode, uid, found, err := socketInode(client, server)
	if err != nil {
		return peer{err: fmt.Errorf("the caller's socket: %w", err)}, false
	}
	if !found {
		if client.IP.IsLoopback() {
			return peer{err: fmt.Errorf("the caller's socket (%s) is in no table here", client)}, false
		}
		return peer{}, true
	}
	pids, err := socketHolders(inode)
	if err != nil {
		return peer{err: fmt.Errorf("the caller's process: %w", err)}, false
	}
	if len(pids) == 0 {
		return peer{err: fmt.Errorf("no process holds the caller's socket (%s, uid %d) that this host may read", client, uid)}, false
	}
	return peer{pid: pids[0], uid: uid, more: pids[1:]}, false
}

// procNet is where this network namespace's socket tables are read.
const procNet = "/proc/net/"

// socketInode looks up the socket whose local end is client and remote
// end is server in /proc/net/tcp and tcp6.
func socketInode(client, server *net.TCPAddr) (inode string, uid int, found bool, err error) {
	for _, table := range []string{"tcp", "tcp6"} {
		inode, uid, found, err = scanTable(procNet+table, client, server)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", 0, false, err
		}
		if found {
			return inode, uid, true, nil
		}
	}
	return "", 0, false, nil
}

// scanTable reads one table: "sl local rem st queues tr retr uid timeout
// inode ...", addresses as hex words in host order and a hex port.
func scanTable(path string, client, server *net.TCPAddr) (string, int, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, false, err
	}
	defer func() { _ = f.Close() }() // read only
	sc := bufio.NewScanner(f)
	sc.Scan() // the heading
	for sc.Scan() {
		fl := strings.Fields(sc.Text())
		if len(fl) < 10 {
			continue
		}
		local, err1 := parseProcAddr(fl[1])
		rem, err2 := parseProcAddr(fl[2])
		if err1 != nil || err2 != nil || !sameAddr(local, client) || !sameAddr(rem, server) {
			continue
		}
		uid, err := strconv.Atoi(fl[7])
		if err != nil {
			return "", 0, false, fmt.Errorf("%s: uid %q", path, fl[7])
		}
		return fl[9], uid, true, nil
	}
	return "", 0, false, sc.Err()
}

// sameAddr compares endpoints, an IPv4 address equal to its IPv6-mapped
// form.
func sameAddr(a, b *net.TCPAddr) bool {
	return a.Port == b.Port && a.IP.Equal(b.IP)
}

// parseProcAddr reads "0100007F:1F90": the address's 32-bit words, each
// printed as a number in the machine's (little-endian) order, then the
// port.
func parseProcAddr(s string) (*net.TCPAddr, error) {
	h, p, ok := strings.Cut(s, ":")
	if !ok {
		return nil, fmt.Errorf("address %q", s)
	}
	b, err := hex.DecodeString(h)
	if err != nil || (len(b) != 4 && len(b) != 16) {
		return nil, fmt.Errorf("address %q", s)
	}
	for i := 0; i < len(b); i += 4 {
		b[i], b[i+1], b[i+2], b[i+3] = b[i+3], b[i+2], b[i+1], b[i]
	}
	port, err := strconv.ParseUint(p, 16, 16)
	if err != nil {
		return nil, fmt.Errorf("port %q", s)
	}
	return &net.TCPAddr{IP: net.IP(b), Port: int(port)}, nil
}

// socketHolders lists the processes with a descriptor on socket inode,
// among those this process may read.
func socketHolders(inode string) ([]int, error) {
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	want := "socket:[" + inode + "]"
	var pids []int
	for _, d := range procs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		dir := filepath.Join("/proc", d.Name(), "fd")
		fds, err := os.ReadDir(dir)
		if err != nil {
			continue // gone, or another user's
		}
		for _, fd := range fds {
			if l, err := os.Readlink(filepath.Join(dir, fd.Name())); err == nil && l == want {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids, nil
}
