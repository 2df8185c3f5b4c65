package acp

import (
	"context"
	"fmt"
	"strings"
	"sync"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/atelier-studio/atelier/harness"
)

// client is the client side of one agent connection: it answers what the
// agent asks, through the turn that runs. Between turns there is no host
// to serve a request, so requests are refused and updates dropped.
type client struct {
	terms *terminals

	mu     sync.Mutex
	turn   *binding
	replay bool // session/load replays old history: not this turn's output
}

// binding is what the running turn lends the client.
type binding struct {
	ctx  context.Context // the turn's: cancelling the turn cancels requests
	host harness.Host
	view *view
}

var _ acpsdk.Client = (*client)(nil)

func newClient() *client { return &client{terms: newTerminals()} }

func (c *client) bind(b *binding) {
	c.mu.Lock()
	c.turn = b
	c.mu.Unlock()
}

func (c *client) unbind() {
	c.mu.Lock()
	c.turn = nil
	c.mu.Unlock()
}

func (c *client) setReplay(on bool) {
	c.mu.Lock()
	c.replay = on
	c.mu.Unlock()
}

// current returns the running turn and a context that ends with either the
// request's or the turn's.
func (c *client) current(ctx context.Context) (*binding, context.Context, context.CancelFunc, error) {
	c.mu.Lock()
	b := c.turn
	c.mu.Unlock()
	if b == nil {
		return nil, nil, nil, ErrNoTurn
	}
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(b.ctx, cancel)
	return b, ctx, func() { stop(); cancel() }, nil
}

// SessionUpdate implements acpsdk.Client.
func (c *client) SessionUpdate(ctx context.Context, n acpsdk.SessionNotification) error {
	c.mu.Lock()
	b, replay := c.turn, c.replay
	c.mu.Unlock()
	if b == nil || replay {
		return nil
	}
	b.view.update(n.Update)
	return nil
}

// RequestPermission implements acpsdk.Client: the operator decides; the
// agent gets its allow-once or reject-once option, or "cancelled" when the
// turn ends meanwhile or it offers no such option.
func (c *client) RequestPermission(ctx context.Context, p acpsdk.RequestPermissionRequest) (acpsdk.RequestPermissionResponse, error) {
	cancelled := acpsdk.RequestPermissionResponse{Outcome: acpsdk.NewRequestPermissionOutcomeCancelled()}
	b, ctx, done, err := c.current(ctx)
	if err != nil {
		return cancelled, nil
	}
	defer done()
	b.view.await(ctx, string(p.ToolCall.ToolCallId))
	req := b.view.approval(p.ToolCall)
	ans, err := b.host.Approve(ctx, req)
	if err != nil {
		return cancelled, nil
	}
	want := acpsdk.PermissionOptionKindRejectOnce
	if ans.Allowed {
		want = acpsdk.PermissionOptionKindAllowOnce
	} else {
		why := "denied by the operator"
		if ans.Message != "" {
			why += ": " + ans.Message
		}
		b.view.deny(req.ToolCall, why)
	}
	for _, o := range p.Options {
		if o.Kind == want {
			return acpsdk.RequestPermissionResponse{Outcome: acpsdk.NewRequestPermissionOutcomeSelected(o.OptionId)}, nil
		}
	}
	b.view.notice(fmt.Sprintf("the agent offered no %s option for %q; the request was cancelled", want, req.Reason))
	return cancelled, nil
}

// ReadTextFile implements acpsdk.Client through Host.ReadFile; line (from
// 1) and limit select lines.
func (c *client) ReadTextFile(ctx context.Context, p acpsdk.ReadTextFileRequest) (acpsdk.ReadTextFileResponse, error) {
	b, ctx, done, err := c.current(ctx)
	if err != nil {
		return acpsdk.ReadTextFileResponse{}, fmt.Errorf("read %s: %w", p.Path, err)
	}
	defer done()
	data, err := b.host.ReadFile(ctx, p.Path)
	if err != nil {
		return acpsdk.ReadTextFileResponse{}, fmt.Errorf("read %s: %w", p.Path, err)
	}
	return acpsdk.ReadTextFileResponse{Content: selectLines(string(data), p.Line, p.Limit)}, nil
}

func selectLines(s string, line, limit *int) string {
	if line == nil && limit == nil {
		return s
	}
	lines := strings.SplitAfter(s, "\n")
	start := 0
	if line != nil && *line > 1 {
		start = min(*line-1, len(lines))
	}
	end := len(lines)
	if limit != nil && *limit >= 0 && start+*limit < end {
		end = start + *limit
	}
	return strings.Join(lines[start:end], "")
}

// WriteTextFile implements acpsdk.Client through Host.WriteFile.
func (c *client) WriteTextFile(ctx context.Context, p acpsdk.WriteTextFileRequest) (acpsdk.WriteTextFileResponse, error) {
	b, ctx, done, err := c.current(ctx)
	if err != nil {
		return acpsdk.WriteTextFileResponse{}, fmt.Errorf("write %s: %w", p.Path, err)
	}
	defer done()
	if err := b.host.WriteFile(ctx, p.Path, []byte(p.Content)); err != nil {
		return acpsdk.WriteTextFileResponse{}, fmt.Errorf("write %s: %w", p.Path, err)
	}
	return acpsdk.WriteTextFileResponse{}, nil
}

// CreateTerminal implements acpsdk.Client: the command runs through
// Host.Exec for as long as the turn runs (or until killed or released).
func (c *client) CreateTerminal(ctx context.Context, p acpsdk.CreateTerminalRequest) (acpsdk.CreateTerminalResponse, error) {
	c.mu.Lock()
	b := c.turn
	c.mu.Unlock()
	if b == nil {
		return acpsdk.CreateTerminalResponse{}, fmt.Errorf("terminal %s: %w", p.Command, ErrNoTurn)
	}
	id, err := c.terms.create(b.ctx, b.host, p)
	if err != nil {
		return acpsdk.CreateTerminalResponse{}, fmt.Errorf("terminal %s: %w", p.Command, err)
	}
	return acpsdk.CreateTerminalResponse{TerminalId: id}, nil
}

// TerminalOutput implements acpsdk.Client.
func (c *client) TerminalOutput(ctx context.Context, p acpsdk.TerminalOutputRequest) (acpsdk.TerminalOutputResponse, error) {
	return c.terms.output(p.TerminalId)
}

// WaitForTerminalExit implements acpsdk.Client.
func (c *client) WaitForTerminalExit(ctx context.Context, p acpsdk.WaitForTerminalExitRequest) (acpsdk.WaitForTerminalExitResponse, error) {
	return c.terms.wait(ctx, p.TerminalId)
}

// KillTerminal implements acpsdk.Client.
func (c *client) KillTerminal(ctx context.Context, p acpsdk.KillTerminalRequest) (acpsdk.KillTerminalResponse, error) {
	return acpsdk.KillTerminalResponse{}, c.terms.kill(p.TerminalId)
}

// ReleaseTerminal implements acpsdk.Client.
func (c *client) ReleaseTerminal(ctx context.Context, p acpsdk.ReleaseTerminalRequest) (acpsdk.ReleaseTerminalResponse, error) {
	return acpsdk.ReleaseTerminalResponse{}, c.terms.release(p.TerminalId)
}
