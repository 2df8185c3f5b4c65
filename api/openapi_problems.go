package api

import (
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/engine"
)

// problemRef is a problem a route may answer: its status and code.
type problemRef struct {
	status int
	code   string
}

// problemStatus is the status each problem code is answered with: the
// engine's table (engine.Problems), then the server's own codes. A route
// declares the codes it answers (operation.problems) by this table.
var problemStatus = func() map[string]int {
	m := map[string]int{
		client.CodeBadRequest:         http.StatusBadRequest,
		client.CodeBodyTooLarge:       http.StatusRequestEntityTooLarge,
		client.CodeUnauthorized:       http.StatusUnauthorized,
		client.CodeNotFound:           http.StatusNotFound,
		client.CodeMethodNotAllowed:   http.StatusMethodNotAllowed,
		client.CodeUnknownInstance:    http.StatusNotFound,
		client.CodeKeyNotUncertain:    http.StatusConflict,
		client.CodeTransitionRefused:  http.StatusConflict,
		client.CodeNotSupported:       http.StatusNotImplemented,
		client.CodeEngineError:        http.StatusInternalServerError,
		client.CodeNoInstances:        http.StatusConflict,
		client.CodeInstanceExists:     http.StatusConflict,
		client.CodeInstanceConflict:   http.StatusConflict,
		client.CodeInstanceInUse:      http.StatusConflict,
		client.CodeUnappliedChanges:   http.StatusConflict,
		client.CodeNotWorktree:        http.StatusConflict,
		client.CodeWorkflowUnusable:   http.StatusBadRequest,
		client.CodeWorkflowConflict:   http.StatusConflict,
		client.CodeWorkflowUntrusted:  http.StatusForbidden,
		client.CodeWorkflowNotFound:   http.StatusNotFound,
		client.CodeWorkflowsOff:       http.StatusServiceUnavailable,
		client.CodeUnknownGrant:       http.StatusNotFound,
		client.CodeUnknownTerminal:    http.StatusNotFound,
		client.CodeUnknownCommit:      http.StatusNotFound,
		client.CodeNotInHistory:       http.StatusNotFound,
		client.CodeNothingToRestore:   http.StatusConflict,
		client.CodeHistoryMoved:       http.StatusConflict,
		client.CodeHistoryUnavailable: http.StatusServiceUnavailable,
		client.CodeDiffTooLarge:       http.StatusRequestEntityTooLarge,
		client.CodeOutsideWorkspace:   http.StatusForbidden,
		client.CodeProtectedPath:      http.StatusForbidden,
		client.CodeBadPath:            http.StatusBadRequest,
		client.CodeFileNotFound:       http.StatusNotFound,
		client.CodeFileExists:         http.StatusConflict,
		client.CodeNotAFile:           http.StatusConflict,
		client.CodeNotADirectory:      http.StatusConflict,
		client.CodeFileTooLarge:       http.StatusRequestEntityTooLarge,
		client.CodeStaleWrite:         http.StatusConflict,
		client.CodePathChanged:        http.StatusConflict,
		client.CodePermissionDenied:   http.StatusForbidden,
		client.CodeNoSpace:            http.StatusInsufficientStorage,
		codeMisdirectedHost:           http.StatusMisdirectedRequest,
		codeSettingsNotAllowed:        http.StatusForbidden,
		codeAgentCannotApprove:        http.StatusForbidden,
	}
	for _, p := range engine.Problems {
		m[p.Code] = p.Status
	}
	return m
}()

// codes are the problems of these codes, at their statuses.
func codes(cs ...string) []problemRef {
	refs := make([]problemRef, len(cs))
	for i, c := range cs {
		st, ok := problemStatus[c]
		if !ok {
			panic("api: problem code " + c + " has no status (problemStatus)")
		}
		refs[i] = problemRef{st, c}
	}
	return refs
}

// Problems every route shares.
var (
	// bodyProblems: a route that reads a JSON body refuses a malformed or
	// an oversized one.
	bodyProblems = codes(client.CodeBadRequest, client.CodeBodyTooLarge)
	// sessionProblems: a route under /v1/sessions/{id} resolves the id.
	sessionProblems = codes(client.CodeBadRequest, client.CodeAmbiguousSession, client.CodeUnknownSession)
	// writeProblems: a control or input the engine records.
	writeProblems = codes(client.CodeReadOnlyState, client.CodeReadOnlySession)
)

// routeProblems are the problems op may answer, sorted by status then
// code: its own (op.problems) and those of what it is (a body, a session
// path, an instance path, query parameters, a guarded route). The
// listeners' own (401, 421) and the server's 5xx are declared once, for
// every route (sharedResponses, default).
func routeProblems(op operation) []problemRef {
	all := slices.Clone(op.problems)
	pattern := op.method + " " + op.path
	if op.body != nil {
		all = append(all, bodyProblems...)
	}
	if strings.HasPrefix(op.path, "/v1/sessions/{id}") {
		all = append(all, sessionProblems...)
	}
	if strings.Contains(op.path, "{instance}") {
		all = append(all, codes(client.CodeUnknownInstance)...)
	}
	if len(op.query) > 0 || strings.Contains(op.path, "/{") {
		all = append(all, codes(client.CodeBadRequest)...)
	}
	if approverRoutes[pattern] {
		all = append(all, codes(codeAgentCannotApprove)...)
	}
	if slices.Contains(settingsRoutes, pattern) {
		all = append(all, codes(codeSettingsNotAllowed)...)
	}
	seen := map[problemRef]bool{}
	var out []problemRef
	for _, p := range all {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b problemRef) int {
		if a.status != b.status {
			return a.status - b.status
		}
		return strings.Compare(a.code, b.code)
	})
	return out
}

// problemResponses are op's problem answers by status: each the problem
// schema with its code narrowed to the route's codes of that status.
func problemResponses(op operation) map[string]any {
	byStatus := map[int][]string{}
	for _, p := range routeProblems(op) {
		byStatus[p.status] = append(byStatus[p.status], p.code)
	}
	out := map[string]any{}
	for _, st := range slices.Sorted(maps.Keys(byStatus)) {
		cs := byStatus[st]
		out[strconv.Itoa(st)] = map[string]any{
			"description": http.StatusText(st) + ": " + strings.Join(cs, ", "),
			"content":     map[string]any{"application/problem+json": map[string]any{"schema": problemSchema(cs...)}},
		}
	}
	return out
}

// sharedResponses are the problems of the TCP listener's guard, which any
// route may answer there, as components the routes refer to.
var sharedResponses = map[string]problemRef{
	"Unauthorized":    {http.StatusUnauthorized, client.CodeUnauthorized},
	"MisdirectedHost": {http.StatusMisdirectedRequest, codeMisdirectedHost},
}

func sharedResponseComponents() map[string]any {
	out := map[string]any{}
	for name, p := range sharedResponses {
		out[name] = map[string]any{
			"description": http.StatusText(p.status) + ": " + p.code + " (TCP only)",
			"content":     map[string]any{"application/problem+json": map[string]any{"schema": problemSchema(p.code)}},
		}
	}
	return out
}

// problemSchema is the problem schema with its code one of codes.
func problemSchema(codes ...string) map[string]any {
	return map[string]any{"allOf": []any{ref("Problem"), map[string]any{"type": "object", "required": []string{"code"},
		"properties": map[string]any{"code": map[string]any{"type": "string", "enum": codes}}}}}
}
