package cli

import (
	"errors"
	"fmt"

	"github.com/atelier-studio/atelier/attach"
	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/instances"
	"github.com/atelier-studio/atelier/sessions"
)

// engine opens a passive engine for a short command that has no host to
// reach (see openEngine).
func (s *streams) engine(workspace string) (*core.Engine, *config.Config, error) {
	e, cfg, _, err := s.openEngine(workspace, true)
	if err != nil {
		return nil, nil, err
	}
	return e, cfg, nil
}

// target is one session a subcommand acts on. api is what the command
// acts through: an engine this process opened (eng), or the API of a
// host, eng then nil (see open).
type target struct {
	eng *core.Engine
	api sessionAPI
	id  string // the full session id
}

// sessionErr gives the errors of acting on a session their exit code: a
// session that does not exist, an ambiguous prefix, an action its status
// forbids, an idempotency key unknown or already used for other work, or
// text over the engine's limit are the caller's mistake (usage); anything
// else failed.
func sessionErr(err error) error {
	if err == nil {
		return nil
	}
	var te *core.TransitionError
	switch {
	case errors.Is(err, sessions.ErrNotFound), errors.Is(err, core.ErrUnknownSession):
		return withCode(ExitUsage, fmt.Errorf("%w (see `atelier sessions --all`)", err))
	case errors.Is(err, sessions.ErrAmbiguous):
		return withCode(ExitUsage, fmt.Errorf("%w: give more of the id", err))
	case errors.As(err, &te), errors.Is(err, core.ErrUnknownInteraction), errors.Is(err, core.ErrResolved),
		errors.Is(err, core.ErrNotQueued), errors.Is(err, core.ErrNotEditable), errors.Is(err, core.ErrUnknownAgent),
		errors.Is(err, core.ErrKeyConflict), errors.Is(err, core.ErrUnknownKey), errors.Is(err, core.ErrOutputSchema),
		errors.Is(err, core.ErrBadAnswer), errors.Is(err, core.ErrTextTooLarge),
		errors.Is(err, attach.ErrTransitionRefused), errors.Is(err, attach.ErrKeyNotUncertain), errors.Is(err, attach.ErrBadRequest),
		errors.Is(err, instances.ErrNotFound), errors.Is(err, core.ErrNoInstances):
		return withCode(ExitUsage, err)
	}
	return err
}
