package client

import (
	"context"
	"net/http"

	"github.com/atelier-studio/atelier/notify"
)

// Notify lists the host's notification channels and whether each is ready.
func (c *Client) Notify(ctx context.Context) (notify.Status, error) {
	var st notify.Status
	return st, c.do(ctx, http.MethodGet, "/v1/notify", nil, &st)
}

// NotifyTest sends a test notification through every channel of the host
// and says how each fared; it waits for the channels' runs.
func (c *Client) NotifyTest(ctx context.Context) ([]notify.Result, error) {
	var rs []notify.Result
	return rs, c.do(ctx, http.MethodPost, "/v1/notify/test", nil, &rs)
}
