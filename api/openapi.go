package api

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/engine"
	"github.com/atelier-studio/atelier/sessions"
)

// operation is one route of the OpenAPI document. The document is written
// here by hand, apart from the mux registrations (server.go), so that a
// test comparing the two catches a route added to one only.
type operation struct {
	method, path, summary string
	query                 []string // query parameters (strings)
	body                  any      // the request body's type, nil for none
	status                int      // the success status
	resp                  any      // the answer's type, nil for none
	stream                bool     // text/event-stream of Events
}

func operations() []operation {
	var (
		rc   = client.Receipt{}
		sess = sessions.Session{}
	)
	ops := []operation{
		{method: "GET", path: "/openapi.json", summary: "This document", status: 200, resp: map[string]any{}},
		{method: "GET", path: "/v1/health", summary: "Health of the host", status: 200, resp: client.Health{}},
		{method: "GET", path: "/v1/version", summary: "Version of the host and the API", status: 200, resp: client.Version{}},
		{method: "GET", path: "/v1/sessions", summary: "List sessions, oldest first (archived ones with archived=true)", query: []string{"archived"}, status: 200, resp: []sessions.Session{}},
		{method: "POST", path: "/v1/sessions", summary: "Create a session", body: client.CreateRequest{}, status: 201, resp: sess},
		{method: "GET", path: "/v1/sessions/{id}", summary: "Get a session", status: 200, resp: sess},
	}
	for _, a := range plainActions {
		ops = append(ops, operation{method: "POST", path: "/v1/sessions/{id}/" + a, summary: "Control: " + a, status: 200, resp: rc})
	}
	ops = append(ops, []operation{
		{method: "POST", path: "/v1/sessions/{id}/send", summary: "Send a prompt (idempotent with a key)", body: client.InputRequest{}, status: 200, resp: rc},
		{method: "POST", path: "/v1/sessions/{id}/steer", summary: "Steer the turn (idempotent with a key)", body: client.InputRequest{}, status: 200, resp: rc},
		{method: "POST", path: "/v1/sessions/{id}/model", summary: "Change the model", body: client.ModelRequest{}, status: 200, resp: rc},
		{method: "POST", path: "/v1/sessions/{id}/approval", summary: "Change the approval policy", body: client.ApprovalRequest{}, status: 200, resp: rc},
		{method: "POST", path: "/v1/sessions/{id}/fork", summary: "Fork a session's history into a new session", body: client.ForkRequest{}, status: 201, resp: sess},
		{method: "GET", path: "/v1/sessions/{id}/queue", summary: "A session's pending inputs, in order", status: 200, resp: []sessions.Control{}},
		{method: "DELETE", path: "/v1/sessions/{id}/queue/{item}", summary: "Remove a pending input", status: 204},
		{method: "POST", path: "/v1/sessions/{id}/queue/{item}/move", summary: "Move a pending input", body: client.MoveRequest{}, status: 204},
		{method: "POST", path: "/v1/sessions/{id}/queue/{item}/edit", summary: "Replace a pending prompt's or steer's text, keeping its place and key", body: client.EditRequest{}, status: 204},
		{method: "GET", path: "/v1/sessions/{id}/keys", summary: "A session's idempotency keys", status: 200, resp: []sessions.KeyRecord{}},
		{method: "DELETE", path: "/v1/sessions/{id}/keys/{key}", summary: "Forget an uncertain key", status: 204},
		{method: "GET", path: "/v1/actions", summary: "What waits on the operator (Action required), newest first", status: 200, resp: []client.ActionItem{}},
		{method: "GET", path: "/v1/interactions", summary: "Open interactions (of one session with session=ID)", query: []string{"session"}, status: 200, resp: []client.Interaction{}},
		{method: "POST", path: "/v1/sessions/{id}/interactions/{iid}", summary: "Answer an interaction", body: client.Response{}, status: 204},
		{method: "GET", path: "/v1/sessions/{id}/messages", summary: "A page of the transcript: the newest, or before a message", query: []string{"limit", "before"}, status: 200, resp: client.MessagePage{}},
		{method: "POST", path: "/v1/instances/{instance}/exec", summary: "Run a command in a session's execution environment (stream=true: its output as Server-Sent Events)", query: []string{"stream"}, body: client.ExecRequest{}, status: 200, resp: client.ExecResult{}},
		{method: "GET", path: "/v1/events", summary: "The live view as Server-Sent Events (Last-Event-ID resumes)", query: []string{"session"}, status: 200, resp: client.Event{}, stream: true},
	}...)
	ops = append(ops, grantsOperations()...)
	ops = append(ops, contextOperations()...)
	ops = append(ops, signalsOperations()...)
	ops = append(ops, workflowsOperations()...)
	ops = append(ops, triggersOperations()...)
	ops = append(ops, configOperations()...)
	ops = append(ops, instancesOperations()...)
	ops = append(ops, filesOperations()...)
	ops = append(ops, historyOperations()...)
	ops = append(ops, terminalsOperations()...)
	ops = append(ops, notifyOperations()...)
	return ops
}

