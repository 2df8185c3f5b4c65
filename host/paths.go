package host

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"

	"github.com/atelier-studio/atelier/sessions"
)

// maxSocketPath is the longest path a unix socket may have on Linux:
// sun_path holds 108 bytes with the terminating NUL.
const maxSocketPath = 107

// ErrUnsafeRuntimeDir is returned when the runtime directory is not a
// folder of this user's alone (another owner, group or other access, a
// symbolic link): a host never puts its socket where someone else could
// replace it.
var ErrUnsafeRuntimeDir = errors.New("unsafe runtime directory")

// Paths are where a workspace's host keeps its lock, socket and record.
type Paths struct {
	// Workspace is the workspace's absolute path with symbolic links
	// resolved.
	Workspace string
	// Key names the host's files in Dir (32 hex digits).
	Key string
	// Dir is the runtime directory (owner-only).
	Dir    string
	Lock   string // <Dir>/<Key>.lock
	Socket string // <Dir>/<Key>.sock
	Record string // <Dir>/<Key>.json
	// HandOver marks a restart under way (<Dir>/<Key>.handover): see
	// BeginHandOver.
	HandOver string
	// Log is where a detached host appends its output when the state
	// cannot be written (<Dir>/<Key>.log); otherwise .state/engine.log.
	Log string
}

// EngineFile is the name, under the workspace's .state/, of the file that
// says which process hosts the engine.
const EngineFile = "engine.json"

// LogFile is the name, under the workspace's .state/, of a detached host's
// output.
const LogFile = "engine.log"

// Locate returns the paths of a workspace's host, creating the runtime
// directory when it does not exist. It opens the workspace's state to read
// its id (creating the state as every command does).
func Locate(workspace string) (Paths, error) {
	p, _, err := locate(workspace)
	return p, err
}

// stateID reads the state's id (.state/id) without opening the store, so
// a probe changes nothing: "" when there is none or it is malformed, as
// sessions.Store.Trust reports it.
func stateID(workspace string) string {
	f, err := os.OpenFile(filepath.Join(workspace, sessions.StateDir, "id"), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return ""
	}
	defer func() { _ = f.Close() }() // read-only
	b := make([]byte, 64)
	n, _ := io.ReadFull(f, b) // a short file is read whole; a long one is malformed
	id := strings.TrimSpace(string(b[:n]))
	if !idPattern.MatchString(id) {
		return ""
	}
	return id
}

// idPattern is the form of a state id (sessions/trust.go).
var idPattern = regexp.MustCompile(`^[0-9a-f]{32}$`)

// realWorkspace returns a workspace's absolute path with symbolic links
// resolved, so two spellings of one folder find one host.
func realWorkspace(workspace string) (string, error) {
	abs, err := filepath.Abs(workspace)
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", workspace, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", workspace, err)
	}
	return real, nil
}

// key names a workspace's host files. It is derived from the state's id
// and the workspace's real path together: the id alone would give a copied
// workspace (cp -r keeps .state/id, and the id's secret with it) the same
// host as the original, so a client of the copy would drive the
// original's engine. A state without an id (a foreign or older one) is
// named by its path alone.
func key(id, workspace string) string {
	sum := sha256.Sum256([]byte("atelier-host\x00" + id + "\x00" + workspace))
	return hex.EncodeToString(sum[:16])
}

// pathsIn lays a workspace's host files out in a runtime directory.
func pathsIn(dir, workspace, id string) (Paths, error) {
	k := key(id, workspace)
	p := Paths{Workspace: workspace, Key: k, Dir: dir,
		Lock: filepath.Join(dir, k+".lock"), Socket: filepath.Join(dir, k+".sock"),
		Record: filepath.Join(dir, k+".json"), HandOver: filepath.Join(dir, k+".handover"), Log: filepath.Join(dir, k+".log")}
	if len(p.Socket) > maxSocketPath {
		return Paths{}, fmt.Errorf("the host's socket path %s is %d bytes, over the system's limit of %d: set XDG_RUNTIME_DIR (or TMPDIR) to a shorter folder",
			p.Socket, len(p.Socket), maxSocketPath)
	}
	return p, nil
}

// RuntimeDir returns the user's runtime directory for Atelier, creating it
// (0700) when missing: $XDG_RUNTIME_DIR/atelier when XDG_RUNTIME_DIR is an
// absolute path, else atelier-<uid> under the system's temporary
// directory. When either is so deep that a socket in it would pass the
// system's limit on socket paths, atelier-<uid> under /tmp is used
// instead: a host must be reachable wherever the user's variables point.
// A folder that is a symbolic link, is owned by someone else or is open to
// the group or others is refused with ErrUnsafeRuntimeDir.
func RuntimeDir(getenv func(string) string) (string, error) {
	var dir string
	own := "atelier-" + strconv.Itoa(os.Getuid())
	if x := getenv("XDG_RUNTIME_DIR"); x != "" && filepath.IsAbs(x) {
		dir = filepath.Join(x, "atelier")
	} else {
		tmp := getenv("TMPDIR")
		if tmp == "" || !filepath.IsAbs(tmp) {
			tmp = "/tmp"
		}
		dir = filepath.Join(tmp, own)
	}
	if len(dir)+1+len(key("", ""))+len(".sock") > maxSocketPath {
		dir = filepath.Join("/tmp", own)
	}
	if err := ensurePrivateDir(dir); err != nil {
		return "", err
	}
	return dir, nil
}

// ensurePrivateDir makes dir (0700) when missing and checks that it is a
// folder of this user's alone.
func ensurePrivateDir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("make the runtime directory: %w", err)
	}
	return checkPrivateDir(dir)
}

// checkPrivateDir checks, without following a symbolic link, that dir is a
// folder owned by this user with no access for the group or others.
func checkPrivateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("the runtime directory: %w", err)
	}
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		return fmt.Errorf("%w: %s is a symbolic link", ErrUnsafeRuntimeDir, dir)
	case !fi.IsDir():
		return fmt.Errorf("%w: %s is not a folder", ErrUnsafeRuntimeDir, dir)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%w: %s: cannot read its owner", ErrUnsafeRuntimeDir, dir)
	}
	if int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%w: %s belongs to uid %d, not to this user (uid %d)", ErrUnsafeRuntimeDir, dir, st.Uid, os.Getuid())
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("%w: %s has mode %04o, want 0700 (no access for the group or others)", ErrUnsafeRuntimeDir, dir, perm)
	}
	return nil
}
