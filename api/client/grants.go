package client

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/atelier-studio/atelier/sessions"
)

// RevokeRequest is the body of POST /v1/sessions/{id}/grants/revoke: the
// grant to withdraw, as Grants lists it ("exec:make test", "write").
type RevokeRequest struct {
	Grant string `json:"grant"`
}

// CodeUnknownGrant: a revoke names a grant the session does not hold
// (404). It lives here, beside the grants routes, until the list in
// problem.go is next edited.
const CodeUnknownGrant = "unknown_grant"

// ErrUnknownGrant matches, with errors.Is, the problem of a revoke that
// names a grant the session does not hold.
var ErrUnknownGrant = &Problem{Code: CodeUnknownGrant}

// Grants lists the "allow for this session" approvals a session holds, in
// lexical order: what it may do again without asking.
func (c *Client) Grants(ctx context.Context, id string) ([]string, error) {
	var out []string
	return out, c.do(ctx, http.MethodGet, sessionPath(id, "grants"), nil, &out)
}

// AgentContext is what a session's agent is given at its next step (GET
// /v1/sessions/{id}/context): the engine's core.AgentContext.
type AgentContext struct {
	Session      string     `json:"session"`
	Agent        string     `json:"agent"`
	Kind         string     `json:"kind"` // model (the engine's tool loop) or agent (keeps its own tools and history)
	Model        string     `json:"model,omitempty"`
	Instructions string     `json:"instructions"`
	Tools        []ToolSpec `json:"tools"`
	Messages     int        `json:"messages"`
	Bytes        int        `json:"bytes"`
	Compacted    bool       `json:"compacted"`
	Next         string     `json:"next,omitempty"` // the input the next turn starts with, if one waits
}

// ToolSpec is a tool offered to a model: its name, description and the
// JSON Schema of its input.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
}

// Context returns what a session's agent is given at its next step.
func (c *Client) Context(ctx context.Context, id string) (AgentContext, error) {
	var out AgentContext
	return out, c.do(ctx, http.MethodGet, sessionPath(id, "context"), nil, &out)
}

// Revoke withdraws one of a session's grants: the next such call asks
// again. A grant the session does not hold is ErrUnknownGrant.
func (c *Client) Revoke(ctx context.Context, id, grant string) error {
	return c.do(ctx, http.MethodPost, sessionPath(id, "grants", "revoke"), RevokeRequest{Grant: grant}, nil)
}

// Repairs lists what the engine repaired in a session's files when it
// opened them (a torn last line cut, a corrupt line skipped); empty when
// nothing was.
func (c *Client) Repairs(ctx context.Context, id string) ([]sessions.Repair, error) {
	var out []sessions.Repair
	return out, c.do(ctx, http.MethodGet, sessionPath(id, "repairs"), nil, &out)
}
