package acp

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/atelier-studio/atelier/internal/agenttest"
)

// goAgent is a small ACP agent, built on the SDK's agent side, that asks
// its client for what real agents ask: permissions, file reads and writes,
// terminals. What it does depends on the prompt's first word. It runs in
// the test process at the other end of a pipeProc.
type goAgent struct {
	proc *agenttest.Proc
	conn *acpsdk.AgentSideConnection
	ws   string

	mu       sync.Mutex
	sessions map[acpsdk.SessionId]bool
	picked   []string // the permission outcomes it got
	next     int
}

func startGoAgent(ws string) *goAgent {
	a := &goAgent{proc: agenttest.NewProc(), ws: ws, sessions: map[acpsdk.SessionId]bool{}}
	a.conn = acpsdk.NewAgentSideConnection(a, a.proc.OutW, a.proc.InR)
	a.conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	go func() {
		<-a.conn.Done()
		a.proc.Exit(0) // its input ended
	}()
	return a
}

func (a *goAgent) Picked() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.picked...)
}

func (a *goAgent) Authenticate(context.Context, acpsdk.AuthenticateRequest) (acpsdk.AuthenticateResponse, error) {
	return acpsdk.AuthenticateResponse{}, nil
}

func (a *goAgent) Initialize(_ context.Context, p acpsdk.InitializeRequest) (acpsdk.InitializeResponse, error) {
	if !p.ClientCapabilities.Fs.ReadTextFile || !p.ClientCapabilities.Fs.WriteTextFile || !p.ClientCapabilities.Terminal {
		return acpsdk.InitializeResponse{}, fmt.Errorf("client capabilities %+v", p.ClientCapabilities)
	}
	return acpsdk.InitializeResponse{ProtocolVersion: acpsdk.ProtocolVersionNumber,
		AgentCapabilities: acpsdk.AgentCapabilities{LoadSession: true}}, nil
}

func (a *goAgent) Cancel(context.Context, acpsdk.CancelNotification) error { return nil }

func (a *goAgent) CloseSession(context.Context, acpsdk.CloseSessionRequest) (acpsdk.CloseSessionResponse, error) {
	return acpsdk.CloseSessionResponse{}, nil
}

func (a *goAgent) ListSessions(context.Context, acpsdk.ListSessionsRequest) (acpsdk.ListSessionsResponse, error) {
	return acpsdk.ListSessionsResponse{}, nil
}

func (a *goAgent) ResumeSession(context.Context, acpsdk.ResumeSessionRequest) (acpsdk.ResumeSessionResponse, error) {
	return acpsdk.ResumeSessionResponse{}, nil
}

func (a *goAgent) SetSessionConfigOption(context.Context, acpsdk.SetSessionConfigOptionRequest) (acpsdk.SetSessionConfigOptionResponse, error) {
	return acpsdk.SetSessionConfigOptionResponse{}, nil
}

func (a *goAgent) SetSessionMode(context.Context, acpsdk.SetSessionModeRequest) (acpsdk.SetSessionModeResponse, error) {
	return acpsdk.SetSessionModeResponse{}, nil
}

