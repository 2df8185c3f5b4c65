package cli

import (
	"context"
	"errors"
)

// runStudio opens the studio on a workspace. It is wired to the tui package
// once that lands.
func runStudio(ctx context.Context, dir string, s *streams) error {
	return withCode(ExitFailed, errors.New("the studio is not built yet"))
}
