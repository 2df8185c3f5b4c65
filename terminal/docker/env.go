package docker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/client"

	"github.com/atelier-studio/atelier/terminal"
)

// Config says how a session's container is made.
type Config struct {
	// SessionID labels and names the container, so cleanup and a later
	// environment of the session find it; required.
	SessionID string
	// Workspace is the host directory bind-mounted into the container: the
	// session's workspace folder, or the folder of the instance it is on.
	Workspace string
	// Home is the workspace the session belongs to: the container is
	// labelled (LabelWorkspace) and named after it, so Cleanup of the
	// workspace finds the containers of its sessions on instances too.
	// Empty means Workspace.
	Home string
	// Mounts are more bind mounts, after the workspace's: a worktree
	// instance's git metadata, read-only.
	Mounts []Mount
	// MountPath is where the workspace appears inside; empty means the same
	// path as on the host, so paths read the same inside and out (in agent
	// output, error messages, tool calls and the studio).
	MountPath string
	// ReadOnly mounts the workspace read-only.
	ReadOnly bool
	// Image is the image to run; it must be on the engine and have /bin/sh.
	Image string
	// User is "uid:gid" inside the container; empty means the host user's,
	// so files written in the workspace stay the user's.
	User string
	// Network is the container's network mode; empty means "none".
	Network string
	// MemoryBytes limits memory; zero means no limit.
	MemoryBytes int64
	// CPUs limits CPU time in cores (1.5 = one and a half); zero means none.
	CPUs float64
	// PidsLimit caps the number of processes; zero means 4096, negative none.
	PidsLimit int64
	// Env holds KEY=VALUE variables for every command.
	Env []string
	// Shell is what Shell starts when given no command; empty means /bin/sh.
	Shell string
}

// Mount is a bind mount of a host path into the container.
type Mount struct {
	Source   string // absolute host path
	Target   string // absolute path inside; empty means Source
	ReadOnly bool
}

// home is the workspace the container belongs to.
func (c Config) home() string {
	if c.Home != "" {
		return c.Home
	}
	return c.Workspace
}

// Env is a session's execution environment in a container. A session has
// one container, labelled with the session and its workspace and named after
// them, so two environments of the session (the process that runs it and a
// short command, or a process that took it over after a crash) never make
// two. The first operation finds it: one running as this environment would
// make it is reattached, anything else of the session's is removed and a new
// container made (see attach). Close removes it. If it stops meanwhile
// (crash, OOM, someone's docker rm), the operation running fails with
// ErrContainerGone and the next one starts a fresh container.
type Env struct {
	eng *Engine
	cfg Config

	mu     sync.Mutex // held while the container is found or made
	id     string     // the container in use, or ""
	found  bool       // id was there before this environment's first operation
	guest  bool       // see AsGuest
	hosted bool       // a guest's session runs in another process
	tag    string     // in the environment of every process this Env starts
	closed bool
}

var _ terminal.Env = (*Env)(nil)

var sessionIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$`)

// NewEnv checks cfg and returns the session's environment. It creates
// nothing yet.
func (e *Engine) NewEnv(cfg Config) (*Env, error) {
	if err := cfg.check(); err != nil {
		return nil, fmt.Errorf("docker environment: %w", err)
	}
	if cfg.MountPath == "" {
		cfg.MountPath = filepath.ToSlash(cfg.Workspace)
	}
	if cfg.User == "" {
		cfg.User = fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid())
	}
	if cfg.Network == "" {
		cfg.Network = "none"
	}
	if cfg.PidsLimit == 0 {
		cfg.PidsLimit = 4096
	}
	if cfg.Shell == "" {
		cfg.Shell = "/bin/sh"
	}
	cfg.Mounts = append([]Mount(nil), cfg.Mounts...)
	for i := range cfg.Mounts {
		if cfg.Mounts[i].Target == "" {
			cfg.Mounts[i].Target = filepath.ToSlash(cfg.Mounts[i].Source)
		}
	}
	return &Env{eng: e, cfg: cfg, tag: tagVar + "=" + ownerTag + randomHex(12)}, nil
}

func (c Config) check() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", terminal.ErrBadRequest, fmt.Sprintf(format, a...))
	}
	switch {
	case !sessionIDPattern.MatchString(c.SessionID):
		return bad("session id %q: letters, digits, '.', '_' and '-' only", c.SessionID)
	case c.Image == "":
		return bad("no image")
	case !filepath.IsAbs(c.Workspace):
		return bad("workspace %q is not an absolute path", c.Workspace)
	case c.Home != "" && !filepath.IsAbs(c.Home):
		return bad("home workspace %q is not an absolute path", c.Home)
	case c.MountPath != "" && !path.IsAbs(c.MountPath):
		return bad("mount path %q is not absolute", c.MountPath)
	case c.MemoryBytes < 0 || c.CPUs < 0:
		return bad("negative memory or CPU limit")
	}
	if c.User != "" && !regexp.MustCompile(`^[0-9]+(:[0-9]+)?$`).MatchString(c.User) {
		return bad("user %q is not uid or uid:gid", c.User)
	}
	if st, err := os.Stat(c.Workspace); err != nil || !st.IsDir() {
		return bad("workspace %q is not a directory", c.Workspace)
	}
	for _, m := range c.Mounts {
		switch {
		case !filepath.IsAbs(m.Source):
			return bad("mount source %q is not an absolute path", m.Source)
		case m.Target != "" && !path.IsAbs(m.Target):
			return bad("mount target %q is not absolute", m.Target)
		}
		if _, err := os.Stat(m.Source); err != nil {
			return bad("mount source %q: %v", m.Source, err)
		}
	}
	return terminal.ValidateEnv(c.Env)
}

// Config returns the configuration in effect, defaults filled in.
func (v *Env) Config() Config { return v.cfg }

// ContainerID is the session's container, or "" before the first operation.
func (v *Env) ContainerID() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.id
}

// AsGuest makes v serve a session it does not run; call it before the
// first operation. A guest uses the session's running container as it finds
// it, whatever its configuration, and removes no container that runs. Its
// Close kills what it started and leaves a container it found. One it had
// to make (the session had none) its Close removes, unless hosted says
// another process runs the session: that process reattaches the container
// on its first use and removes it when the session ends.
func (v *Env) AsGuest(hosted bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.guest, v.hosted = true, hosted
	v.tag = tagVar + "=" + guestTag + randomHex(12)
}

// Close removes the container, killing what runs in it; a guest leaves a
// container it found or that another process runs the session in, killing
// only its own processes.
func (v *Env) Close() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.closed = true
	if v.id == "" {
		return nil
	}
	id := v.id
	v.id = ""
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if v.guest && (v.found || v.hosted) {
		if err := v.eng.killTagged(ctx, id, v.tag); err != nil {
			return fmt.Errorf("close session %s: %w", v.cfg.SessionID, err)
		}
		return nil
	}
	if err := v.eng.remove(ctx, id); err != nil {
		return fmt.Errorf("close session %s: %w", v.cfg.SessionID, err)
	}
	return nil
}

// container returns the running container, finding or making it on first
// use, and the variable to put in the environment of what runs in it.
func (v *Env) container(ctx context.Context) (id, tag string, err error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed {
		return "", "", terminal.ErrClosed
	}
	if v.id != "" {
		return v.id, v.tag, nil
	}
	id, found, err := v.attach(ctx)
	if err != nil {
		return "", "", err
	}
	v.id, v.found = id, found
	return id, v.tag, nil
}

// lost forgets a container found stopped, removing it, so the next
// operation makes a new one.
func (v *Env) lost(id string) {
	v.mu.Lock()
	if v.id == id {
		v.id = ""
	}
	v.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = v.eng.remove(ctx, id)
}

// create makes, starts and checks the session's container. It fails with
// errNameTaken when the session's container exists (another process made it
// meanwhile).
func (v *Env) create(ctx context.Context) (id string, err error) {
	c := v.cfg
	if err := v.eng.checkImage(ctx, c.Image); err != nil {
		return "", err
	}
	cfg, host := v.spec()
	cfg.Labels = map[string]string{
		LabelSession:   c.SessionID,
		LabelWorkspace: c.home(),
		LabelConfig:    v.digest(),
	}
	created, err := v.eng.cli.ContainerCreate(ctx, client.ContainerCreateOptions{Name: c.containerName(), Config: cfg, HostConfig: host})
	if err != nil {
		switch {
		case cerrdefs.IsNotFound(err):
			return "", fmt.Errorf("create container for session %s: image %q: %w", c.SessionID, c.Image, ErrImageMissing)
		case cerrdefs.IsConflict(err):
			return "", fmt.Errorf("create container %s: %w: %w", c.containerName(), errNameTaken, err)
		}
		return "", v.eng.wrap("create container for session "+c.SessionID, err)
	}
	ok := false
	defer func() {
		if !ok {
			rmCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			// A container left behind is said beside why it was not used.
			if rerr := v.eng.remove(rmCtx, created.ID); rerr != nil {
				err = errors.Join(err, fmt.Errorf("remove the half-made container %s: %w", created.ID, rerr))
			}
		}
	}()
	if _, err := v.eng.cli.ContainerStart(ctx, created.ID, client.ContainerStartOptions{}); err != nil {
		return "", v.eng.wrap("start container for session "+c.SessionID, err)
	}
	if err := v.checkMount(ctx, created.ID); err != nil {
		return "", err
	}
	ok = true
	return created.ID, nil
}

// spec is the container this environment makes, labels aside.
func (v *Env) spec() (*container.Config, *container.HostConfig) {
	c := v.cfg
	pids := c.PidsLimit
	if pids < 0 {
		pids = 0
	}
	cfg := &container.Config{
		Image:      c.Image,
		User:       c.User,
		Env:        c.Env,
		WorkingDir: c.MountPath,
		// A shell loop keeps the container up between commands; it needs
		// nothing from the image but /bin/sh.
		Entrypoint: []string{"/bin/sh", "-c", "trap 'exit 0' TERM INT; while :; do sleep 3600 & wait $!; done"},
		Cmd:        []string{},
	}
	host := &container.HostConfig{
		NetworkMode: container.NetworkMode(c.Network),
		CapDrop:     []string{"ALL"},
		SecurityOpt: []string{"no-new-privileges"},
		Mounts:      v.mounts(),
		Resources: container.Resources{
			Memory:    c.MemoryBytes,
			NanoCPUs:  int64(c.CPUs * 1e9),
			PidsLimit: &pids,
		},
	}
	return cfg, host
}

// mounts are the container's bind mounts: the workspace, then the others.
func (v *Env) mounts() []mount.Mount {
	c := v.cfg
	ms := []mount.Mount{{Type: mount.TypeBind, Source: c.Workspace, Target: c.MountPath, ReadOnly: c.ReadOnly}}
	for _, m := range c.Mounts {
		ms = append(ms, mount.Mount{Type: mount.TypeBind, Source: m.Source, Target: m.Target, ReadOnly: m.ReadOnly})
	}
	return ms
}

// checkMount proves the bind mount shows the workspace: a marker file made
// on the host must be visible in the container. A remote engine mounts its
// own (usually empty) directory at that path instead.
func (v *Env) checkMount(ctx context.Context, id string) (err error) {
	dir := v.cfg.Workspace
	rel := ""
	if st, err := os.Stat(filepath.Join(dir, ".state")); err == nil && st.IsDir() {
		rel = ".state/"
	}
	rel += ".atelier-mount-check-" + randomHex(8)
	marker := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		return fmt.Errorf("check workspace mount: %w", err)
	}
	defer func() {
		// A marker left behind would litter the user's workspace: say so.
		if rerr := os.Remove(marker); rerr != nil && err == nil {
			err = fmt.Errorf("check workspace mount: remove marker: %w", rerr)
		}
	}()
	inside := path.Join(v.cfg.MountPath, rel)
	code, out, err := v.eng.run(ctx, id, []string{"/bin/sh", "-c", `test -e "$1"`, "sh", inside}, "")
	if err != nil {
		return fmt.Errorf("check workspace mount: %w", err)
	}
	if code != 0 {
		return fmt.Errorf("session %s: %w: %s at %s is not %s inside the container (%s)", v.cfg.SessionID, ErrWorkspaceNotVisible, v.eng.host, v.cfg.Workspace, v.cfg.MountPath, strings.TrimSpace(out))
	}
	return nil
}

// remove force-removes a container; one already gone is not an error.
func (e *Engine) remove(ctx context.Context, id string) error {
	_, err := e.cli.ContainerRemove(ctx, id, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
	if err != nil && !cerrdefs.IsNotFound(err) && !cerrdefs.IsConflict(err) {
		return e.wrap("remove container "+shortID(id), err)
	}
	return nil
}

// running reports whether the container still runs.
func (e *Engine) running(ctx context.Context, id string) (bool, error) {
	res, err := e.cli.ContainerInspect(ctx, id, client.ContainerInspectOptions{})
	if cerrdefs.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, e.wrap("inspect container "+shortID(id), err)
	}
	return res.Container.State != nil && res.Container.State.Running, nil
}

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return hex.EncodeToString(b)
}
