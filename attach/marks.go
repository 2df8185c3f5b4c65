package attach

import (
	"context"

	"github.com/atelier-studio/atelier/engine"
)

// ChangeMarks are the engine's own (core keeps them), in process.
func (l local) ChangeMarks(context.Context) ([]engine.ChangeMark, error) {
	return l.Engine.ChangeMarks(), nil
}

// ChangeMarks asks the host for its change marks.
func (r *Remote) ChangeMarks(ctx context.Context) ([]engine.ChangeMark, error) {
	ms, err := r.opts.Client.ChangeMarks(ctx)
	return ms, Err(err)
}
