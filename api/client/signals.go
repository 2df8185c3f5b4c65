package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
)

// SignalRequest is the body of POST /v1/signals/{name}: the data the
// woken wait tools return to their agents (any JSON; none is allowed).
type SignalRequest struct {
	Data json.RawMessage `json:"data,omitempty"`
}

// SignalResult says how many parked sessions a fired event woke.
type SignalResult struct {
	Woken int `json:"woken"`
}

// Signal fires the named event with data (nil for none) and says how many
// parked sessions it woke.
func (c *Client) Signal(ctx context.Context, name string, data json.RawMessage) (int, error) {
	var out SignalResult
	err := c.do(ctx, http.MethodPost, "/v1/signals/"+url.PathEscape(name), SignalRequest{Data: data}, &out)
	return out.Woken, err
}
