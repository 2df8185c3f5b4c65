package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/sessions"
)

// The tools' names.
const (
	ToolListSessions  = "list_sessions"
	ToolCreateSession = "create_session"
	ToolSendPrompt    = "send_prompt"
	ToolReadSession   = "read_session"
	ToolListWaiting   = "list_waiting"
	ToolAnswer        = "answer"
	ToolControl       = "control_session"
	ToolExec          = "exec"
)

// Controls the control tool sends.
var controls = []any{"start", "pause", "resume", "stop", "cancel", "close"}

// What each tool does to the workspace, for clients that allow some tools
// on their own: the reads change nothing; creating a session and sending a
// prompt add work; answering, controlling
// and exec change what runs and what is on disk. Every tool's world is the
// workspace's engine, not the open internet.
var (
	readOnly    = &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}
	additive    = &sdk.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(false)}
	destructive = &sdk.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(false)}
)

func ptr[T any](v T) *T { return &v }

func (t *tools) register(s *sdk.Server) {
	addTool(s, ToolListSessions, "List the workspace's sessions, oldest first, with their status.", readOnly, nil, t.listSessions)
	addTool(s, ToolCreateSession, "Create a coding-agent session on a task and start it (auto_start, true unless given false). "+
		"Approval ask (the default) makes it wait for an answer before it runs commands or writes files: see list_waiting.",
		additive, map[string][]any{"mode": {"one-shot", "continuous"}, "approval": {"ask", "auto", "read-only"}, "access": {"read-write", "read-only"}},
		t.createSession)
	addTool(s, ToolSendPrompt, "Send a prompt to a session: it runs now when the session waits for input, "+
		"or is queued after the current turn. With a key, sending again runs nothing new.", additive, nil, t.sendPrompt)
	addTool(s, ToolReadSession, "Read a session's status, what it waits on, and its latest messages (text only, clipped).", readOnly, nil, t.readSession)
	addTool(s, ToolListWaiting, "List what waits on the operator: open approvals, questions, parks and stuck reports, of one session or all.", readOnly, nil, t.listWaiting)
	addTool(s, ToolAnswer, "Answer an open interaction: an approval with a decision (and an optional message to the agent), a question with text. "+
		"Answering a park with text nudges it: its timer or event fires now and the agent gets the text.",
		destructive, map[string][]any{"decision": {"allow_once", "allow_session", "deny"}}, t.answer)
	addTool(s, ToolControl, "Control a session: start a created one, pause or resume it, stop the turn in flight, "+
		"cancel it (ends it for good) or close one that waits between turns.", destructive, map[string][]any{"action": controls}, t.control)
	addTool(s, ToolExec, "Run a command in a session's execution environment, without a model turn: argv as it is, or shell through /bin/sh -c. "+
		"A non-zero exit is a result. With a key, running again answers the recorded result and runs nothing.", destructive, nil, t.exec)
}

// ListSessionsIn is the input of list_sessions.
type ListSessionsIn struct {
	Archived bool `json:"archived,omitempty" jsonschema:"list the archived sessions instead"`
}

// ListSessionsOut is the output of list_sessions.
type ListSessionsOut struct {
	Sessions []Session `json:"sessions"`
}

func (t *tools) listSessions(ctx context.Context, _ *sdk.CallToolRequest, in ListSessionsIn) (*sdk.CallToolResult, ListSessionsOut, error) {
	var list []sessions.Session
	err := t.conn.do(ctx, func(c *client.Client) (err error) {
		list, err = c.Sessions(ctx, in.Archived)
		return err
	})
	if err != nil {
		return nil, ListSessionsOut{}, toolError(ToolListSessions, err)
	}
	out := ListSessionsOut{Sessions: make([]Session, 0, len(list))}
	lines := []string{fmt.Sprintf("%d sessions", len(list))}
	for _, s := range list {
		v := sessionView(s)
		out.Sessions = append(out.Sessions, v)
		lines = append(lines, fmt.Sprintf("%s %s %s: %s", v.ID, v.Agent, v.state(), oneLine(v.Title)))
	}
	return result(strings.Join(lines, "\n"), out), out, nil
}

// CreateSessionIn is the input of create_session.
type CreateSessionIn struct {
	Task     string `json:"task" jsonschema:"what the agent is to do: the session's instructions"`
	Agent    string `json:"agent,omitempty" jsonschema:"a configured agent's name; the workspace's default when empty"`
	Title    string `json:"title,omitempty"`
	Mode     string `json:"mode,omitempty" jsonschema:"one-shot (ends when the agent is done, the default) or continuous (waits for the next prompt after each turn)"`
	Approval string `json:"approval,omitempty" jsonschema:"which actions need an answer: ask (the default), auto or read-only"`
	Access   string `json:"access,omitempty"`
	// AutoStart is the API's auto_start; unset starts the session (MCP's
	// default, where REST's is false).
	AutoStart *bool  `json:"auto_start,omitempty" jsonschema:"start the session now (the default); false creates it without starting it (control_session start starts it)"`
	Hold      bool   `json:"hold,omitempty" jsonschema:"the same as auto_start false"`
	Key       string `json:"key,omitempty" jsonschema:"an idempotency key: creating again with it returns the session it made"`
	// OutputSchema is a JSON Schema (an object) the answer must match.
	OutputSchema map[string]any `json:"output_schema,omitempty" jsonschema:"a JSON Schema the task's final answer must match; read_session then shows the validated JSON as output"`
}

