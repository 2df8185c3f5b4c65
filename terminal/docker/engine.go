package docker

import (
	"context"
	"errors"
	"fmt"
	"net"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
)

// Errors callers branch on; they come wrapped with the operation and detail.
var (
	// ErrNoEngine says no Docker engine answered at the configured host.
	ErrNoEngine = errors.New("no Docker engine reachable")
	// ErrImageMissing says the image is not on the engine. Atelier never
	// pulls: build or pull it yourself.
	ErrImageMissing = errors.New("image not found on the Docker engine (Atelier never pulls images)")
	// ErrWorkspaceNotVisible says the engine cannot see the workspace at its
	// path, as happens with a remote engine: the bind mount would be empty.
	ErrWorkspaceNotVisible = errors.New("the Docker engine cannot see the workspace (is it remote?)")
	// ErrContainerGone says the session's container stopped under a running
	// operation; the next operation starts a new one.
	ErrContainerGone = errors.New("the session's container stopped")
	// ErrUnsupportedHost says the Docker host's scheme needs a helper this
	// client does not have (ssh://).
	ErrUnsupportedHost = errors.New("unsupported Docker host")
)

// Labels put on every container, so cleanup and a later environment of the
// session find them.
const (
	LabelSession   = "atelier.session"
	LabelWorkspace = "atelier.workspace"
	// LabelConfig is a digest of what the container was made with (image
	// name, user, network, mount, limits, env, lockdown): a later
	// environment of the session reattaches it only when it would make the
	// same.
	LabelConfig = "atelier.config"
)

// EngineOptions says how to reach the Docker engine. The zero value does
// what the docker CLI does: DOCKER_HOST, else DOCKER_CONTEXT or the config's
// current context, else the default local socket.
type EngineOptions struct {
	// Host, when set, is used instead of the environment (unix://, tcp://).
	Host string
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	// ConfigDir is the docker CLI's configuration directory; empty means
	// $DOCKER_CONFIG, else ~/.docker.
	ConfigDir string
}

// Engine is a connection to a Docker engine, shared by the sessions'
// environments. It is safe for concurrent use.
type Engine struct {
	cli  *client.Client
	host string
}

// NewEngine resolves the engine's address and returns an Engine. It does not
// contact the engine: Ping does, and so does each environment's first
// operation.
func NewEngine(opts EngineOptions) (*Engine, error) {
	ep, err := resolveEndpoint(opts)
	if err != nil {
		return nil, fmt.Errorf("docker engine: %w", err)
	}
	cliOpts := []client.Opt{client.WithHost(ep.Host)}
	if ep.TLS != nil {
		cliOpts = append(cliOpts, client.WithTLSClientConfig(ep.TLS.CA, ep.TLS.Cert, ep.TLS.Key))
	}
	cli, err := client.New(cliOpts...)
	if err != nil {
		return nil, fmt.Errorf("docker engine %s: %w", ep.Host, err)
	}
	return &Engine{cli: cli, host: ep.Host}, nil
}

// Host is the address of the engine, for messages.
func (e *Engine) Host() string { return e.host }

// Client is the underlying Engine API client.
func (e *Engine) Client() *client.Client { return e.cli }

// Ping checks that the engine answers.
func (e *Engine) Ping(ctx context.Context) error {
	if _, err := e.cli.Ping(ctx, client.PingOptions{NegotiateAPIVersion: true}); err != nil {
		return e.wrap("ping", err)
	}
	return nil
}

// Close releases the engine's connections.
func (e *Engine) Close() error { return e.cli.Close() }

// wrap adds the operation to err and marks an unreachable engine.
func (e *Engine) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	var opErr *net.OpError
	if client.IsErrConnectionFailed(err) || errors.As(err, &opErr) {
		return fmt.Errorf("%s: %w at %s: %w", op, ErrNoEngine, e.host, err)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// checkImage fails with ErrImageMissing when image is not on the engine.
func (e *Engine) checkImage(ctx context.Context, image string) error {
	_, err := e.imageID(ctx, image)
	return err
}

// imageID is the ID of the image a name stands for now, or ErrImageMissing.
func (e *Engine) imageID(ctx context.Context, image string) (string, error) {
	res, err := e.cli.ImageInspect(ctx, image)
	if cerrdefs.IsNotFound(err) {
		return "", fmt.Errorf("image %q at %s: %w", image, e.host, ErrImageMissing)
	}
	if err != nil {
		return "", e.wrap("inspect image "+image, err)
	}
	return res.ID, nil
}