func (a *goAgent) NewSession(_ context.Context, p acpsdk.NewSessionRequest) (acpsdk.NewSessionResponse, error) {
	if p.Cwd != a.ws {
		return acpsdk.NewSessionResponse{}, fmt.Errorf("cwd %s, want %s", p.Cwd, a.ws)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.next++
	id := acpsdk.SessionId(fmt.Sprintf("sess-%d", a.next))
	a.sessions[id] = true
	return acpsdk.NewSessionResponse{SessionId: id}, nil
}

// LoadSession replays the session's history, as agents do.
func (a *goAgent) LoadSession(ctx context.Context, p acpsdk.LoadSessionRequest) (acpsdk.LoadSessionResponse, error) {
	if !strings.HasPrefix(string(p.SessionId), "sess-") {
		return acpsdk.LoadSessionResponse{}, fmt.Errorf("no session %s", p.SessionId)
	}
	a.mu.Lock()
	a.sessions[p.SessionId] = true
	a.mu.Unlock()
	a.update(ctx, p.SessionId, acpsdk.UpdateUserMessageText("OLD PROMPT"))
	a.update(ctx, p.SessionId, acpsdk.UpdateAgentMessageText("OLD REPLY"))
	return acpsdk.LoadSessionResponse{}, nil
}

func (a *goAgent) update(ctx context.Context, sid acpsdk.SessionId, u acpsdk.SessionUpdate) {
	_ = a.conn.SessionUpdate(ctx, acpsdk.SessionNotification{SessionId: sid, Update: u})
}

func (a *goAgent) say(ctx context.Context, sid acpsdk.SessionId, text string) {
	a.update(ctx, sid, acpsdk.UpdateAgentMessageText(text))
}

// ask requests permission for a tool call and returns the kind of the
// option picked ("cancelled" for none).
func (a *goAgent) ask(ctx context.Context, sid acpsdk.SessionId, id acpsdk.ToolCallId) (string, error) {
	// As the protocol asks, a cancelled prompt still waits for the client
	// to answer its permission request ("cancelled").
	res, err := a.conn.RequestPermission(context.WithoutCancel(ctx), acpsdk.RequestPermissionRequest{SessionId: sid,
		ToolCall: acpsdk.ToolCallUpdate{ToolCallId: id},
		Options: []acpsdk.PermissionOption{
			{OptionId: "always", Name: "Always allow", Kind: acpsdk.PermissionOptionKindAllowAlways},
			{OptionId: "once", Name: "Allow", Kind: acpsdk.PermissionOptionKindAllowOnce},
			{OptionId: "no", Name: "Reject", Kind: acpsdk.PermissionOptionKindRejectOnce},
			{OptionId: "never", Name: "Always reject", Kind: acpsdk.PermissionOptionKindRejectAlways},
		}})
	if err != nil {
		return "", err
	}
	picked := "cancelled"
	if res.Outcome.Selected != nil {
		picked = string(res.Outcome.Selected.OptionId)
	}
	a.mu.Lock()
	a.picked = append(a.picked, picked)
	a.mu.Unlock()
	return picked, nil
}

func (a *goAgent) Prompt(ctx context.Context, p acpsdk.PromptRequest) (acpsdk.PromptResponse, error) {
	var text string
	for _, b := range p.Prompt {
		if b.Text != nil {
			text += b.Text.Text
		}
	}
	words := strings.Fields(text)
	sid := p.SessionId
	end := acpsdk.PromptResponse{StopReason: acpsdk.StopReasonEndTurn,
		Usage: &acpsdk.Usage{InputTokens: 11, OutputTokens: 5, TotalTokens: 16}}
	cancelled := acpsdk.PromptResponse{StopReason: acpsdk.StopReasonCancelled}
	if len(words) == 0 {
		return end, nil
	}
	arg := func(i int) string {
		if i < len(words) {
			return words[i]
		}
		return ""
	}
	switch words[0] {
	case "WRITE":
		path := filepath.Join(a.ws, arg(1))
		a.update(ctx, sid, acpsdk.StartEditToolCall("w1", "Write "+arg(1), path, nil,
			acpsdk.WithStartContent([]acpsdk.ToolCallContent{acpsdk.ToolDiffContent(path, "hello\n")}),
			acpsdk.WithStartRawInput(map[string]any{"file_path": path, "content": "hello\n"})))
		picked, err := a.ask(ctx, sid, "w1")
		switch {
		case err != nil || picked == "cancelled":
			return cancelled, nil
		case picked != "once":
			a.update(ctx, sid, acpsdk.UpdateToolCall("w1", acpsdk.WithUpdateStatus(acpsdk.ToolCallStatusFailed)))
			a.say(ctx, sid, "not written")
			return end, nil
		}
		if _, err := a.conn.WriteTextFile(ctx, acpsdk.WriteTextFileRequest{SessionId: sid, Path: path, Content: "hello\n"}); err != nil {
			a.update(ctx, sid, acpsdk.UpdateToolCall("w1", acpsdk.WithUpdateStatus(acpsdk.ToolCallStatusFailed),
				acpsdk.WithUpdateContent([]acpsdk.ToolCallContent{acpsdk.ToolContent(acpsdk.TextBlock(err.Error()))})))
			a.say(ctx, sid, "write failed: "+err.Error())
			return end, nil
		}
		a.update(ctx, sid, acpsdk.UpdateToolCall("w1", acpsdk.WithUpdateStatus(acpsdk.ToolCallStatusCompleted)))
		a.say(ctx, sid, "wrote it")
	case "LATEWRITE":
		// As claude-code-acp does: the call is announced when its block
		// starts streaming, with no input, and again whole once the model's
		// message ends; the permission request can reach the client between
		// the two.
		path := filepath.Join(a.ws, arg(1))
		a.update(ctx, sid, acpsdk.StartToolCall("w2", "Write", acpsdk.WithStartKind(acpsdk.ToolKindEdit),
			acpsdk.WithStartStatus(acpsdk.ToolCallStatusPending), acpsdk.WithStartRawInput(map[string]any{})))
		go func() {
			time.Sleep(150 * time.Millisecond)
			a.update(ctx, sid, acpsdk.StartEditToolCall("w2", "Write "+arg(1), path, nil,
				acpsdk.WithStartContent([]acpsdk.ToolCallContent{acpsdk.ToolDiffContent(path, "late\n")}),
				acpsdk.WithStartRawInput(map[string]any{"file_path": path, "content": "late\n"})))
		}()
		if picked, err := a.ask(ctx, sid, "w2"); err != nil || picked != "once" {
			return cancelled, nil
		}
		a.update(ctx, sid, acpsdk.UpdateToolCall("w2", acpsdk.WithUpdateStatus(acpsdk.ToolCallStatusCompleted)))
		a.say(ctx, sid, "wrote it")
	case "READ":
		line, limit := 2, 1
		r, err := a.conn.ReadTextFile(ctx, acpsdk.ReadTextFileRequest{SessionId: sid, Path: filepath.Join(a.ws, arg(1)), Line: &line, Limit: &limit})
		if err != nil {
			a.say(ctx, sid, "read failed: "+err.Error())
			return end, nil
		}
		a.say(ctx, sid, "line 2: "+r.Content)
	case "PUT":
		// A write with no permission asked first, as a careless or hostile
		// agent does: only the client's own checks stand in its way.
		if _, err := a.conn.WriteTextFile(ctx, acpsdk.WriteTextFileRequest{SessionId: sid, Path: a.abs(arg(1)), Content: "pwned\n"}); err != nil {
			a.say(ctx, sid, "write failed: "+err.Error())
			return end, nil
		}
		a.say(ctx, sid, "wrote it")
	case "GET":
		r, err := a.conn.ReadTextFile(ctx, acpsdk.ReadTextFileRequest{SessionId: sid, Path: a.abs(arg(1))})
		if err != nil {
			a.say(ctx, sid, "read failed: "+err.Error())
			return end, nil
		}
		a.say(ctx, sid, "content: "+r.Content)
	case "RUN", "SLEEP":
		cmd, args := "sh", []string{"-c", "echo hi; echo err >&2; exit 3"}
		if words[0] == "SLEEP" {
			cmd, args = "sleep", []string{"30"}
		}
		a.update(ctx, sid, acpsdk.StartToolCall("r1", "Run "+cmd, acpsdk.WithStartKind(acpsdk.ToolKindExecute),
			acpsdk.WithStartRawInput(map[string]any{"command": cmd, "args": args})))
		if picked, err := a.ask(ctx, sid, "r1"); err != nil || picked != "once" {
			return cancelled, nil
		}
		cwd := a.ws
		t, err := a.conn.CreateTerminal(ctx, acpsdk.CreateTerminalRequest{SessionId: sid, Command: cmd, Args: args, Cwd: &cwd})
		if err != nil {
			a.say(ctx, sid, "terminal failed: "+err.Error())
			return end, nil
		}
		a.update(ctx, sid, acpsdk.UpdateToolCall("r1", acpsdk.WithUpdateStatus(acpsdk.ToolCallStatusInProgress),
			acpsdk.WithUpdateContent([]acpsdk.ToolCallContent{acpsdk.ToolTerminalRef(t.TerminalId)})))
		ex, err := a.conn.WaitForTerminalExit(ctx, acpsdk.WaitForTerminalExitRequest{SessionId: sid, TerminalId: t.TerminalId})
		if err != nil {
			return cancelled, nil
		}
		out, err := a.conn.TerminalOutput(ctx, acpsdk.TerminalOutputRequest{SessionId: sid, TerminalId: t.TerminalId})
		if err != nil {
			return end, err
		}
		a.update(ctx, sid, acpsdk.UpdateToolCall("r1", acpsdk.WithUpdateStatus(acpsdk.ToolCallStatusCompleted)))
		if _, err := a.conn.ReleaseTerminal(ctx, acpsdk.ReleaseTerminalRequest{SessionId: sid, TerminalId: t.TerminalId}); err != nil {
			return end, err
		}
		code := -1
		if ex.ExitCode != nil {
			code = *ex.ExitCode
		}
		a.say(ctx, sid, fmt.Sprintf("exit %d: %s", code, strings.TrimSpace(out.Output)))
	case "DIE":
		put(a.proc.ErrW, []byte("fatal: the model went away\n"))
		a.proc.Exit(2)
		<-ctx.Done()
		return cancelled, nil
	case "GARBAGE":
		put(a.proc.OutW, []byte("Traceback (most recent call last):\n"))
		<-ctx.Done()
		return cancelled, nil
	default:
		a.update(ctx, sid, acpsdk.UpdateAgentThoughtText("thinking"))
		a.say(ctx, sid, "echo: "+text)
	}
	return end, nil
}

// abs makes p absolute as ACP paths are, under the workspace when it is
// relative, without cleaning it: "sub/../x" stays as the agent wrote it.
func (a *goAgent) abs(p string) string {
	if strings.HasPrefix(p, "/") {
		return p
	}
	return a.ws + "/" + p
}