// SessionOut is the output of the tools that answer one session.
type SessionOut struct {
	Session Session `json:"session"`
}

func (t *tools) createSession(ctx context.Context, _ *sdk.CallToolRequest, in CreateSessionIn) (*sdk.CallToolResult, SessionOut, error) {
	start := !in.Hold
	if in.AutoStart != nil {
		if *in.AutoStart && in.Hold {
			return nil, SessionOut{}, fmt.Errorf("%s: auto_start true and hold true disagree: give one", client.CodeBadRequest)
		}
		start = *in.AutoStart
	}
	req := client.CreateRequest{Agent: in.Agent, Title: in.Title, Task: in.Task, Mode: in.Mode,
		Approval: in.Approval, Access: in.Access, AutoStart: start, Key: in.Key, Env: t.envFor(in.Agent)}
	if req.Approval == "" {
		req.Approval = "ask"
	}
	schema, err := schemaOf(in.OutputSchema)
	if err != nil {
		return nil, SessionOut{}, toolError(ToolCreateSession, err)
	}
	req.OutputSchema = schema
	var s sessions.Session
	err = t.conn.do(ctx, func(c *client.Client) (err error) {
		s, err = c.Create(ctx, req)
		return err
	})
	if err != nil {
		return nil, SessionOut{}, toolError(ToolCreateSession, err)
	}
	out := SessionOut{Session: sessionView(s)}
	msg := fmt.Sprintf("created session %s (agent %s, approval %s): %s", s.ID, s.Agent, s.Approval, out.Session.state())
	if !start {
		msg += "; not started"
	}
	return result(msg, out), out, nil
}

// SendPromptIn is the input of send_prompt.
type SendPromptIn struct {
	Session string `json:"session" jsonschema:"the session's id (a unique prefix works)"`
	Text    string `json:"text"`
	Key     string `json:"key,omitempty" jsonschema:"an idempotency key: sending again with it sends nothing new"`
	// OutputSchema is a JSON Schema (an object) the answer must match.
	OutputSchema map[string]any `json:"output_schema,omitempty" jsonschema:"a JSON Schema the answer to this prompt must match; read_session then shows the validated JSON as output"`
}

// schemaOf is a tool's output schema as the API takes it; nil for none.
func schemaOf(m map[string]any) (json.RawMessage, error) {
	if m == nil {
		return nil, nil
	}
	return json.Marshal(m)
}

// ReceiptOut acknowledges a control: recorded durably, taking effect When.
type ReceiptOut struct {
	ID   string `json:"id"`
	When string `json:"when" jsonschema:"when it takes effect: now, at the next step, queued after the current turn..."`
	// Replayed says the key had been given before: nothing new was sent,
	// and KeyState says where that first work stands.
	Replayed bool   `json:"replayed,omitempty" jsonschema:"the key had been given before: nothing new was sent"`
	KeyState string `json:"key_state,omitempty" jsonschema:"with replayed: queued, started, done or uncertain"`
}

func receiptView(rc client.Receipt) ReceiptOut {
	out := ReceiptOut{ID: rc.ID, When: rc.When}
	if rc.Key != nil {
		out.Replayed, out.KeyState = true, rc.Key.State
	}
	return out
}

func (r ReceiptOut) summary(what string) string {
	if r.Replayed {
		return fmt.Sprintf("%s: already sent with this key (%s); nothing new was sent", what, r.KeyState)
	}
	return fmt.Sprintf("%s: recorded, takes effect %s", what, r.When)
}

func (t *tools) sendPrompt(ctx context.Context, _ *sdk.CallToolRequest, in SendPromptIn) (*sdk.CallToolResult, ReceiptOut, error) {
	var rc client.Receipt
	err := t.conn.do(ctx, func(c *client.Client) (err error) {
		schema, err := schemaOf(in.OutputSchema)
		if err != nil {
			return err
		}
		req := client.InputRequest{Text: in.Text, Key: in.Key, OutputSchema: schema}
		if t.env != nil {
			s, err := c.Session(ctx, in.Session)
			if err != nil {
				return err
			}
			req.Env = t.envFor(s.Agent)
		}
		rc, err = c.Input(ctx, in.Session, false, req)
		return err
	})
	if err != nil {
		return nil, ReceiptOut{}, toolError(ToolSendPrompt, err)
	}
	out := receiptView(rc)
	return result(out.summary("prompt"), out), out, nil
}