// openAPIDocument builds the OpenAPI 3.1 document: the operations, with
// the schemas of their types derived from the wire types themselves.
func openAPIDocument(version string) map[string]any {
	sg := &schemaGen{defs: map[string]any{}}
	sg.of(reflect.TypeFor[client.Problem]())
	sg.of(reflect.TypeFor[client.Snapshot]()) // the first event of a stream
	paths := map[string]map[string]any{}
	for _, op := range operations() {
		o := map[string]any{"summary": op.summary, "operationId": operationID(op)}
		var params []any
		for _, seg := range strings.Split(op.path, "/") {
			if strings.HasPrefix(seg, "{") {
				params = append(params, map[string]any{"name": strings.Trim(seg, "{}"), "in": "path",
					"required": true, "schema": map[string]any{"type": "string"}})
			}
		}
		for _, q := range op.query {
			params = append(params, map[string]any{"name": q, "in": "query", "schema": map[string]any{"type": "string"}})
		}
		if op.stream {
			params = append(params, map[string]any{"name": "Last-Event-ID", "in": "header", "schema": map[string]any{"type": "string"}})
		}
		if params != nil {
			o["parameters"] = params
		}
		if op.body != nil {
			o["requestBody"] = map[string]any{"required": true, "content": map[string]any{
				"application/json": map[string]any{"schema": sg.of(reflect.TypeOf(op.body))}}}
		}
		ok := map[string]any{"description": http.StatusText(op.status)}
		switch {
		case op.stream:
			ok["content"] = map[string]any{"text/event-stream": map[string]any{"schema": sg.of(reflect.TypeOf(op.resp))}}
		case op.resp != nil:
			ok["content"] = map[string]any{"application/json": map[string]any{"schema": sg.of(reflect.TypeOf(op.resp))}}
		}
		o["responses"] = map[string]any{
			strconv.Itoa(op.status): ok,
			"default": map[string]any{"description": "A problem (RFC 9457)", "content": map[string]any{
				"application/problem+json": map[string]any{"schema": ref("Problem")}}},
		}
		if paths[op.path] == nil {
			paths[op.path] = map[string]any{}
		}
		paths[op.path][strings.ToLower(op.method)] = o
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{"title": "Atelier engine API", "version": version,
			"description": "The API of a workspace's engine; see docs/api.md."},
		"paths":      paths,
		"components": map[string]any{"schemas": sg.defs},
	}
}

func operationID(op operation) string {
	id := strings.ToLower(op.method)
	for _, seg := range strings.Split(op.path, "/") {
		seg = strings.Trim(seg, "{}")
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, ".", "_"), "-", "_")
		if seg != "" && seg != "v1" {
			id += "_" + seg
		}
	}
	return id
}

func ref(name string) map[string]any { return map[string]any{"$ref": "#/components/schemas/" + name} }

// schemaGen derives JSON Schemas from Go types by their json tags; named
// structs become components.
type schemaGen struct{ defs map[string]any }

func schemaName(t reflect.Type) string {
	// The client's wire types and the engine's own, which it sends as they
	// are, are the API's: they go unqualified.
	if p := t.PkgPath(); p == reflect.TypeFor[client.Event]().PkgPath() || p == reflect.TypeFor[engine.Event]().PkgPath() {
		return t.Name()
	}
	pkg := t.PkgPath()[strings.LastIndex(t.PkgPath(), "/")+1:]
	return pkg + "." + t.Name()
}

func (g *schemaGen) of(t reflect.Type) map[string]any {
	if t == reflect.TypeFor[time.Time]() {
		return map[string]any{"type": "string", "format": "date-time"}
	}
	if t == reflect.TypeFor[json.RawMessage]() {
		return map[string]any{}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return g.of(t.Elem())
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint64, reflect.Uint32:
		return map[string]any{"type": "integer"}
	case reflect.Float64, reflect.Float32:
		return map[string]any{"type": "number"}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": g.of(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.of(t.Elem())}
	case reflect.Interface:
		return map[string]any{}
	case reflect.Struct:
		name := schemaName(t)
		if _, done := g.defs[name]; !done {
			g.defs[name] = nil // a placeholder against recursion
			props := map[string]any{}
			g.fields(t, props)
			g.defs[name] = map[string]any{"type": "object", "properties": props}
		}
		return ref(name)
	}
	return map[string]any{}
}

// fields adds the JSON fields of struct t to props, flattening embedded
// structs as encoding/json does.
func (g *schemaGen) fields(t reflect.Type, props map[string]any) {
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			g.fields(f.Type, props)
			continue
		}
		if name == "" {
			name = f.Name
		}
		props[name] = g.of(f.Type)
	}
}

func (s *Server) openAPI(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, http.StatusOK, openAPIDocument(s.opts.Version))
	return nil
}
