package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/host"
)

// A workspace on another machine. `--engine URL` (or ATELIER_ENGINE)
// points every command at the engine an `atelier serve --listen` runs
// there, reached directly over TLS or through an SSH tunnel: the commands
// that drive sessions (create, run, the controls, send and steer, the
// answers, the queue, keys, exec, --wait) and those that read them
// (sessions, show, actions) go through its API. Nothing then opens this
// machine's store or starts a host here: a command that needs the
// workspace's files on this machine says it is not available, and an
// engine that does not answer is an error, never a silent fallback to
// the local folder.

// engineURL is the engine the commands drive, "" for the workspace's own.
func (s *streams) engineURL() string {
	if s.engineFlag != "" {
		return s.engineFlag
	}
	return s.env.getenv("ATELIER_ENGINE")
}

// remoteEngine connects to the engine at engineURL with the bearer token
// of ATELIER_TOKEN, or else of this user's token file, and checks that it
// answers.
func (s *streams) remoteEngine(ctx context.Context) (*client.Client, error) {
	url := s.engineURL()
	tok := s.env.getenv("ATELIER_TOKEN")
	if tok == "" {
		t, path, err := host.ReadToken(s.env.getenv)
		if err != nil {
			return nil, withCode(ExitFailed, fmt.Errorf("the engine at %s needs its token: set ATELIER_TOKEN to the one `atelier serve --listen` printed there (%s: %w)", url, path, err))
		}
		tok = t
	}
	label := s.client
	if label == "" {
		label = "cli"
	}
	c, err := client.New(url, client.Options{Token: tok, Label: label})
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	hctx, cancel := context.WithTimeout(ctx, hostProbeTimeout)
	defer cancel()
	h, err := c.Health(hctx)
	if err != nil {
		c.CloseIdle()
		return nil, withCode(ExitFailed, fmt.Errorf("the engine at %s: %w", url, remoteErr(err)))
	}
	hostBuild.say(s.err, host.BuildNotice(h.Version, version()))
	return c, nil
}

// errLocalOnly says a command works on this machine's workspace only.
var errLocalOnly = errors.New("works on this machine's workspace only")

// notRemote is what a command that would open this machine's store says
// under --engine: why the engine did not answer, or that the command
// cannot go through it.
func (s *streams) notRemote() error {
	if s.remoteErr != nil {
		return s.remoteErr
	}
	return withCode(ExitUsage, fmt.Errorf("with --engine %s this command is not available: it %w (run it there, over ssh)", s.engineURL(), errLocalOnly))
}