// ReadSessionIn is the input of read_session.
type ReadSessionIn struct {
	Session  string `json:"session" jsonschema:"the session's id (a unique prefix works)"`
	Messages int    `json:"messages,omitempty" jsonschema:"how many of the latest messages (default 5, at most 50)"`
	MaxChars int    `json:"max_chars,omitempty" jsonschema:"each message's text is clipped to this many bytes (default 2000, at most 20000)"`
}

// ReadSessionOut is the output of read_session.
type ReadSessionOut struct {
	Session  Session       `json:"session"`
	Waiting  []Interaction `json:"waiting" jsonschema:"what the session waits on the operator for"`
	Messages []Message     `json:"messages" jsonschema:"the latest messages, oldest first"`
	More     bool          `json:"more" jsonschema:"older messages exist"`
}

func (t *tools) readSession(ctx context.Context, _ *sdk.CallToolRequest, in ReadSessionIn) (*sdk.CallToolResult, ReadSessionOut, error) {
	var (
		s    sessions.Session
		page client.MessagePage
		its  []client.Interaction
	)
	err := t.conn.do(ctx, func(c *client.Client) error {
		var err error
		if s, err = c.Session(ctx, in.Session); err != nil {
			return err
		}
		if its, err = c.Interactions(ctx, s.ID); err != nil {
			return err
		}
		page, err = c.Messages(ctx, s.ID, bounded(in.Messages, defaultMessages, maxMessages), "")
		return err
	})
	if err != nil {
		return nil, ReadSessionOut{}, toolError(ToolReadSession, err)
	}
	limit := bounded(in.MaxChars, defaultChars, maxChars)
	out := ReadSessionOut{Session: sessionView(s), Waiting: make([]Interaction, 0, len(its)),
		Messages: make([]Message, 0, len(page.Messages)), More: page.More}
	for _, it := range its {
		out.Waiting = append(out.Waiting, interactionView(it))
	}
	for _, m := range page.Messages {
		out.Messages = append(out.Messages, messageView(m, limit))
	}
	msg := fmt.Sprintf("session %s is %s after %d turns; %d messages shown", s.ID, out.Session.state(), s.Turns, len(out.Messages))
	for _, it := range out.Waiting {
		msg += "\nwaits on: " + it.summary()
	}
	return result(msg, out), out, nil
}

// ListWaitingIn is the input of list_waiting.
type ListWaitingIn struct {
	Session string `json:"session,omitempty" jsonschema:"only this session's; every session's when empty"`
}

// ListWaitingOut is the output of list_waiting.
type ListWaitingOut struct {
	Interactions []Interaction `json:"interactions"`
}

func (t *tools) listWaiting(ctx context.Context, _ *sdk.CallToolRequest, in ListWaitingIn) (*sdk.CallToolResult, ListWaitingOut, error) {
	var its []client.Interaction
	err := t.conn.do(ctx, func(c *client.Client) (err error) {
		its, err = c.Interactions(ctx, in.Session)
		return err
	})
	if err != nil {
		return nil, ListWaitingOut{}, toolError(ToolListWaiting, err)
	}
	out := ListWaitingOut{Interactions: make([]Interaction, 0, len(its))}
	lines := []string{fmt.Sprintf("%d waiting", len(its))}
	for _, it := range its {
		v := interactionView(it)
		out.Interactions = append(out.Interactions, v)
		lines = append(lines, v.summary())
	}
	return result(strings.Join(lines, "\n"), out), out, nil
}

// AnswerIn is the input of answer.
type AnswerIn struct {
	Session     string `json:"session"`
	Interaction string `json:"interaction" jsonschema:"the interaction's id, from list_waiting or read_session"`
	Decision    string `json:"decision,omitempty" jsonschema:"for an approval: allow_once, allow_session (also allows the same action for the rest of the session: for a command, that command line, or with prefix the commands starting with it) or deny"`
	Message     string `json:"message,omitempty" jsonschema:"with a decision: a word to the agent (why it was denied)"`
	Prefix      string `json:"prefix,omitempty" jsonschema:"with allow_session on a command: allow the commands starting with these words, not only the command shown"`
	Text        string `json:"text,omitempty" jsonschema:"for a question: the answer"`
}

// AnswerOut is the output of answer.
type AnswerOut struct {
	Session     string `json:"session"`
	Interaction string `json:"interaction"`
	Answered    bool   `json:"answered"`
}

