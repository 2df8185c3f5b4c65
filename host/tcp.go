package host

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
)

// TCP configures a host's TCP listener, served besides the unix socket.
type TCP struct {
	// Addr is where to listen, host:port. A host that is not loopback
	// (an IP address of this machine, a name other than localhost, or
	// none: every interface) requires TLS.
	Addr string
	// CertFile and KeyFile, both or neither, are a PEM certificate and
	// its key: with them the listener serves TLS.
	CertFile, KeyFile string
	// Guard wraps the API for this listener. TCP always requires a bearer
	// token (api.Remote); Run refuses a TCP listener without a guard.
	Guard func(http.Handler) http.Handler
}

// ErrPlainRemote is returned for a TCP address that is not loopback when
// no certificate is given: the token would cross the network in clear.
var ErrPlainRemote = errors.New("a TCP address that is not loopback requires TLS")

// CheckTCP checks a TCP listener's configuration before anything starts.
func CheckTCP(t TCP) error {
	host, _, err := net.SplitHostPort(t.Addr)
	if err != nil {
		return fmt.Errorf("listen address %q: want HOST:PORT (127.0.0.1:7420): %w", t.Addr, err)
	}
	if (t.CertFile == "") != (t.KeyFile == "") {
		return errors.New("give both the TLS certificate and its key, or neither")
	}
	if t.CertFile == "" && !loopback(host) {
		return fmt.Errorf("%w: %s (give --tls-cert and --tls-key, or listen on 127.0.0.1 and forward the port with ssh -L)", ErrPlainRemote, t.Addr)
	}
	if t.Guard == nil {
		return errors.New("a TCP listener without a guard: it must require a token")
	}
	return nil
}

// loopback reports whether a listen address's host stays on this
// machine: localhost or a loopback IP address.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// HostNames are the names a TCP listener at addr answers to in the Host
// header: the address's host (unless it is every interface), the
// loopback names (localhost, 127.0.0.1, ::1) when it is loopback, and
// extra.
func HostNames(addr string, extra []string) []string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	var names []string
	if ip := net.ParseIP(host); host != "" && (ip == nil || !ip.IsUnspecified()) {
		names = append(names, host)
	}
	if loopback(host) {
		names = append(names, "localhost", "127.0.0.1", "::1")
	}
	return append(names, extra...)
}

// listenTCP listens on the TCP address, with TLS when a certificate is
// given (TLS 1.2 at least, HTTP/1.1).
func listenTCP(t TCP) (net.Listener, error) {
	var cfg *tls.Config
	if t.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("the TLS certificate: %w", err)
		}
		cfg = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"}}
	}
	ln, err := net.Listen("tcp", t.Addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", t.Addr, err)
	}
	if cfg != nil {
		ln = tls.NewListener(ln, cfg)
	}
	return ln, nil
}
