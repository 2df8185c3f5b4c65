package docker

import (
	"context"
	"errors"
	"fmt"

	"github.com/moby/moby/client"
)

// Cleanup removes the containers of workspace's sessions that are no longer
// alive, as alive reports (the caller knows whose session lease is stale),
// and returns the IDs it removed. Containers of live sessions, and of other
// workspaces, are never touched. Run it at start-up, before sessions resume.
func (e *Engine) Cleanup(ctx context.Context, workspace string, alive func(sessionID string) bool) ([]string, error) {
	if workspace == "" || alive == nil {
		return nil, errors.New("cleanup: workspace and liveness check are required")
	}
	list, err := e.cli.ContainerList(ctx, client.ContainerListOptions{
		All:     true,
		Filters: make(client.Filters).Add("label", LabelWorkspace+"="+workspace),
	})
	if err != nil {
		return nil, e.wrap("cleanup: list containers", err)
	}
	var removed []string
	var errs []error
	for _, c := range list.Items {
		if c.Labels[LabelWorkspace] != workspace {
			continue
		}
		if sid := c.Labels[LabelSession]; sid != "" && alive(sid) {
			continue
		}
		if err := e.remove(ctx, c.ID); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, c.ID)
	}
	if err := errors.Join(errs...); err != nil {
		return removed, fmt.Errorf("cleanup: %w", err)
	}
	return removed, nil
}