func (t *tools) answer(ctx context.Context, _ *sdk.CallToolRequest, in AnswerIn) (*sdk.CallToolResult, AnswerOut, error) {
	if in.Decision == "" && in.Text == "" {
		return nil, AnswerOut{}, fmt.Errorf("%s: give a decision (an approval) or text (a question)", client.CodeBadRequest)
	}
	resp := client.Response{Decision: sessions.Decision(in.Decision), Message: in.Message, Text: in.Text, Prefix: in.Prefix}
	err := t.conn.do(ctx, func(c *client.Client) error {
		return c.Respond(ctx, in.Session, in.Interaction, resp)
	})
	if err != nil {
		return nil, AnswerOut{}, toolError(ToolAnswer, err)
	}
	out := AnswerOut{Session: in.Session, Interaction: in.Interaction, Answered: true}
	return result(fmt.Sprintf("answered %s of session %s", in.Interaction, in.Session), out), out, nil
}

// ControlIn is the input of control_session.
type ControlIn struct {
	Session string `json:"session"`
	Action  string `json:"action" jsonschema:"start, pause, resume, stop (interrupts the turn; the session then waits for input), cancel (ends it for good) or close"`
}

func (t *tools) control(ctx context.Context, _ *sdk.CallToolRequest, in ControlIn) (*sdk.CallToolResult, ReceiptOut, error) {
	var rc client.Receipt
	err := t.conn.do(ctx, func(c *client.Client) (err error) {
		rc, err = c.Control(ctx, in.Session, in.Action)
		return err
	})
	if err != nil {
		return nil, ReceiptOut{}, toolError(ToolControl, err)
	}
	out := receiptView(rc)
	return result(out.summary(in.Action+" "+in.Session), out), out, nil
}

// ExecIn is the input of exec.
type ExecIn struct {
	Session string   `json:"session" jsonschema:"the session whose environment (its folder, its container) runs the command"`
	Argv    []string `json:"argv,omitempty" jsonschema:"the command and its arguments, run as they are; give argv or shell"`
	Shell   string   `json:"shell,omitempty" jsonschema:"a command line for /bin/sh -c; give argv or shell"`
	Key     string   `json:"key,omitempty" jsonschema:"an idempotency key: running again with it answers the recorded result and runs nothing"`
	Timeout string   `json:"timeout,omitempty" jsonschema:"a Go duration (30s, 5m)"`
}

// ExecOut is a command's outcome; each output is clipped.
type ExecOut struct {
	ExitCode        int    `json:"exit_code"`
	Stdout          string `json:"stdout"`
	Stderr          string `json:"stderr"`
	StdoutTruncated bool   `json:"stdout_truncated,omitempty"`
	StderrTruncated bool   `json:"stderr_truncated,omitempty"`
	TimedOut        bool   `json:"timed_out,omitempty"`
	Cancelled       bool   `json:"cancelled,omitempty"`
	DurationMS      int64  `json:"duration_ms"`
	Replayed        bool   `json:"replayed,omitempty" jsonschema:"the key had been given before: this is the recorded result, nothing ran"`
}

func (t *tools) exec(ctx context.Context, _ *sdk.CallToolRequest, in ExecIn) (*sdk.CallToolResult, ExecOut, error) {
	if (len(in.Argv) == 0) == (in.Shell == "") {
		return nil, ExecOut{}, fmt.Errorf("%s: give argv or shell, not both", client.CodeBadRequest)
	}
	req := client.ExecRequest{Session: in.Session, Argv: in.Argv, Shell: in.Shell, Key: in.Key, Timeout: in.Timeout}
	var res client.ExecResult
	err := t.conn.do(ctx, func(c *client.Client) (err error) {
		res, err = c.Exec(ctx, req)
		return err
	})
	if err != nil {
		return nil, ExecOut{}, toolError(ToolExec, err)
	}
	stdout, oclip := clip(res.Stdout, execChars)
	stderr, eclip := clip(res.Stderr, execChars)
	out := ExecOut{ExitCode: res.ExitCode, Stdout: stdout, Stderr: stderr,
		StdoutTruncated: res.StdoutTruncated || oclip, StderrTruncated: res.StderrTruncated || eclip,
		TimedOut: res.TimedOut, Cancelled: res.Cancelled, DurationMS: time.Duration(res.DurationNS).Milliseconds(), Replayed: res.Replayed}
	msg := fmt.Sprintf("exit %d in %s", res.ExitCode, time.Duration(res.DurationNS).Round(time.Millisecond))
	switch {
	case res.TimedOut:
		msg += " (timed out)"
	case res.Cancelled:
		msg += " (cancelled)"
	}
	if res.Replayed {
		msg += "; the recorded result of this key, nothing ran"
	}
	return result(msg, out), out, nil
}

// oneLine is s on one line, clipped for a summary.
func oneLine(s string) string {
	s, _ = clip(strings.Join(strings.Fields(s), " "), 100)
	return s
}
