package client

import (
	"context"
	"net/http"

	"github.com/atelier-studio/atelier/engine"
)

// ChangeMark is one path of the workspace's change marks.
type ChangeMark = engine.ChangeMark

// Marks is the body of GET /v1/marks: the workspace's change marks,
// sorted by path.
type Marks struct {
	Marks []ChangeMark `json:"marks"`
}

// KindMarks is an event that replaces the change marks (Event.Marks).
const KindMarks = engine.EvMarks

// ChangeMarks reads the workspace's change marks: each path created,
// changed or deleted since the last turn started.
func (c *Client) ChangeMarks(ctx context.Context) ([]ChangeMark, error) {
	var out Marks
	if err := c.do(ctx, http.MethodGet, "/v1/marks", nil, &out); err != nil {
		return nil, err
	}
	return out.Marks, nil
}
