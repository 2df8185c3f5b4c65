package core

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/atelier-studio/atelier/files"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/sessions/history"
	"github.com/atelier-studio/atelier/terminal"
)

// EnvFactory makes a session's execution environment. It is called once per
// session, on the first operation that needs one.
type EnvFactory func(s sessions.Session, workspace string) (terminal.Env, error)

// envFor makes a session's environment when no EnvFactory was handed in:
// a local one, or a container from the backend the engine was handed
// (Options.Containers) for a session whose execution is "docker".
// workspace is the session's folder: its instance's for a session on an
// instance, whose container then also mounts, read-only at the same path,
// the git metadata a worktree instance points to.
func (e *Engine) envFor(s sessions.Session, workspace string) (terminal.Env, error) {
	if s.Execution != "docker" {
		// Commands start from the base environment agents get, never
		// from the whole of ours (other agents' keys, tokens); the
		// engine adds the agent's configured env to each (execFor).
		return terminal.NewLocal(terminal.LocalConfig{Workspace: workspace, ReadOnly: s.Access == sessions.ReadOnly,
			BaseEnv: agentBaseEnv(os.Environ())})
	}
	if e.opts.Containers == nil {
		return nil, fmt.Errorf("session %s runs in Docker, but this engine was opened without a container backend", s.ID)
	}
	if s.Image == "" {
		return nil, fmt.Errorf("session %s runs in Docker but names no image", s.ID)
	}
	spec := terminal.ContainerSpec{SessionID: s.ID, Home: e.store.Workspace(), Workspace: workspace,
		Image: s.Image, ReadOnly: s.Access == sessions.ReadOnly}
	if s.Instance != "" {
		meta, err := worktreeMetadata(workspace)
		if err != nil {
			return nil, fmt.Errorf("session %s on instance %s: %w", s.ID, s.Instance, err)
		}
		if meta != "" {
			// git status, diff and log work inside; nothing there
			// can write the user's repository.
			spec.ReadOnlyMounts = []string{meta}
		}
	}
	return e.opts.Containers.Env(spec)
}

// worktreeMetadata returns the git metadata folder a worktree in folder
// points to (the repository's common .git folder, which holds the
// worktree's own under worktrees/), or "" when folder is no worktree (a
// copy instance: its .git, if any, is its own folder). A worktree is told
// by its .git being a file, so a folder inside some other repository
// (the user's home kept in git) is never taken for one.
func worktreeMetadata(folder string) (string, error) {
	st, err := os.Lstat(filepath.Join(folder, ".git"))
	if errors.Is(err, fs.ErrNotExist) || err == nil && !st.Mode().IsRegular() {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	cmd := exec.Command("git", "rev-parse", "--path-format=absolute", "--git-common-dir")
	cmd.Dir = folder
	// Only the folder says which repository: none of ours (GIT_DIR...).
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("find the git metadata of worktree %s: %w: %s", folder, err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// openDeps fills the options' dependencies the caller left out.
func (e *Engine) openDeps() error {
	ws := e.store.Workspace()
	if e.opts.Files == nil {
		f, err := files.Open(ws, files.NewAttribution(files.DefaultAttributionTTL))
		if err != nil {
			return err
		}
		e.opts.Files = f
		e.ownFiles = true
	}
	if e.opts.Leases == nil {
		e.opts.Leases = &files.Leases{}
	}
	if e.opts.Envs == nil {
		e.opts.Envs, e.ownEnvs = e.envFor, true
	}
	e.hist = newHistories(e.opts.History, e.opts.NoHistory, func() (*history.History, error) {
		if e.store.ReadOnly() {
			// Opening a history writes .state/git: not in a read-only state.
			return nil, e.readOnlyErr()
		}
		// A workspace without a working git still runs sessions; the
		// studio shows that the history is off.
		return history.Open(e.store.Workspace(), e.opts.HistoryOptions)
	}, func(id string) (string, error) { return e.places.dir(id) })
	return nil
}

// guestEnv is an environment that can serve a session this engine does not
// run (a Docker session's): it then shares the container it finds as it is
// and leaves it when closed; one it makes it leaves too when hosted (another
// process runs the session and will use it), else removes.
type guestEnv interface{ AsGuest(hosted bool) }

// envLocked returns a session's execution environment, making it on first
// use. A Docker environment finds the session's container: the one a
// crashed predecessor left is reattached (or replaced when the session's
// configuration changed), never doubled. For a session this engine does not
// own (a passive engine's command, a session another process runs), the
// container is the owner's, or the next owner's: the environment is a guest
// in it.
func (l *live) envLocked() (terminal.Env, error) {
	e := l.e
	if l.env != nil {
		return l.env, nil
	}
	p, err := e.placeOf(l)
	if err != nil {
		return nil, err
	}
	env, err := e.opts.Envs(l.rec, p.root)
	if err != nil {
		return nil, err
	}
	if g, ok := env.(guestEnv); ok && !l.owned {
		_, hosted := ReadLease(e.Workspace())
		g.AsGuest(hosted)
	}
	l.env = env
	return env, nil
}

// releaseEnvLocked closes a session's environment (its container goes) once
// the session has ended.
func (l *live) releaseEnvLocked() {
	e := l.e
	if l.env == nil {
		return
	}
	env := l.env
	l.env = nil
	id := l.rec.ID
	go func() {
		if err := env.Close(); err != nil {
			e.noticeSession(id, "releasing the execution environment: "+err.Error())
		}
	}()
}

// HistoryError says why the workspace runs without a history, if it does.
func (e *Engine) HistoryError() error { return e.hist.openErr() }

// History returns the workspace's history, opening it if needed, or nil
// when it is off.
func (e *Engine) History() *history.History { return e.hist.workspace() }

// Files returns the workspace's file access.
func (e *Engine) Files() *files.Workspace { return e.opts.Files }
