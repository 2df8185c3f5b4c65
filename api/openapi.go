package api

import (
	"net/http"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/engine"
	"github.com/atelier-studio/atelier/sessions"
)

// operation is one route of the OpenAPI document. The document is written
// here by hand, apart from the mux registrations (server.go), so that a
// test comparing the two catches a route added to one only.
type operation struct {
	method, path, summary string
	tag                   string   // one of tags
	query                 []string // query parameters, declared in queryParams
	body                  any      // the request body's type, nil for none
	status                int      // the success status
	resp                  any      // the answer's type, nil for none
	stream                bool     // resumable with Last-Event-ID
	// sse are the types of the data of the Server-Sent Events the route
	// answers with (as its answer, or besides resp when asked).
	sse []any
	// rawBody and rawResp are the media types of a request body and an
	// answer that are bytes, not JSON (a file's content, a diff).
	rawBody, rawResp []string
	// reqHeaders and respHeaders are the headers it reads and answers
	// with (headerParams, respHeaders).
	reqHeaders, respHeaders []string
	// problems are the route's own problems; routeProblems adds those of
	// what it is (a body, a session, query parameters...).
	problems []problemRef
}

func operations() []operation {
	var (
		rc   = client.Receipt{}
		sess = sessions.Session{}
		// control: what the engine refuses of a control or an input.
		control = append(codes(client.CodeTransitionRefused), writeProblems...)
	)
	ops := tagged("host", []operation{
		{method: "GET", path: "/openapi.json", summary: "This document", status: 200, resp: map[string]any{}},
		{method: "GET", path: "/v1/health", summary: "Health of the host", status: 200, resp: client.Health{}},
		{method: "GET", path: "/v1/version", summary: "Version of the host and the API", status: 200, resp: client.Version{}},
	})
	sessionOps := []operation{
		{method: "GET", path: "/v1/sessions", summary: "List sessions, oldest first (archived ones with archived=true)", query: []string{"archived"}, status: 200, resp: []engine.ListedSession{}},
		{method: "POST", path: "/v1/sessions", summary: "Create a session", body: client.CreateRequest{}, status: 201, resp: sess,
			problems: codes(client.CodeUnknownAgent, client.CodeOutputSchema, client.CodeKeyConflict, client.CodeReadOnlyState,
				client.CodeUnknownInstance, client.CodeNotSupported, client.CodeNoInstances, client.CodeTextTooLarge, client.CodeExecutionUnavailable)},
		{method: "GET", path: "/v1/sessions/{id}", summary: "Get a session", status: 200, resp: sess},
	}
	for _, a := range plainActions {
		sessionOps = append(sessionOps, operation{method: "POST", path: "/v1/sessions/{id}/" + a, summary: "Control: " + a, status: 200, resp: rc, problems: control})
	}
	sessionOps = append(sessionOps, []operation{
		{method: "POST", path: "/v1/sessions/{id}/send", summary: "Send a prompt (idempotent with a key)", body: client.InputRequest{}, status: 200, resp: rc,
			problems: append(codes(client.CodeKeyConflict, client.CodeOutputSchema, client.CodeTextTooLarge), control...)},
		{method: "POST", path: "/v1/sessions/{id}/steer", summary: "Steer the turn (idempotent with a key)", body: client.InputRequest{}, status: 200, resp: rc,
			problems: append(codes(client.CodeKeyConflict, client.CodeTextTooLarge), control...)},
		{method: "POST", path: "/v1/sessions/{id}/model", summary: "Change the model", body: client.ModelRequest{}, status: 200, resp: rc, problems: control},
		{method: "POST", path: "/v1/sessions/{id}/approval", summary: "Change the approval policy", body: client.ApprovalRequest{}, status: 200, resp: rc, problems: control},
		{method: "POST", path: "/v1/sessions/{id}/fork", summary: "Fork a session's history into a new session", body: client.ForkRequest{}, status: 201, resp: sess, problems: control},
		{method: "GET", path: "/v1/sessions/{id}/messages", summary: "A page of the transcript: the newest, or before a message", query: []string{"limit", "before"}, status: 200, resp: client.MessagePage{}},
	}...)
	ops = append(ops, tagged("sessions", sessionOps)...)
	ops = append(ops, tagged("queue", []operation{
		{method: "GET", path: "/v1/sessions/{id}/queue", summary: "A session's pending inputs, in order", status: 200, resp: []sessions.Control{}},
		{method: "DELETE", path: "/v1/sessions/{id}/queue/{item}", summary: "Remove a pending input", status: 204,
			problems: append(codes(client.CodeNotQueued), writeProblems...)},
		{method: "POST", path: "/v1/sessions/{id}/queue/{item}/move", summary: "Move a pending input", body: client.MoveRequest{}, status: 204,
			problems: append(codes(client.CodeNotQueued), writeProblems...)},
		{method: "POST", path: "/v1/sessions/{id}/queue/{item}/edit", summary: "Replace a pending prompt's or steer's text, keeping its place and key", body: client.EditRequest{}, status: 204,
			problems: append(codes(client.CodeNotQueued, client.CodeNotEditable, client.CodeTextTooLarge), writeProblems...)},
		{method: "GET", path: "/v1/sessions/{id}/keys", summary: "A session's idempotency keys", status: 200, resp: []sessions.KeyRecord{}},
		{method: "DELETE", path: "/v1/sessions/{id}/keys/{key}", summary: "Forget an uncertain key", status: 204,
			problems: append(codes(client.CodeUnknownKey, client.CodeKeyNotUncertain), writeProblems...)},
	})...)
	ops = append(ops, tagged("interactions", []operation{
		{method: "GET", path: "/v1/actions", summary: "What waits on the operator (Action required), newest first", status: 200, resp: []client.ActionItem{}},
		{method: "GET", path: "/v1/interactions", summary: "Open interactions (of one session with session=ID)", query: []string{"session"}, status: 200, resp: []client.Interaction{},
			problems: codes(client.CodeAmbiguousSession, client.CodeUnknownSession)},
		{method: "POST", path: "/v1/sessions/{id}/interactions/{iid}", summary: "Answer an interaction", body: client.Response{}, status: 204,
			problems: append(codes(client.CodeUnknownInteraction, client.CodeAlreadyResolved, client.CodeBadAnswer), writeProblems...)},
	})...)
	ops = append(ops, tagged("exec", []operation{
		{method: "POST", path: "/v1/instances/{instance}/exec", summary: "Run a command in a session's execution environment (stream=true: its output as Server-Sent Events)", query: []string{"stream"}, body: client.ExecRequest{}, status: 200, resp: client.ExecResult{},
			sse:      []any{client.ExecChunk{}, client.ExecResult{}, problemRoot},
			problems: append(codes(client.CodeUnknownSession, client.CodeAmbiguousSession, client.CodeKeyConflict, client.CodeWorkspaceBusy), control...)},
	})...)
	ops = append(ops, tagged("events", []operation{
		{method: "GET", path: "/v1/events", summary: "The live view as Server-Sent Events (Last-Event-ID resumes)", query: []string{"session"}, status: 200, stream: true, sse: streamRoots,
			problems: codes(client.CodeAmbiguousSession, client.CodeUnknownSession)},
	})...)
	ops = append(ops, tagged("grants", grantsOperations())...)
	ops = append(ops, tagged("grants", contextOperations())...)
	ops = append(ops, tagged("events", signalsOperations())...)
	ops = append(ops, tagged("workflows", workflowsOperations())...)
	ops = append(ops, tagged("workflows", triggersOperations())...)
	ops = append(ops, tagged("host", configOperations())...)
	ops = append(ops, tagged("instances", instancesOperations())...)
	ops = append(ops, tagged("files", filesOperations())...)
	ops = append(ops, tagged("files", marksOperations())...)
	ops = append(ops, tagged("history", historyOperations())...)
	ops = append(ops, tagged("terminals", terminalsOperations())...)
	ops = append(ops, tagged("notify", notifyOperations())...)
	return ops
}

