package cli

import (
	"context"

	"github.com/atelier-studio/atelier/tui"
)

// runStudio opens the studio on a workspace. The engine is closed after the
// studio quits, which stops running turns at a safe point and leaves those
// sessions resumable by the next studio or `atelier sessions resume --wait`.
func runStudio(ctx context.Context, dir string, s *streams) error {
	s.client = "studio"
	eng, cfg, ag, err := s.openEngine(dir, false)
	if err != nil {
		return err
	}
	var names []string
	def := cfg.DefaultAgent()
	names = append(names, def)
	for _, a := range ag.list() {
		if a.Available && a.Name != def {
			names = append(names, a.Name)
		}
	}
	runErr := tui.Run(ctx, tui.Options{Engine: eng, Workspace: dir, Agents: names, Files: eng.Files(),
		Config: cfg, Destroy: eng.Destroy})
	if err := eng.Close(); runErr == nil {
		runErr = err
	}
	return runErr
}
