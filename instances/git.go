package instances

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// ErrNoGit is returned when the git executable cannot be found.
var ErrNoGit = errors.New("git is not installed (worktree instances need it)")

// git runs one git command in dir. The environment is the process's
// without the variables that would point git elsewhere (GIT_DIR,
// GIT_INDEX_FILE...), plus env; hooks never run (a user's post-checkout
// hook is no business of an instance), and paths are printed unquoted.
func git(dir string, env []string, stdin []byte, args ...string) ([]byte, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, ErrNoGit
	}
	full := append([]string{"-c", "core.hooksPath=" + os.DevNull, "-c", "core.quotePath=false", "-c", "advice.detachedHead=false"}, args...)
	cmd := exec.Command("git", full...)
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(), env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return out.Bytes(), &GitError{Args: args, Msg: msg, err: err}
	}
	return out.Bytes(), nil
}

// gitLine runs git and returns its output's first line.
func gitLine(dir string, env []string, args ...string) (string, error) {
	out, err := git(dir, env, nil, args...)
	if err != nil {
		return "", err
	}
	s, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(s), nil
}

// GitError is a git command that failed, with what git said.
type GitError struct {
	Args []string
	Msg  string
	err  error
}

func (e *GitError) Error() string { return "git " + strings.Join(e.Args, " ") + ": " + e.Msg }
func (e *GitError) Unwrap() error { return e.err }

// exitCode is the exit status of a failed git command, -1 when it did not
// run to an exit.
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GIT_") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
}

// snapshotIdentity makes the commits this package writes independent of
// the user's configuration.
var snapshotIdentity = []string{
	"GIT_AUTHOR_NAME=Atelier", "GIT_AUTHOR_EMAIL=atelier@localhost",
	"GIT_COMMITTER_NAME=Atelier", "GIT_COMMITTER_EMAIL=atelier@localhost",
}

// blobID is git's object id of a blob with this content (SHA-1 repositories),
// so a copy's manifest and a worktree's trees name content the same way.
func blobID(data []byte) string {
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// Git file modes, as trees record them.
const (
	modeFile    = 0o100644
	modeExec    = 0o100755
	modeSymlink = 0o120000
	modeGitlink = 0o160000
)

// fileState is what one path holds on disk: its mode (0: nothing) and
// blob id, and the content itself.
type fileState struct {
	Mode uint32
	ID   string
	Data []byte
}

// readState reads path without following a symbolic link at its end.
func readState(path string) (fileState, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return fileState{}, nil
	}
	if err != nil {
		return fileState{}, err
	}
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		t, err := os.Readlink(path)
		if err != nil {
			return fileState{}, err
		}
		return fileState{Mode: modeSymlink, ID: blobID([]byte(t)), Data: []byte(t)}, nil
	case fi.Mode().IsRegular():
		b, err := os.ReadFile(path)
		if err != nil {
			return fileState{}, err
		}
		mode := uint32(modeFile)
		if fi.Mode().Perm()&0o111 != 0 {
			mode = modeExec
		}
		return fileState{Mode: mode, ID: blobID(b), Data: b}, nil
	case fi.IsDir():
		return fileState{Mode: 0o040000}, nil
	}
	return fileState{}, fmt.Errorf("%s: not a file, folder or symbolic link", path)
}
