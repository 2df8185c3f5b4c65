package terminal

import "context"

// ContainerSpec is what an engine asks of a container backend for one
// session's environment. The engine says which session, where and from
// which image; how the container is locked down (network, limits, user)
// is the backend's, set when the composition root builds it.
type ContainerSpec struct {
	// SessionID names and labels the container, so a later environment
	// of the session and a cleanup find it.
	SessionID string
	// Home is the workspace the session belongs to: containers are
	// labelled with it, so a cleanup of the workspace finds those of its
	// sessions on instances too.
	Home string
	// Workspace is the folder mounted as the working directory: Home, or
	// the folder of the instance the session is on.
	Workspace string
	// Image is the image to run.
	Image string
	// ReadOnly mounts Workspace read-only.
	ReadOnly bool
	// ReadOnlyMounts are more host paths mounted read-only at the same
	// path inside: a worktree instance's git metadata.
	ReadOnlyMounts []string
}

// Containers is a backend that runs sessions in containers (the Docker
// one, terminal/docker). The engine is handed one by whoever builds it;
// without one, a session whose execution is a container cannot start.
type Containers interface {
	// Env makes (or finds again) the container of spec's session.
	Env(spec ContainerSpec) (Env, error)
	// Cleanup removes the containers of home's sessions that alive says
	// are gone, and returns their ids; a backend that does not answer
	// quickly removes nothing and says nothing (there is then nothing it
	// could have left).
	Cleanup(ctx context.Context, home string, alive func(sessionID string) bool) ([]string, error)
	// Ready checks, when a session is created, that its container can be
	// made: the backend answers and has image. A session that cannot run
	// is refused then, not after its first approval.
	Ready(ctx context.Context, image string) error
}
