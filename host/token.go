package host

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/atelier-studio/atelier/sessions"
)

// ErrUnsafeToken is returned when the token file is readable by the group
// or others, belongs to someone else or is not a regular file: a token
// others may have read is never used.
var ErrUnsafeToken = errors.New("unsafe token file")

// tokenBytes is how many random bytes a token has (64 hex digits).
const tokenBytes = 32

// TokenPath returns where the TCP listener's bearer token is kept:
// $XDG_CONFIG_HOME/atelier/token, or ~/.config/atelier/token without it.
func TokenPath(getenv func(string) string) (string, error) {
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		home := getenv("HOME")
		if home == "" || !filepath.IsAbs(home) {
			return "", errors.New("the token file: neither XDG_CONFIG_HOME nor HOME is an absolute path")
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "atelier", "token"), nil
}

// LoadToken returns the TCP listener's bearer token and the file it is
// kept in. A well-formed token already there (64 hex digits, mode 0600 or
// stricter, this user's) is reused; without one a new token (32 random
// bytes, hex) is written, 0600. A token file open to the group or others
// is refused with ErrUnsafeToken, never repaired: it may have been read.
// A malformed one is replaced.
func LoadToken(getenv func(string) string) (token, path string, err error) {
	path, err = TokenPath(getenv)
	if err != nil {
		return "", "", err
	}
	tok, err := readToken(path)
	if err == nil {
		return tok, path, nil
	}
	malformed := errors.Is(err, errMalformedToken)
	if !errors.Is(err, os.ErrNotExist) && !malformed {
		return "", "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", "", fmt.Errorf("make the token's folder: %w", err)
	}
	tok, err = newToken()
	if err != nil {
		return "", "", err
	}
	if malformed {
		if err := sessions.WriteFileAtomic(path, []byte(tok+"\n"), 0o600); err != nil {
			return "", "", fmt.Errorf("replace the malformed token: %w", err)
		}
		return tok, path, nil
	}
	return createToken(path, tok)
}

// createToken puts tok at path unless another process did first (two
// hosts starting together): then the other's token is the one.
func createToken(path, tok string) (string, string, error) {
	tmp := path + ".new-" + strconv.Itoa(os.Getpid())
	if err := sessions.WriteFileAtomic(tmp, []byte(tok+"\n"), 0o600); err != nil {
		return "", "", fmt.Errorf("write the token: %w", err)
	}
	lerr := os.Link(tmp, path)
	if rerr := os.Remove(tmp); rerr != nil && lerr == nil {
		return "", "", fmt.Errorf("write the token: %w", rerr)
	}
	if errors.Is(lerr, os.ErrExist) {
		got, err := readToken(path)
		return got, path, err
	}
	if lerr != nil {
		return "", "", fmt.Errorf("write the token: %w", lerr)
	}
	return tok, path, nil
}

func newToken() (string, error) {
	b := make([]byte, tokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("make a token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// errMalformedToken: the token file holds something other than a token.
var errMalformedToken = errors.New("malformed token file")

// readToken reads the token at path, refusing a file that is not this
// user's alone.
func readToken(path string) (string, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ELOOP) {
		return "", fmt.Errorf("%w: %s is a symbolic link", ErrUnsafeToken, path)
	}
	if err != nil {
		return "", fmt.Errorf("the token file: %w", err)
	}
	defer func() { _ = f.Close() }() // read-only
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("the token file: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.Mode().IsRegular():
		return "", fmt.Errorf("%w: %s is not a regular file", ErrUnsafeToken, path)
	case !ok || int(st.Uid) != os.Getuid():
		return "", fmt.Errorf("%w: %s does not belong to this user", ErrUnsafeToken, path)
	case fi.Mode().Perm()&0o077 != 0:
		return "", fmt.Errorf("%w: %s has mode %04o: others may have read it; remove it (a new token is made) or chmod 600 it if you know nobody did",
			ErrUnsafeToken, path, fi.Mode().Perm())
	}
	b := make([]byte, 2*tokenBytes+2)
	n, err := io.ReadFull(f, b)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read the token: %w", err)
	}
	tok := strings.TrimSuffix(string(b[:n]), "\n")
	if len(tok) != 2*tokenBytes || strings.Trim(tok, "0123456789abcdef") != "" {
		return "", fmt.Errorf("%w: %s", errMalformedToken, path)
	}
	return tok, nil
}

// ReadToken returns the token kept in this user's token file (TokenPath),
// checked as LoadToken checks it, without making one: a client reaching an
// engine over TCP on this machine, or through an SSH tunnel to a machine
// that shares this user's configuration.
func ReadToken(getenv func(string) string) (token, path string, err error) {
	path, err = TokenPath(getenv)
	if err != nil {
		return "", "", err
	}
	tok, err := readToken(path)
	return tok, path, err
}
