package docker

import (
	"context"
	"sync"
	"time"

	"github.com/atelier-studio/atelier/terminal"
)

// Sessions is the Docker backend of an engine's sessions
// (terminal.Containers): every session's container goes through one
// connection to the Docker engine, made on first use, so an engine whose
// sessions all run locally never dials Docker. base holds what every
// container of the workspace shares (network, limits, user); each
// session's spec fills in the rest.
type Sessions struct {
	opts EngineOptions
	base Config

	mu  sync.Mutex
	eng *Engine
}

var _ terminal.Containers = (*Sessions)(nil)

// NewSessions returns the Docker backend that dials with opts and makes
// containers from base.
func NewSessions(opts EngineOptions, base Config) *Sessions {
	return &Sessions{opts: opts, base: base}
}

// engine is the connection, made on first use.
func (s *Sessions) engine() (*Engine, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.eng == nil {
		e, err := NewEngine(s.opts)
		if err != nil {
			return nil, err
		}
		s.eng = e
	}
	return s.eng, nil
}

// Env makes the container environment of spec's session.
func (s *Sessions) Env(spec terminal.ContainerSpec) (terminal.Env, error) {
	eng, err := s.engine()
	if err != nil {
		return nil, err
	}
	c := s.base
	c.SessionID, c.Home, c.Workspace, c.ReadOnly, c.Image = spec.SessionID, spec.Home, spec.Workspace, spec.ReadOnly, spec.Image
	c.Mounts = append([]Mount(nil), c.Mounts...)
	for _, p := range spec.ReadOnlyMounts {
		c.Mounts = append(c.Mounts, Mount{Source: p, ReadOnly: true})
	}
	return eng.NewEnv(c)
}

// Ready implements terminal.Containers: the engine answers and has image
// (Atelier never pulls it).
func (s *Sessions) Ready(ctx context.Context, image string) error {
	eng, err := s.engine()
	if err != nil {
		return err
	}
	if err := eng.Ping(ctx); err != nil {
		return err
	}
	return eng.checkImage(ctx, image)
}

// cleanupPing bounds how long a cleanup waits for the Docker engine to
// answer before it leaves: a machine without Docker does not wait on it.
const cleanupPing = 10 * time.Second

// Cleanup removes the containers of home's sessions that are gone (see
// Engine.Cleanup), when a Docker engine answers within cleanupPing.
func (s *Sessions) Cleanup(ctx context.Context, home string, alive func(sessionID string) bool) ([]string, error) {
	eng, err := s.engine()
	if err != nil {
		return nil, nil // no Docker configured: no container could be left
	}
	pctx, cancel := context.WithTimeout(ctx, cleanupPing)
	defer cancel()
	if eng.Ping(pctx) != nil {
		return nil, nil
	}
	return eng.Cleanup(pctx, home, alive)
}

// Close ends the connection, if one was made.
func (s *Sessions) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.eng == nil {
		return nil
	}
	err := s.eng.Close()
	s.eng = nil
	return err
}
