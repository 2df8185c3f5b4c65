package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/atelier-studio/atelier/api"
	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/host"
	"github.com/atelier-studio/atelier/internal/teststate"
)

func TestMain(m *testing.M) { teststate.Main(m) }

// The tests run a real host in-process (host.Run: the lock, the socket in
// a short runtime directory of their own, the API over an engine with the
// demo agent paced fast) and drive the MCP server with the SDK's own
// client over an in-memory transport.

// shortDir returns a fresh folder with a short path: socket paths have a
// length limit.
func shortDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "rt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(d); err != nil {
			t.Error(err)
		}
	})
	return d
}

// startHost hosts ws's engine in this process until the returned stop is
// called (or the test ends).
func startHost(t *testing.T, ws string) (stop func()) {
	t.Helper()
	demo := &harness.Demo{Pace: 100 * time.Microsecond, Wait: 20 * time.Millisecond}
	return startHostWith(t, ws, core.DemoResolver{Demo: demo})
}

// startHostWith is startHost with the engine's agents resolved by agents.
func startHostWith(t *testing.T, ws string, agents core.Resolver) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	done := make(chan error, 1)
	var srv *api.Server
	go func() {
		done <- host.Run(ctx, host.Options{
			Workspace: ws,
			Open: func(ws string) (*core.Engine, error) {
				return core.Open(ws, core.Options{Agents: agents, Workers: 4, NoHistory: true})
			},
			Handler: func(e *core.Engine, _ func() func()) http.Handler {
				srv = api.NewServer(e, api.Options{Version: "test"})
				return srv
			},
			IdleExit: -1,
			Version:  "test",
			Ready:    func(host.Record) { close(ready) },
		})
	}()
	select {
	case <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("the host did not start: %v", err)
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatal("the host did not start in 10s")
	}
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("host: %v", err)
		}
		srv.Close()
	}
	t.Cleanup(stop)
	return stop
}

// rig is a workspace with its host and an MCP client session of the
// bridge.
type rig struct {
	t   *testing.T
	ws  string
	cs  *sdk.ClientSession
	env func(agent string) map[string]string // the bridge's Options.Env
}

func newRig(t *testing.T) *rig {
	t.Helper()
	t.Setenv("XDG_RUNTIME_DIR", shortDir(t))
	r := &rig{t: t, ws: t.TempDir()}
	startHost(t, r.ws)
	r.connect()
	return r
}

// connect runs the bridge on an in-memory transport (attaching without
// starting a host: exe is empty) and connects the SDK's client to it.
func (r *rig) connect() {
	t := r.t
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	srv := NewServer(Options{Version: "test", Env: r.env, Attach: func(ctx context.Context) (*client.Client, error) {
		c, _, err := Attach(ctx, r.ws, "")
		return c, err
	}})
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.cs = cs
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Error(err)
		}
		if err := ss.Wait(); err != nil && !errors.Is(err, context.Canceled) {
			t.Logf("server session: %v", err)
		}
	})
}

// call calls a tool; a tool error is returned as an error with its text.
func (r *rig) call(name string, args any, out any) (string, error) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := r.cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		r.t.Fatalf("%s: protocol error: %v", name, err)
	}
	text := contentText(res)
	if res.IsError {
		return text, errors.New(text)
	}
	if out != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			r.t.Fatal(err)
		}
		if err := json.Unmarshal(b, out); err != nil {
			r.t.Fatalf("%s: structured content %s: %v", name, b, err)
		}
	}
	return text, nil
}

// must is call that fails the test on a tool error.
func (r *rig) must(name string, args any, out any) string {
	r.t.Helper()
	text, err := r.call(name, args, out)
	if err != nil {
		r.t.Fatalf("%s: %v", name, err)
	}
	return text
}

