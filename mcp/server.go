package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/atelier-studio/atelier/api/client"
)

// Options configure a server.
type Options struct {
	// Version is the build's version, told to the MCP client.
	Version string
	// Attach returns a client of the workspace's engine. It is called on
	// the first tool call and again when the host has gone away.
	Attach func(ctx context.Context) (*client.Client, error)
	// Env returns the variables this process hands the engine for a
	// session of agent with each create and send (client.CreateRequest.Env):
	// those of the MCP client's environment that the agent reads. Nil
	// hands nothing.
	Env func(agent string) map[string]string
}

// NewServer returns an MCP server whose tools drive the engine that
// opts.Attach reaches. Run it on a transport (sdk.StdioTransport for
// `atelier mcp`).
func NewServer(opts Options) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "atelier", Title: "Atelier", Version: opts.Version}, &sdk.ServerOptions{
		Instructions: "Run and supervise Atelier coding-agent sessions in one workspace: create and start sessions, " +
			"send prompts, read their status and latest messages, answer what waits on the operator " +
			"(approvals, questions), pause, resume or cancel them, and run commands in a session's environment. " +
			"Give a key to a prompt or a command you may retry: a repeated key runs nothing new.",
	})
	t := &tools{conn: &conn{attach: opts.Attach}, env: opts.Env}
	t.register(s)
	return s
}

// Serve runs the server on the transport until the client disconnects or
// ctx ends.
func Serve(ctx context.Context, opts Options, tr sdk.Transport) error {
	return NewServer(opts).Run(ctx, tr)
}

// tools holds the tools' shared link to the engine.
type tools struct {
	conn *conn
	env  func(agent string) map[string]string
}

// envFor is what the tools hand over for a session of agent.
func (t *tools) envFor(agent string) map[string]string {
	if t.env == nil {
		return nil
	}
	return t.env(agent)
}

// addTool registers a tool whose input schema is derived from In, with its
// annotations (what it does to the workspace) and the enums given for some
// of its properties (property name → allowed values).
func addTool[In, Out any](s *sdk.Server, name, desc string, ann *sdk.ToolAnnotations, enums map[string][]any, h sdk.ToolHandlerFor[In, Out]) {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: input schema: %v", name, err)) // a programming error, found by any test
	}
	for prop, vals := range enums {
		p, ok := schema.Properties[prop]
		if !ok {
			panic(fmt.Sprintf("tool %s: no property %q for an enum", name, prop))
		}
		p.Enum = vals
	}
	sdk.AddTool(s, &sdk.Tool{Name: name, Description: desc, InputSchema: schema, Annotations: ann}, h)
}

// result is a tool's answer: one short line, then the structured content
// as JSON text too (MCP clients that show only text content to their model
// still see it all).
func result(summary string, out any) *sdk.CallToolResult {
	content := []sdk.Content{&sdk.TextContent{Text: summary}}
	if b, err := json.Marshal(out); err == nil {
		content = append(content, &sdk.TextContent{Text: string(b)})
	}
	return &sdk.CallToolResult{Content: content}
}

// toolError turns what a call failed with into a tool error. A problem the
// API reported starts with its stable code, so the calling agent can tell
// "unknown_session" from "transition_refused".
func toolError(op string, err error) error {
	var p *client.Problem
	if errors.As(err, &p) {
		detail := p.Detail
		if detail == "" {
			detail = p.Title
		}
		return fmt.Errorf("%s: %s (%s, HTTP %d)", p.Code, detail, op, p.Status)
	}
	return fmt.Errorf("%s: %w", op, err)
}
