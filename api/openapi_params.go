package api

import (
	"fmt"
	"math"
	"strings"
)

// param is how the document declares a query or path parameter.
type param struct {
	schema map[string]any
	desc   string
}

func integer(lo, hi, def int) map[string]any {
	return map[string]any{"type": "integer", "minimum": lo, "maximum": hi, "default": def}
}

var (
	boolean  = map[string]any{"type": "boolean"}
	str      = map[string]any{"type": "string"}
	idString = map[string]any{"type": "string", "pattern": idPattern.String()}
	duration = map[string]any{"type": "string", "description": "a Go duration: 30s, 5m, 1h30m"}
)

// queryParams are the query parameters by name: a name means the same on
// every route that takes it, but for the bounds of a limit (keyed by the
// route's path, then the name).
var queryParams = map[string]param{
	"archived":                         {boolean, "true lists the archived sessions instead"},
	"session":                          {idString, "only those of this session (an id, or a prefix of one that is unique)"},
	"before":                           {str, "the page before this one: a message's id, or a commit's hash (4 to 64 hex digits)"},
	"stream":                           {boolean, "true answers with Server-Sent Events as the command runs; false the plain answer whatever Accept says"},
	"path":                             {str, "a workspace path (relative to the workspace, or absolute inside it)"},
	"depth":                            {integer(1, maxTreeDepth, 1), "how many levels to list: 1 is the folder alone"},
	"hidden":                           {boolean, "true adds what .gitignore ignores and the folders the studio hides"},
	"overwrite":                        {boolean, "true may replace a file that is there"},
	"force":                            {boolean, "true removes it even with changes not applied"},
	"wait":                             {duration, "how long to wait (the write lease, at most 10m, default 30s; a run's end, at most a minute)"},
	"/v1/sessions/{id}/messages limit": {integer(1, maxPage, defaultPage), "messages in the page"},
	"/v1/instances/{instance}/history/commits limit": {integer(1, maxCommitPage, defaultCommitPage), "commits in the page"},
	"/v1/instances/{instance}/files/tree limit":      {integer(1, maxTreeLimit, defaultTreeLimit), "entries listed at most"},
	"/v1/instances/{instance}/history/commits/{commit}/diff path": {map[string]any{"type": "array", "items": str},
		"only the files under these paths (repeat path=)"},
}

// pathParams are the path parameters by name, or by the route's path
// and the name where a name means something else there.
var pathParams = map[string]param{
	"id": {idString, "a session's id (a prefix works where unique)"},
	// A run's id is its workflow's name and a digest of its key.
	"/v1/workflow-runs/{id} id":        {str, "a workflow run's id"},
	"/v1/workflow-runs/{id}/resume id": {str, "a workflow run's id"},
	"item":                             {idString, "a queued item's id"},
	"iid":                              {idString, "an interaction's id"},
	"tid":                              {idString, "a terminal's id"},
	"key":                              {map[string]any{"type": "string", "maxLength": 200}, "an idempotency key"},
	"instance":                         {map[string]any{"type": "string", "pattern": instanceIDPattern.String()}, `"main" (the workspace) or an instance's id`},
	"commit":                           {map[string]any{"type": "string", "pattern": commitPattern.String()}, "a commit's hash, or a prefix of 4 digits or more"},
	"name":                             {str, "a workflow's or a named event's name"},
}

// headerParams are the request headers a route reads, by name.
var headerParams = map[string]param{
	"If-Match": {str, "write only while the file holds what this ETag (a read's) names; * only asks that it exists"},
	"If-None-Match": {map[string]any{"type": "string", "enum": []string{"*"}},
		"* only creates: a file already there is refused (file_exists)"},
}

// respHeaders are the headers of a route's answer, by name.
var respHeaders = map[string]param{
	"ETag":                {str, "the SHA-256 of the content, quoted: give it as If-Match to write"},
	"Last-Modified":       {str, "when the file last changed"},
	"Atelier-Path":        {str, "the path, canonical"},
	"Atelier-Binary":      {boolean, "whether the content is binary"},
	"Atelier-Skipped":     {integer(0, math.MaxInt32, 0), "symlinks and special files left out of a folder's archive"},
	"Content-Disposition": {str, "attachment, with the file's or the archive's name"},
}

// headers declares the answer's headers of the names.
func headers(op operation) (map[string]any, error) {
	out := map[string]any{}
	for _, name := range op.respHeaders {
		p, ok := respHeaders[name]
		if !ok {
			return nil, fmt.Errorf("%s %s: answer header %q is not declared (respHeaders)", op.method, op.path, name)
		}
		out[name] = map[string]any{"description": p.desc, "schema": p.schema}
	}
	return out, nil
}

// parameters are op's path, query and header parameters.
func parameters(op operation) ([]any, error) {
	var params []any
	for _, seg := range strings.Split(op.path, "/") {
		if name, ok := strings.CutPrefix(seg, "{"); ok {
			name = strings.TrimSuffix(name, "}")
			p, ok := pathParams[op.path+" "+name]
			if !ok {
				p, ok = pathParams[name]
			}
			if !ok {
				return nil, fmt.Errorf("%s %s: path parameter %q is not declared (pathParams)", op.method, op.path, name)
			}
			params = append(params, map[string]any{"name": name, "in": "path", "required": true,
				"description": p.desc, "schema": p.schema})
		}
	}
	for _, q := range op.query {
		p, ok := queryParams[op.path+" "+q]
		if !ok {
			p, ok = queryParams[q]
		}
		if !ok {
			return nil, fmt.Errorf("%s %s: query parameter %q is not declared (queryParams)", op.method, op.path, q)
		}
		params = append(params, map[string]any{"name": q, "in": "query", "description": p.desc, "schema": p.schema})
	}
	for _, h := range op.reqHeaders {
		p, ok := headerParams[h]
		if !ok {
			return nil, fmt.Errorf("%s %s: header %q is not declared (headerParams)", op.method, op.path, h)
		}
		params = append(params, map[string]any{"name": h, "in": "header", "description": p.desc, "schema": p.schema})
	}
	if op.stream {
		params = append(params, map[string]any{"name": "Last-Event-ID", "in": "header",
			"description": "the id of the last event applied: the stream resumes after it",
			"schema":      map[string]any{"type": "string", "pattern": "^[0-9]+$"}})
	}
	return params, nil
}
