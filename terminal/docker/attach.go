package docker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/client"
)

// errNameTaken says the session's container exists already: another
// environment of the session made it between our look and our create.
var errNameTaken = errors.New("the session's container exists")

// Every process an Env starts carries tagVar=<role><random> in its
// environment: a guest's Close kills its own, and an environment that
// reattaches the container kills what the previous one (dead, or gone idle)
// left running there. Tags hold only letters, digits, '_', '-' and '=', so
// they are their own basic regular expressions (killScript).
const (
	tagVar   = "ATELIER_ENV"
	ownerTag = "owner-"
	guestTag = "guest-"
)

// makeTimeout bounds how long making a container may take (create, start,
// mount check): a container found in state "created" for longer was left by
// a process that died making it.
const makeTimeout = time.Minute

// attach finds the session's container, or makes it, and says which. Two
// processes that make it at once race for its name: the loser waits for the
// winner's to run, and uses it.
func (v *Env) attach(ctx context.Context) (id string, found bool, err error) {
	start := time.Now()
	for try := 0; ; try++ {
		id, busy, err := v.reattach(ctx)
		if err != nil || id != "" {
			return id, id != "", err
		}
		if !busy {
			id, err = v.create(ctx)
			if !errors.Is(err, errNameTaken) {
				return id, false, err
			}
			if err := v.checkNameHolder(ctx); err != nil {
				return "", false, err
			}
		}
		if time.Since(start) > makeTimeout {
			return "", false, fmt.Errorf("session %s: container %s: %w, yet it does not start", v.cfg.SessionID, v.cfg.containerName(), errNameTaken)
		}
		select {
		case <-ctx.Done():
			return "", false, ctx.Err()
		case <-time.After(min(time.Duration(try+1)*20*time.Millisecond, 250*time.Millisecond)):
		}
	}
}

// checkNameHolder fails when what holds the session's container name is
// not the session's container (someone made it by hand). The session's own
// may not be listed yet: a create takes the name before the container shows.
func (v *Env) checkNameHolder(ctx context.Context) error {
	name := v.cfg.containerName()
	res, err := v.eng.cli.ContainerInspect(ctx, name, client.ContainerInspectOptions{})
	if cerrdefs.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return v.eng.wrap("inspect container "+name, err)
	}
	if c := res.Container.Config; c == nil || c.Labels[LabelSession] != v.cfg.SessionID || c.Labels[LabelWorkspace] != v.cfg.home() {
		return fmt.Errorf("session %s: container %s: %w, but it is not the session's: remove it", v.cfg.SessionID, name, errNameTaken)
	}
	return nil
}

// reattach looks at the session's containers and returns the one to use, or
// "" when a new one must be made, or busy when another process is making
// one. It removes what cannot be used: containers that do not run and,
// unless v is a guest, running ones made with another configuration or
// image, or whose mount no longer shows the workspace (the folder was
// removed and made again). An owner that reattaches kills what an earlier
// owner's commands left running: the recovered session recorded them as
// interrupted.
func (v *Env) reattach(ctx context.Context) (id string, busy bool, err error) {
	list, err := v.eng.cli.ContainerList(ctx, client.ContainerListOptions{
		All: true,
		Filters: make(client.Filters).
			Add("label", LabelSession+"="+v.cfg.SessionID).
			Add("label", LabelWorkspace+"="+v.cfg.home()),
	})
	if err != nil {
		return "", false, v.eng.wrap("find the container of session "+v.cfg.SessionID, err)
	}
	use := ""
	var drop []string
	for _, c := range list.Items {
		if c.Labels[LabelSession] != v.cfg.SessionID || c.Labels[LabelWorkspace] != v.cfg.home() {
			continue
		}
		switch {
		case c.State == container.StateCreated && time.Since(time.Unix(c.Created, 0)) < makeTimeout,
			c.State == container.StateRemoving, c.State == container.StateRestarting:
			busy = true // being made (or removed): wait until it runs (or is gone)
		case c.State != container.StateRunning:
			drop = append(drop, c.ID) // stopped, paused, dead, or made by a process that died
		case v.guest:
			// Another process's: used as it is, never removed.
			if use == "" {
				use = c.ID
			}
		case use != "":
			drop = append(drop, c.ID)
		default:
			same, err := v.sameConfig(ctx, c.ID)
			if err != nil {
				return "", false, err
			}
			if same {
				use = c.ID
			} else {
				drop = append(drop, c.ID)
			}
		}
	}
	for _, id := range drop {
		if err := v.eng.remove(ctx, id); err != nil {
			return "", false, fmt.Errorf("session %s: %w", v.cfg.SessionID, err)
		}
	}
	if use == "" || v.guest {
		return use, busy && use == "", nil
	}
	err = v.checkMount(ctx, use)
	switch {
	case errors.Is(err, ErrWorkspaceNotVisible), errors.Is(err, ErrContainerGone):
		return "", false, v.eng.remove(ctx, use)
	case err != nil:
		return "", false, err
	}
	if err := v.eng.killTagged(ctx, use, tagVar+"="+ownerTag+".*"); err != nil {
		// What cannot be stopped goes with its container.
		return "", false, v.eng.remove(ctx, use)
	}
	return use, false, nil
}

// sameConfig reports whether a container runs what this environment would
// make: the same configuration digest, the image the name stands for now,
// and, as inspected, the same user, network and workspace mount.
func (v *Env) sameConfig(ctx context.Context, id string) (bool, error) {
	imageID, err := v.eng.imageID(ctx, v.cfg.Image)
	if err != nil {
		return false, err
	}
	res, err := v.eng.cli.ContainerInspect(ctx, id, client.ContainerInspectOptions{})
	if cerrdefs.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, v.eng.wrap("inspect container "+shortID(id), err)
	}
	c := res.Container
	if c.Config == nil || c.HostConfig == nil || c.State == nil || !c.State.Running {
		return false, nil
	}
	return c.Config.Labels[LabelConfig] == v.digest() &&
		c.Image == imageID &&
		c.Config.User == v.cfg.User &&
		string(c.HostConfig.NetworkMode) == v.cfg.Network &&
		!c.HostConfig.Privileged &&
		slices.EqualFunc(c.HostConfig.Mounts, v.mounts(), func(a, b mount.Mount) bool {
			return a.Type == b.Type && a.Source == b.Source && a.Target == b.Target && a.ReadOnly == b.ReadOnly
		}), nil
}

// digest sums up the container this environment makes.
func (v *Env) digest() string {
	cfg, host := v.spec()
	b, err := json.Marshal(struct {
		Config     *container.Config
		HostConfig *container.HostConfig
	}{cfg, host})
	if err != nil {
		panic(err) // plain structs of strings, numbers and slices
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// containerName is the name of the session's container: fixed, so that a
// second create fails instead of making a second container.
func (c Config) containerName() string {
	sum := sha256.Sum256([]byte(c.home()))
	return "atelier-" + c.SessionID + "-" + hex.EncodeToString(sum[:6])
}

// killTagged kills every process in the container with an environment
// entry that matches pattern (a basic regular expression for the whole
// entry). A container gone has nothing left to kill.
func (e *Engine) killTagged(ctx context.Context, id, pattern string) error {
	code, out, err := e.run(ctx, id, []string{"/bin/sh", "-c", killScript, "atelier-kill", pattern}, "")
	switch {
	case errors.Is(err, ErrContainerGone):
		return nil
	case err != nil:
		return fmt.Errorf("kill processes in container %s: %w", shortID(id), err)
	case code != 0:
		return fmt.Errorf("kill processes in container %s: exit %d: %s", shortID(id), code, out)
	}
	return nil
}