func contentText(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// drive answers what the session waits on (approvals allowed once,
// questions answered) until done says the session is where the test wants
// it, and returns the last read.
func (r *rig) drive(id string, done func(Session) bool) ReadSessionOut {
	r.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		var rd ReadSessionOut
		r.must(ToolReadSession, ReadSessionIn{Session: id, Messages: 50}, &rd)
		if done(rd.Session) {
			return rd
		}
		for _, it := range rd.Waiting {
			in := AnswerIn{Session: id, Interaction: it.ID}
			switch it.Kind {
			case "approval":
				in.Decision = "allow_once"
			case "question":
				in.Text = "yes"
			default:
				continue
			}
			if _, err := r.call(ToolAnswer, in, nil); err != nil && !strings.Contains(err.Error(), client.CodeAlreadyResolved) {
				r.t.Fatalf("answer %s: %v", it.Kind, err)
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	r.t.Fatalf("session %s did not get there in 30s", id)
	return ReadSessionOut{}
}

func ended(s Session) bool { return s.Status == "ENDED" }

func TestListTools(t *testing.T) {
	r := newRig(t)
	res, err := r.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	schemas := map[string]map[string]any{}
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		b, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if m["type"] != "object" {
			t.Errorf("%s: input schema %s is not an object", tool.Name, b)
		}
		if tool.OutputSchema == nil || tool.Description == "" {
			t.Errorf("%s: no output schema or description", tool.Name)
		}
		schemas[tool.Name] = m
		// What the tool does to the workspace, for clients that allow
		// read-only tools on their own.
		a := tool.Annotations
		read := tool.Name == ToolListSessions || tool.Name == ToolReadSession || tool.Name == ToolListWaiting
		destroys := tool.Name == ToolAnswer || tool.Name == ToolControl || tool.Name == ToolExec
		switch {
		case a == nil:
			t.Errorf("%s: no annotations", tool.Name)
		case a.ReadOnlyHint != read:
			t.Errorf("%s: readOnlyHint %v, want %v", tool.Name, a.ReadOnlyHint, read)
		case !read && (a.DestructiveHint == nil || *a.DestructiveHint != destroys):
			t.Errorf("%s: destructiveHint %v, want %v", tool.Name, a.DestructiveHint, destroys)
		case a.OpenWorldHint == nil || *a.OpenWorldHint:
			t.Errorf("%s: its world is the workspace's engine: openWorldHint %v", tool.Name, a.OpenWorldHint)
		}
	}
	want := []string{ToolAnswer, ToolControl, ToolCreateSession, ToolExec, ToolListSessions, ToolListWaiting, ToolReadSession, ToolSendPrompt}
	slices.Sort(names)
	if !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
	props := schemas[ToolCreateSession]["properties"].(map[string]any)
	if enum := props["approval"].(map[string]any)["enum"]; len(enum.([]any)) != 3 {
		t.Errorf("create_session approval enum: %v", enum)
	}
	if _, ok := props["auto_start"]; !ok {
		t.Errorf("create_session takes no auto_start: %v", props)
	}
	if req := schemas[ToolCreateSession]["required"]; !slices.Equal(toStrings(req), []string{"task"}) {
		t.Errorf("create_session requires %v, want [task]", req)
	}
}

func toStrings(v any) []string {
	var out []string
	l, _ := v.([]any)
	for _, x := range l {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// TestApprovalFlow: a demo session created with approval ask waits on an
// approval that list_waiting shows; answered through the bridge, the
// session runs to its end, and its messages read back as text.
func TestApprovalFlow(t *testing.T) {
	r := newRig(t)
	var created SessionOut
	text := r.must(ToolCreateSession, CreateSessionIn{Task: "write a note", Agent: "demo", Approval: "ask"}, &created)
	id := created.Session.ID
	if id == "" || !strings.Contains(text, id) {
		t.Fatalf("create: %q %+v", text, created)
	}

	var it Interaction
	deadline := time.Now().Add(20 * time.Second)
	for it.ID == "" {
		if time.Now().After(deadline) {
			t.Fatal("no approval waits after 20s")
		}
		var w ListWaitingOut
		r.must(ToolListWaiting, ListWaitingIn{}, &w)
		for _, x := range w.Interactions {
			if x.Session == id && x.Kind == "approval" {
				it = x
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	// A grant's prefix reaches the engine, which checks it against the
	// command (the demo's first approval is `ls -la`).
	if _, err := r.call(ToolAnswer, AnswerIn{Session: id, Interaction: it.ID, Decision: "allow_session", Prefix: "rm"}, nil); err == nil ||
		!strings.HasPrefix(err.Error(), client.CodeBadAnswer+":") {
		t.Errorf("a prefix the command does not start with: %v, want %s", err, client.CodeBadAnswer)
	}
	var ans AnswerOut
	r.must(ToolAnswer, AnswerIn{Session: id, Interaction: it.ID, Decision: "allow_session", Prefix: "ls"}, &ans)
	if !ans.Answered {
		t.Fatalf("answer: %+v", ans)
	}
	if _, err := r.call(ToolAnswer, AnswerIn{Session: id, Interaction: it.ID, Decision: "allow_once"}, nil); err == nil ||
		!strings.HasPrefix(err.Error(), client.CodeAlreadyResolved+":") {
		t.Errorf("answering twice: %v, want already_resolved", err)
	}

	rd := r.drive(id, ended)
	if rd.Session.EndReason != "completed" {
		t.Fatalf("ended %s (%s)", rd.Session.state(), rd.Session.Error)
	}
	var assistant int
	for _, m := range rd.Messages {
		if m.Role == "assistant" && m.Text != "" {
			assistant++
		}
	}
	if assistant == 0 || len(rd.Waiting) != 0 {
		t.Fatalf("messages %+v, waiting %+v", rd.Messages, rd.Waiting)
	}

	var list ListSessionsOut
	r.must(ToolListSessions, ListSessionsIn{}, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].ID != id || list.Sessions[0].Status != "ENDED" {
		t.Fatalf("list_sessions: %+v", list)
	}

	// Bounded reads: one message, clipped to 10 bytes.
	var small ReadSessionOut
	r.must(ToolReadSession, ReadSessionIn{Session: id, Messages: 1, MaxChars: 10}, &small)
	if len(small.Messages) != 1 || !small.More || len(small.Messages[0].Text) > 10+len("…") {
		t.Fatalf("bounded read: %+v", small)
	}
}

// TestKeyedSendAndExec: a prompt sent twice with one key runs one turn;
// a keyed command run twice runs once.
func TestKeyedSendAndExec(t *testing.T) {
	r := newRig(t)
	var created SessionOut
	r.must(ToolCreateSession, CreateSessionIn{Task: "write a note", Agent: "demo", Mode: "continuous", Approval: "auto"}, &created)
	id := created.Session.ID
	first := r.drive(id, func(s Session) bool { return s.Status == "WAITING" && s.Turns == 1 })

	var a, b ReceiptOut
	r.must(ToolSendPrompt, SendPromptIn{Session: id, Text: "again please", Key: "k1"}, &a)
	text := r.must(ToolSendPrompt, SendPromptIn{Session: id, Text: "again please", Key: "k1"}, &b)
	if a.Replayed || !b.Replayed || b.KeyState == "" || !strings.Contains(text, "nothing new") {
		t.Fatalf("sends: %+v then %+v (%q)", a, b, text)
	}
	second := r.drive(id, func(s Session) bool { return s.Status == "WAITING" && s.Turns >= 2 })
	if second.Session.Turns != 2 {
		t.Fatalf("%d turns after a keyed prompt sent twice, want 2", second.Session.Turns)
	}
	prompts := 0
	for _, m := range second.Messages {
		if m.Role == "user" && m.Text == "again please" {
			prompts++
		}
	}
	if prompts != 1 || len(second.Messages) <= len(first.Messages) {
		t.Fatalf("the prompt is in the transcript %d times, want 1: %+v", prompts, second.Messages)
	}
	if _, err := r.call(ToolSendPrompt, SendPromptIn{Session: id, Text: "other text", Key: "k1"}, nil); err == nil ||
		!strings.HasPrefix(err.Error(), client.CodeKeyConflict+":") {
		t.Errorf("the key with other text: %v, want key_conflict", err)
	}

	var x1, x2 ExecOut
	r.must(ToolExec, ExecIn{Session: id, Shell: "echo run >> runs.txt; echo hello", Key: "x1"}, &x1)
	r.must(ToolExec, ExecIn{Session: id, Shell: "echo run >> runs.txt; echo hello", Key: "x1"}, &x2)
	if x1.ExitCode != 0 || x1.Stdout != "hello\n" || x1.Replayed || !x2.Replayed || x2.Stdout != "hello\n" {
		t.Fatalf("exec: %+v then %+v", x1, x2)
	}
	var cat ExecOut
	r.must(ToolExec, ExecIn{Session: id, Argv: []string{"cat", "runs.txt"}}, &cat)
	if cat.Stdout != "run\n" {
		t.Fatalf("the keyed command ran %q, want once", cat.Stdout)
	}
	if _, err := r.call(ToolExec, ExecIn{Session: id, Argv: []string{"true"}, Shell: "true"}, nil); err == nil ||
		!strings.HasPrefix(err.Error(), client.CodeBadRequest) {
		t.Errorf("argv and shell: %v, want bad_request", err)
	}

	var rc ReceiptOut
	r.must(ToolControl, ControlIn{Session: id, Action: "cancel"}, &rc)
	r.drive(id, ended)
	if _, err := r.call(ToolControl, ControlIn{Session: id, Action: "pause"}, nil); err == nil ||
		!strings.HasPrefix(err.Error(), client.CodeTransitionRefused+":") {
		t.Errorf("pausing an ended session: %v, want transition_refused", err)
	}
	if _, err := r.call(ToolControl, ControlIn{Session: id, Action: "explode"}, nil); err == nil {
		t.Error("an action outside the enum was accepted")
	}
}

// TestToolErrors: what the API refuses is a tool error whose text starts
// with the problem's code.
func TestToolErrors(t *testing.T) {
	r := newRig(t)
	cases := []struct {
		name, tool string
		args       any
		code       string
	}{
		{"read unknown", ToolReadSession, ReadSessionIn{Session: "0000nosuch"}, client.CodeUnknownSession},
		{"send unknown", ToolSendPrompt, SendPromptIn{Session: "0000nosuch", Text: "hi"}, client.CodeUnknownSession},
		{"pause unknown", ToolControl, ControlIn{Session: "0000nosuch", Action: "pause"}, client.CodeUnknownSession},
		{"exec unknown", ToolExec, ExecIn{Session: "0000nosuch", Argv: []string{"true"}}, client.CodeUnknownSession},
		{"unknown agent", ToolCreateSession, CreateSessionIn{Task: "x", Agent: "nosuch"}, client.CodeUnknownAgent},
		{"empty answer", ToolAnswer, AnswerIn{Session: "0000nosuch", Interaction: "0000nosuch"}, client.CodeBadRequest},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := r.call(tc.tool, tc.args, nil)
			if err == nil || !strings.HasPrefix(err.Error(), tc.code+":") {
				t.Fatalf("%v, want a tool error starting with %s", err, tc.code)
			}
		})
	}
	t.Run("missing required", func(t *testing.T) {
		if _, err := r.call(ToolReadSession, map[string]any{}, nil); err == nil {
			t.Fatal("read_session without a session was accepted")
		}
	})
}

// TestReattach: when the host goes away the bridge says so on the next
// call, and attaches to the next host by itself.
func TestReattach(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", shortDir(t))
	r := &rig{t: t, ws: t.TempDir()}
	stop := startHost(t, r.ws)
	r.connect()
	var list ListSessionsOut
	r.must(ToolListSessions, ListSessionsIn{}, &list)
	stop()
	if _, err := r.call(ToolListSessions, ListSessionsIn{}, nil); err == nil || !strings.Contains(err.Error(), host.ErrNotRunning.Error()) {
		t.Fatalf("with no host: %v", err)
	}
	startHost(t, r.ws)
	r.must(ToolCreateSession, CreateSessionIn{Task: "x", Agent: "demo", Hold: true}, nil)
	r.must(ToolListSessions, ListSessionsIn{}, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].Status != "CREATED" {
		t.Fatalf("after reattaching: %+v", list)
	}
}

func TestClip(t *testing.T) {
	cases := []struct {
		in      string
		limit   int
		want    string
		clipped bool
	}{
		{"short", 10, "short", false},
		{"exactly10!", 10, "exactly10!", false},
		{"héllo wörld", 2, "h…", true},
		{"héllo", 3, "hé…", true},
	}
	for _, tc := range cases {
		got, clipped := clip(tc.in, tc.limit)
		if got != tc.want || clipped != tc.clipped {
			t.Errorf("clip(%q, %d) = %q, %v; want %q, %v", tc.in, tc.limit, got, clipped, tc.want, tc.clipped)
		}
	}
}

// TestStructuredOutput: a task and a prompt given an output schema come
// back, through read_session, as the validated JSON (the demo answers
// with a value built from the schema); a schema that cannot be used is a
// tool error before anything is sent.
func TestStructuredOutput(t *testing.T) {
	r := newRig(t)
	schema := map[string]any{"type": "object", "required": []any{"summary", "risk"},
		"properties": map[string]any{"summary": map[string]any{"type": "string"}, "risk": map[string]any{"enum": []any{"low", "high"}}}}
	var created SessionOut
	r.must(ToolCreateSession, CreateSessionIn{Task: "report", Agent: "demo", Mode: "continuous", Approval: "auto", OutputSchema: schema}, &created)
	id := created.Session.ID
	first := r.drive(id, func(s Session) bool { return s.Status == "WAITING" && s.Turns == 1 })
	check := func(out *Output, turn int) {
		t.Helper()
		v, ok := out.Value.(map[string]any)
		if out == nil || !out.Valid || out.Turn != turn || !ok {
			t.Fatalf("turn %d's output %+v", turn, out)
		}
		if _, ok := v["summary"].(string); !ok || (v["risk"] != "low" && v["risk"] != "high") {
			t.Fatalf("turn %d's output does not match the schema: %+v", turn, v)
		}
	}
	if first.Session.Output == nil {
		t.Fatalf("no output after the task: %+v", first.Session)
	}
	check(first.Session.Output, 1)
	r.must(ToolSendPrompt, SendPromptIn{Session: id, Text: "again", OutputSchema: schema}, nil)
	second := r.drive(id, func(s Session) bool { return s.Status == "WAITING" && s.Turns == 2 })
	if second.Session.Output == nil {
		t.Fatalf("no output after the prompt: %+v", second.Session)
	}
	check(second.Session.Output, 2)
	bad := map[string]any{"type": "no-such-type"}
	if _, err := r.call(ToolSendPrompt, SendPromptIn{Session: id, Text: "x", OutputSchema: bad}, nil); err == nil ||
		!strings.HasPrefix(err.Error(), client.CodeOutputSchema) {
		t.Errorf("an unusable schema: %v, want %s", err, client.CodeOutputSchema)
	}
}

// TestCreateSessionAutoStart: auto_start, the field the product names for
// the API and MCP alike, is taken; false leaves the session CREATED, as
// hold does, and the two may not disagree.
func TestCreateSessionAutoStart(t *testing.T) {
	r := newRig(t)
	no := false
	var held SessionOut
	text := r.must(ToolCreateSession, CreateSessionIn{Task: "write a note", Agent: "demo", AutoStart: &no}, &held)
	if held.Session.Status != "CREATED" || !strings.Contains(text, "not started") {
		t.Fatalf("auto_start false: %q %+v", text, held.Session)
	}
	yes := true
	if _, err := r.call(ToolCreateSession, CreateSessionIn{Task: "x", Agent: "demo", AutoStart: &yes, Hold: true}, nil); err == nil ||
		!strings.HasPrefix(err.Error(), client.CodeBadRequest+":") {
		t.Errorf("auto_start true with hold: %v, want bad_request", err)
	}
	var list ListSessionsOut
	r.must(ToolListSessions, ListSessionsIn{}, &list)
	if len(list.Sessions) != 1 {
		t.Errorf("the refused create made a session: %+v", list.Sessions)
	}
}
