package sessions

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// FormatFile is the file under .state/ that holds the version of the
// state's layout, written when a state is first opened.
const FormatFile = "format"

// Format is the version of the .state/ layout this build reads and writes.
// A state of a newer format is opened read-only: this build cannot know
// what writing to it would break.
const Format = 1

// sessionsDir is the folder under .state that holds one folder per session.
const sessionsDir = "sessions"

// prepareState makes sure <workspace>/.state and its sessions folder exist
// and are real folders (a symbolic link at either is refused), records the
// format version of a state that has none, and writes the state's
// .gitignore. It returns why the store must be read-only ("" when it may be
// written): a newer or unknown format, a state file that is not a regular
// file, or a state that cannot be written (a read-only workspace, whose
// sessions can still be listed). A state it had to create and cannot finish
// is an error.
func prepareState(workspace string) (string, error) {
	root, err := openDirs(workspace, nil)
	if err != nil {
		return "", err
	}
	defer closeFd(root)
	statePath := filepath.Join(workspace, StateDir)
	fresh := false
	if _, ok := modeAt(root, StateDir); !ok {
		if err := unix.Mkdirat(root, StateDir, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
			return "", &os.PathError{Op: "mkdir", Path: statePath, Err: err}
		}
		fresh = true
	}
	state, err := openDirAt(root, workspace, StateDir)
	if err != nil {
		return "", err
	}
	defer closeFd(state)
	// cannot turns a failed write into a read-only store, unless the state
	// is new: then there is nothing to read, and the error stands.
	cannot := func(what string, err error) (string, error) {
		if fresh {
			return "", err
		}
		return fmt.Sprintf("%s/ cannot be written (%s): %v", StateDir, what, err), nil
	}
	ro, err := checkFormat(state, statePath)
	if err != nil {
		if ro, err = cannot("its format version", err); err != nil {
			return "", err
		}
	}
	if _, ok := modeAt(state, sessionsDir); !ok && ro == "" {
		if err := unix.Mkdirat(state, sessionsDir, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
			if ro, err = cannot("its sessions folder", &os.PathError{Op: "mkdir", Path: filepath.Join(statePath, sessionsDir), Err: err}); err != nil {
				return "", err
			}
		}
	}
	if _, ok := modeAt(state, sessionsDir); ok {
		d, err := openDirAt(state, statePath, sessionsDir)
		if err != nil {
			return "", err
		}
		closeFd(d)
	}
	mode, ok := modeAt(state, ".gitignore")
	switch {
	case ok && mode&unix.S_IFMT != unix.S_IFREG && ro == "":
		ro = (&UnsafeFileError{Path: filepath.Join(statePath, ".gitignore"), What: describe(mode)}).Error()
	case !ok && ro == "":
		if err := writeAtomicAt(state, statePath, ".gitignore", []byte("*\n"), 0o644); err != nil {
			if ro, err = cannot(".gitignore", err); err != nil {
				return "", err
			}
		}
	}
	return ro, nil
}

// checkFormat reads the state's format version, writing this build's when
// there is none (a new state, or one made before the version was kept). It
// returns why the store must be read-only, or the error of that write.
func checkFormat(state int, statePath string) (string, error) {
	f, err := openFileAt(state, statePath, FormatFile, os.O_RDONLY, 0)
	if errors.Is(err, os.ErrNotExist) {
		return "", writeAtomicAt(state, statePath, FormatFile, []byte(strconv.Itoa(Format)+"\n"), 0o644)
	}
	if err != nil {
		return "the state's format version cannot be read: " + err.Error(), nil
	}
	b, err := io.ReadAll(io.LimitReader(f, 64))
	closeRead(f)
	if err != nil {
		return "the state's format version cannot be read: " + err.Error(), nil
	}
	v, err := strconv.Atoi(strings.TrimSpace(string(b)))
	switch {
	case err != nil || v < 1:
		return fmt.Sprintf("%s/%s holds %q, not a format version this build knows (%d)", StateDir, FormatFile, strings.TrimSpace(string(b)), Format), nil
	case v > Format:
		return fmt.Sprintf("%s/ is format %d, written by a newer Atelier; this build knows format %d", StateDir, v, Format), nil
	}
	return "", nil
}
