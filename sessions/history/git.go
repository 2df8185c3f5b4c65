package history

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// Identity is the author and committer of every history commit, fixed so the
// history works on machines where git has no user configured.
const (
	identityName  = "Atelier"
	identityEmail = "atelier@localhost"
)

// GitError reports a git command that failed, with what it printed.
type GitError struct {
	Args   []string
	Stderr string
	Err    error
}

// Error names the command and what git printed.
func (e *GitError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.Args, " "), msg)
}

// Unwrap returns the process error (an exit status, a cancelled context).
func (e *GitError) Unwrap() error { return e.Err }

// gitRunner runs git against the history repository of one workspace. It
// holds paths, never a process-wide setting, and builds the environment from
// scratch on each call so nothing the user exported reaches git.
type gitRunner struct {
	gitDir string // <workspace>/.state/git
	work   string // the workspace, or an instance's folder
	index  string // the index calls use unless they name another
	base   []string
	// spawns counts the git processes started, a cost that does not
	// depend on the machine's load (benchmarks and tests read it).
	spawns atomic.Int64
}

// call describes one git invocation beyond its arguments.
type call struct {
	stdin    []byte
	literal  bool   // pathspecs are plain paths (GIT_LITERAL_PATHSPECS)
	index    string // an index other than ours (a temporary one)
	locked   bool   // the caller holds our lock: git may write the index
	okStatus []int  // exit statuses that are not errors
	// noWorkTree leaves GIT_WORK_TREE unset (git init would store it).
	noWorkTree bool
	extra      []string // more environment, e.g. commit dates
}

// safeArgs precede every git command: the settings that would run other
// programs are forced off on the command line, which wins over any
// configuration file someone may have edited under .state/git.
var safeArgs = []string{"-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null"}

func newGitRunner(workspace string) *gitRunner {
	var base []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GIT_") || strings.HasPrefix(kv, "LC_ALL=") || strings.HasPrefix(kv, "LANGUAGE=") {
			continue
		}
		base = append(base, kv)
	}
	return &gitRunner{
		gitDir: filepath.Join(workspace, ".state", "git"),
		work:   workspace,
		index:  filepath.Join(workspace, ".state", "git", "index"),
		base:   base,
	}
}

func (g *gitRunner) env(c call) []string {
	index := c.index
	if index == "" {
		index = g.index
	}
	env := append([]string(nil), g.base...)
	env = append(env,
		"GIT_DIR="+g.gitDir,
		"GIT_INDEX_FILE="+index,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL="+filepath.Join(g.gitDir, configName),
		"GIT_AUTHOR_NAME="+identityName,
		"GIT_AUTHOR_EMAIL="+identityEmail,
		"GIT_COMMITTER_NAME="+identityName,
		"GIT_COMMITTER_EMAIL="+identityEmail,
		"GIT_TERMINAL_PROMPT=0",
		"GIT_NO_REPLACE_OBJECTS=1",
		"LC_ALL=C",
	)
	if !c.noWorkTree {
		env = append(env, "GIT_WORK_TREE="+g.work)
	}
	env = append(env, c.extra...)
	if !c.locked {
		// Readers must not take index.lock: only the lock holder writes.
		env = append(env, "GIT_OPTIONAL_LOCKS=0")
	}
	if c.literal {
		env = append(env, "GIT_LITERAL_PATHSPECS=1")
	}
	return env
}

// run executes git with args and returns its standard output. A cancelled
// context sends SIGTERM first, so git removes its lock files on the way out.
func (g *gitRunner) run(ctx context.Context, c call, args ...string) ([]byte, error) {
	g.spawns.Add(1)
	cmd := exec.CommandContext(ctx, "git", append(append([]string(nil), safeArgs...), args...)...)
	cmd.Dir = g.work
	cmd.Env = g.env(c)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	if c.stdin != nil {
		cmd.Stdin = bytes.NewReader(c.stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	err := cmd.Run()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			for _, ok := range c.okStatus {
				if exit.ExitCode() == ok {
					return stdout.Bytes(), nil
				}
			}
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			err = ctxErr
		}
		return stdout.Bytes(), &GitError{Args: args, Stderr: stderr.String(), Err: err}
	}
	return stdout.Bytes(), nil
}

// stream runs git and hands its standard output to fn as it arrives; used
// where the output may be large (a whole-history walk).
func (g *gitRunner) stream(ctx context.Context, c call, fn func(io.Reader) error, args ...string) error {
	g.spawns.Add(1)
	cmd := exec.CommandContext(ctx, "git", append(append([]string(nil), safeArgs...), args...)...)
	cmd.Dir = g.work
	cmd.Env = g.env(c)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	fnErr := fn(out)
	if fnErr != nil {
		_, _ = io.Copy(io.Discard, out)
	}
	err = cmd.Wait()
	if fnErr != nil {
		return fnErr
	}
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			err = ctxErr
		}
		return &GitError{Args: args, Stderr: stderr.String(), Err: err}
	}
	return nil
}

// nulList joins paths into a NUL-terminated list for git's -z --stdin modes.
func nulList(paths []string) []byte {
	var b bytes.Buffer
	for _, p := range paths {
		b.WriteString(p)
		b.WriteByte(0)
	}
	return b.Bytes()
}

// splitNul splits git's -z output into its fields, dropping the empty tail.
func splitNul(out []byte) []string {
	if len(out) == 0 {
		return nil
	}
	parts := strings.Split(string(out), "\x00")
	if parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}