// tagged gives ops the tag of their role.
func tagged(tag string, ops []operation) []operation {
	for i := range ops {
		ops[i].tag = tag
	}
	return ops
}

// streamRoots are the data of the event stream's events: the snapshot it
// starts with (and starts again with after a resync), then the engine's
// events.
var streamRoots = []any{client.Snapshot{}, client.Event{}}

// problemRoot is the body of every problem answer.
var problemRoot = client.Problem{}

// tags are the document's tags, one by role, in the order a reader meets
// them; every operation has one of them.
var tags = []struct{ name, desc string }{
	{"host", "The host itself: health, version, the configuration it uses, this document"},
	{"sessions", "Sessions: create, read, control, send and steer"},
	{"queue", "A session's pending inputs and idempotency keys"},
	{"interactions", "What waits on the operator: approvals, questions, parks, stuck reports"},
	{"grants", "A session's grants and repairs, and what its agent is given"},
	{"events", "The live view (Server-Sent Events) and named events"},
	{"exec", "Commands run in a session's execution environment"},
	{"workflows", "Workflows, their runs, and the host's triggers"},
	{"instances", "The workspace's worktree and copy instances"},
	{"files", "The files of the workspace or of an instance"},
	{"history", "The workspace's history: commits, diffs, restores"},
	{"terminals", "Terminals the host owns, and attaching to them"},
	{"notify", "The host's notification channels"},
}

func (s *Server) openAPI(w http.ResponseWriter, _ *http.Request) error {
	doc, err := openAPIDocument(s.opts.Version)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, doc)
	return nil
}
