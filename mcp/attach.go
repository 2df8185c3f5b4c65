package mcp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"syscall"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/host"
)

// Label is how the bridge names itself to the engine (the Atelier-Client
// header): the audit log records it as who sent a control.
const Label = "mcp"

// Attach returns a client of the process that hosts the workspace's
// engine. When none runs and exe is not empty, it starts one, `exe serve
// WORKSPACE` detached (exe is the atelier binary), and waits until it
// answers; when exe is empty it fails with host.ErrNotRunning.
func Attach(ctx context.Context, workspace, exe string) (*client.Client, host.Status, error) {
	st, err := host.Probe(workspace)
	if err != nil {
		return nil, st, fmt.Errorf("find the engine of %s: %w", workspace, err)
	}
	if !st.Running {
		if exe == "" {
			return nil, st, fmt.Errorf("attach to the engine of %s: %w", workspace, host.ErrNotRunning)
		}
		st, err = host.Detach(ctx, workspace, []string{exe, "serve", workspace})
		var running *host.ErrRunning
		if errors.As(err, &running) {
			// Another process started it first: that host is the one.
			st, err = host.Probe(workspace)
		}
		if err != nil {
			return nil, st, fmt.Errorf("start the engine of %s: %w", workspace, err)
		}
	}
	if st.Socket == "" {
		return nil, st, fmt.Errorf("attach to the engine of %s: its host has no socket", workspace)
	}
	c, err := client.New(st.Socket, client.Options{Label: Label})
	if err != nil {
		return nil, st, err
	}
	return c, st, nil
}

// conn is the bridge's link to the engine: a client, attached again when
// the host it talked to has gone. It is safe for concurrent use.
type conn struct {
	attach func(ctx context.Context) (*client.Client, error)

	mu sync.Mutex
	c  *client.Client
}

// get returns the current client, attaching when there is none.
func (k *conn) get(ctx context.Context) (*client.Client, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.c != nil {
		return k.c, nil
	}
	c, err := k.attach(ctx)
	if err != nil {
		return nil, err
	}
	k.c = c
	return c, nil
}

// drop forgets c (when it is still the current client), so the next call
// attaches again.
func (k *conn) drop(c *client.Client) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.c == c {
		c.CloseIdle()
		k.c = nil
	}
}

// do runs call with a client. When the host cannot be reached (nothing
// listens on its socket any more: the request was never received), it
// attaches again and runs call once more.
func (k *conn) do(ctx context.Context, call func(*client.Client) error) error {
	for attempt := 0; ; attempt++ {
		c, err := k.get(ctx)
		if err != nil {
			return err
		}
		err = call(c)
		if err == nil || !unreachable(err) || attempt > 0 {
			return err
		}
		k.drop(c)
	}
}

// unreachable reports whether err says the request never reached a host:
// the socket is gone or refuses connections.
func unreachable(err error) bool {
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "dial" {
		return false
	}
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT)
}
