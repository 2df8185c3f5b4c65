package client

import (
	"context"
	"net/http"

	"github.com/atelier-studio/atelier/trigger/state"
)

// Triggers lists the workspace's triggers as its host runs them, each
// with its last firing and, for a schedule, when it is next due.
func (c *Client) Triggers(ctx context.Context) ([]state.Trigger, error) {
	var out []state.Trigger
	err := c.do(ctx, http.MethodGet, "/v1/triggers", nil, &out)
	return out, err
}
