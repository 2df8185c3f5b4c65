package cli

import (
	"context"
	"encoding/json"
	"os/exec"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestBinaryMCP runs `atelier mcp` as an MCP client would (the SDK's
// command transport): with no host running it starts a detached one,
// and its tools drive that host's engine.
func TestBinaryMCP(t *testing.T) {
	b := newServeSandbox(t)
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	cmd := exec.Command(b.bin, "mcp", b.ws)
	cmd.Dir, cmd.Env = b.ws, b.env
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).
		Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := cs.Close(); err != nil {
			t.Logf("close the mcp server: %v", err)
		}
	}()
	if st := b.hostStatus(); !st.Running {
		t.Fatalf("atelier mcp started no host: %+v", st)
	}

	call := func(name string, args any) map[string]any {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
		raw, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		var out map[string]any
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	created := call("create_session", map[string]any{"task": "say hello", "hold": true})
	id, _ := created["session"].(map[string]any)["id"].(string)
	list := call("list_sessions", map[string]any{})
	got, _ := list["sessions"].([]any)
	if id == "" || len(got) != 1 || got[0].(map[string]any)["id"] != id {
		t.Fatalf("created %v, listed %v", created, list)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "read_session", Arguments: map[string]any{"session": "0000nosuch"}})
	if err != nil || !res.IsError {
		t.Fatalf("an unknown session: %v %+v", err, res)
	}
	b.run("serve", "--stop").want(t, ExitOK)
}
