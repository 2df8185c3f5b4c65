package api

import (
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"strconv"
	"strings"
)

// bearerScheme is the security scheme of the TCP listener's token.
const bearerScheme = "bearer"

// openAPIDocument builds the OpenAPI 3.1 document: the operations, with
// the schemas of their types derived from the wire types themselves, the
// problems each route answers, and the bearer token a TCP listener asks
// of every request (the unix socket, owner-only, needs none).
func openAPIDocument(version string) (map[string]any, error) {
	sg := newSchemaGen()
	sg.of(reflect.TypeOf(problemRoot))
	paths := map[string]map[string]any{}
	for _, op := range operations() {
		o, err := operationObject(sg, op)
		if err != nil {
			return nil, err
		}
		if paths[op.path] == nil {
			paths[op.path] = map[string]any{}
		}
		paths[op.path][strings.ToLower(op.method)] = o
	}
	if len(sg.conflicts) > 0 {
		return nil, fmt.Errorf("schemas both a request body and an answer: %v", sg.conflicts)
	}
	var tagList []any
	for _, t := range tags {
		tagList = append(tagList, map[string]any{"name": t.name, "description": t.desc})
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{"title": "Atelier engine API", "version": version,
			"description": "The API of a workspace's engine; see docs/api.md. On the unix socket it needs no token (the socket is owner-only); on TCP (atelier serve --listen) every request needs the bearer token."},
		"servers": []any{map[string]any{"url": "http://127.0.0.1:{port}",
			"description": "A loopback TCP listener (atelier serve --listen 127.0.0.1:PORT); the unix socket serves the same paths",
			"variables":   map[string]any{"port": map[string]any{"default": "7420"}}}},
		"tags":  tagList,
		"paths": paths,
		"components": map[string]any{
			"schemas":   sg.defs,
			"responses": sharedResponseComponents(),
			"securitySchemes": map[string]any{bearerScheme: map[string]any{"type": "http", "scheme": "bearer",
				"description": "The host's token ($XDG_CONFIG_HOME/atelier/token), required of every TCP request; the unix socket needs none"}},
		},
	}, nil
}

// rawContent declares bytes of each of the media types; a multipart
// form's are its one file part, under any name.
func rawContent(types []string) map[string]any {
	out := map[string]any{}
	binary := map[string]any{"type": "string", "format": "binary"}
	for _, t := range types {
		if t == "multipart/form-data" {
			out[t] = map[string]any{"schema": map[string]any{"type": "object", "additionalProperties": binary,
				"minProperties": 1, "maxProperties": 1}}
			continue
		}
		out[t] = map[string]any{"schema": binary}
	}
	return out
}

// operationID is op's operationId: its method and path segments, unique as
// the routes are.
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

// operationObject is op's Operation Object; sg gathers the schemas its
// types need.
func operationObject(sg *schemaGen, op operation) (map[string]any, error) {
	o := map[string]any{"summary": op.summary, "operationId": operationID(op), "tags": []string{op.tag},
		"security": []any{map[string]any{bearerScheme: []string{}}}}
	params, err := parameters(op)
	if err != nil {
		return nil, err
	}
	if params != nil {
		o["parameters"] = params
	}
	switch {
	case op.body != nil:
		o["requestBody"] = map[string]any{"required": true, "content": map[string]any{
			"application/json": map[string]any{"schema": sg.forRequest(reflect.TypeOf(op.body))}}}
	case op.rawBody != nil:
		o["requestBody"] = map[string]any{"content": rawContent(op.rawBody)}
	}
	ok := map[string]any{"description": http.StatusText(op.status)}
	content := map[string]any{}
	if op.resp != nil {
		content["application/json"] = map[string]any{"schema": sg.of(reflect.TypeOf(op.resp))}
	}
	if op.sse != nil {
		var data []any
		for _, v := range op.sse {
			data = append(data, sg.of(reflect.TypeOf(v)))
		}
		schema := data[0].(map[string]any)
		if len(data) > 1 {
			schema = map[string]any{"oneOf": data}
		}
		content["text/event-stream"] = map[string]any{"schema": schema}
	}
	maps.Copy(content, rawContent(op.rawResp))
	if len(content) > 0 {
		ok["content"] = content
	}
	hs, err := headers(op)
	if err != nil {
		return nil, err
	}
	if len(hs) > 0 {
		ok["headers"] = hs
	}
	responses := problemResponses(op)
	responses[strconv.Itoa(op.status)] = ok
	responses["401"] = map[string]any{"$ref": "#/components/responses/Unauthorized"}
	responses["421"] = map[string]any{"$ref": "#/components/responses/MisdirectedHost"}
	responses["default"] = map[string]any{"description": "A problem (RFC 9457): the engine failed or is closing", "content": map[string]any{
		"application/problem+json": map[string]any{"schema": ref("Problem")}}}
	o["responses"] = responses
	return o, nil
}
