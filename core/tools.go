package core

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/atelier-studio/atelier/files"
	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/terminal"
)

// toolKind classes a tool for the approval policy.
type toolKind int

const (
	readTool toolKind = iota
	writeTool
	execTool
	interactTool
)

// call is one tool call being run, with what the tool needs of the engine.
type call struct {
	e     *Engine
	l     *live
	p     *place // where the session works: its files and leases
	ctx   context.Context
	id    string // the tool call's id: interactions it opens carry it
	input map[string]any
}

func (c *call) str(key string) string {
	s, _ := c.input[key].(string)
	return s
}

// tool is a built-in tool of the engine's own tool loop.
type tool struct {
	spec harness.ToolSpec
	kind toolKind
	// target names what an approval shows: the command, or the path.
	target func(c *call) (command, path string)
	run    func(c *call) (string, sessions.ToolState)
}

func schema(props string, required ...string) json.RawMessage {
	req, _ := json.Marshal(required)
	return json.RawMessage(`{"type":"object","properties":{` + props + `},"required":` + string(req) + `}`)
}

// builtinTools returns the engine's tools by name.
func builtinTools() map[string]*tool {
	pathTarget := func(c *call) (string, string) { return "", c.str("path") }
	ts := []*tool{
		{spec: harness.ToolSpec{Name: "read_file", Description: "Read a workspace file.",
			Schema: schema(`"path":{"type":"string"}`, "path")}, kind: readTool, target: pathTarget, run: runReadFile},
		{spec: harness.ToolSpec{Name: "write_file", Description: "Write a workspace file, replacing its content.",
			Schema: schema(`"path":{"type":"string"},"content":{"type":"string"}`, "path", "content")}, kind: writeTool, target: pathTarget, run: runWriteFile},
		{spec: harness.ToolSpec{Name: "edit_file", Description: "Replace one exact occurrence of old_text with new_text in a workspace file.",
			Schema: schema(`"path":{"type":"string"},"old_text":{"type":"string"},"new_text":{"type":"string"}`, "path", "old_text", "new_text")}, kind: writeTool, target: pathTarget, run: runEditFile},
		{spec: harness.ToolSpec{Name: "list", Description: "List a workspace folder.",
			Schema: schema(`"path":{"type":"string"}`)}, kind: readTool, target: pathTarget, run: runList},
		{spec: harness.ToolSpec{Name: "glob", Description: "List workspace files matching a glob pattern (** spans folders); .gitignore is honoured.",
			Schema: schema(`"pattern":{"type":"string"}`, "pattern")}, kind: readTool, run: runGlob},
		{spec: harness.ToolSpec{Name: "grep", Description: "Search workspace files for a regular expression (RE2); optionally only files matching glob.",
			Schema: schema(`"pattern":{"type":"string"},"glob":{"type":"string"}`, "pattern")}, kind: readTool, run: runGrep},
		{spec: harness.ToolSpec{Name: "exec", Description: "Run a shell command in the workspace.",
			Schema: schema(`"command":{"type":"string"},"timeout_seconds":{"type":"number"}`, "command")}, kind: execTool,
			target: func(c *call) (string, string) { return c.str("command"), "" }, run: runExec},
		{spec: harness.ToolSpec{Name: "ask_user", Description: "Ask the operator a question and wait for the answer.",
			Schema: schema(`"question":{"type":"string"},"choices":{"type":"array","items":{"type":"string"}},"default":{"type":"string"}`, "question")}, kind: interactTool, run: runAskUser},
		{spec: harness.ToolSpec{Name: "wait", Description: "Wait for a number of seconds or until a named event fires.",
			Schema: schema(`"seconds":{"type":"number"},"event":{"type":"string"}`)}, kind: interactTool, run: runWait},
	}
	m := map[string]*tool{}
	for _, t := range ts {
		m[t.spec.Name] = t
	}
	return m
}

// toolsFor returns the tools offered to a session's agent, sorted by name.
func (l *live) toolsFor(set AgentSettings) []*tool {
	all := builtinTools()
	var out []*tool
	if set.Tools == nil {
		for _, t := range all {
			out = append(out, t)
		}
	} else {
		for _, name := range set.Tools {
			if t, ok := all[name]; ok {
				out = append(out, t)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].spec.Name < out[j].spec.Name })
	return out
}

func specsOf(ts []*tool) []harness.ToolSpec {
	out := make([]harness.ToolSpec, len(ts))
	for i, t := range ts {
		out[i] = t.spec
	}
	return out
}

// runTool runs one tool call of a Model: checks the policy (parking for an
// approval when it asks), runs the tool and records the result in the call's
// part. Cancellation gives the call an interrupted result.
func (l *live) runTool(ctx context.Context, st *stream, tools []*tool, tc harness.ToolCall) {
	e := l.e
	e.mu.Lock()
	part := st.toolLocked(tc.ID)
	if part == nil {
		st.appendLocked(sessions.ToolPart, tc.ID, tc.Name, "")
		part = st.toolLocked(tc.ID)
	}
	// The transcript keeps the input with secret values redacted (the tool
	// runs with tc.Input), and the seal covers what is kept, so recovery
	// can verify it.
	part.Input, part.State = string(e.opts.Redactor.RedactJSON(tc.Input)), sessions.ToolRunning
	part.Seal = e.store.SealCall(l.rec.ID, *part)
	// A failure is handled there (the session fails); the call then ends
	// with the turn.
	_ = l.persistMessageLocked(st.msgID, false)
	e.mu.Unlock()

	output, state := l.dispatch(ctx, tools, tc)
	if ctx.Err() != nil {
		e.mu.Lock()
		waiting := e.closed && l.hasOpenCall(tc.ID)
		e.mu.Unlock()
		if waiting {
			// The engine quits while the call waits on the operator: it
			// stays pending, with its interaction, for the next engine.
			return
		}
		output, state = "interrupted: "+context.Cause(ctx).Error(), sessions.ToolInterrupted
	}
	e.mu.Lock()
	if part := st.toolLocked(tc.ID); part != nil {
		part.Output, part.State = output, state
		l.progressLocked(e.opts.Now())
		l.noteCallLocked(tc.Name, string(tc.Input))
		st.checkpointLocked()
	}
	e.mu.Unlock()
}

func (l *live) dispatch(ctx context.Context, tools []*tool, tc harness.ToolCall) (string, sessions.ToolState) {
	e := l.e
	var t *tool
	for _, x := range tools {
		if x.spec.Name == tc.Name {
			t = x
		}
	}
	if t == nil {
		return fmt.Sprintf("unknown tool %q", tc.Name), sessions.ToolError
	}
	p, err := e.placeOf(l)
	if err != nil {
		return err.Error(), sessions.ToolError
	}
	c := &call{e: e, l: l, p: p, ctx: ctx, id: tc.ID, input: map[string]any{}}
	if len(tc.Input) > 0 {
		if err := json.Unmarshal(tc.Input, &c.input); err != nil {
			return "invalid tool input: " + err.Error(), sessions.ToolError
		}
	}
	if ok, msg := e.approve(ctx, c, t, tc.ID); !ok {
		return msg, sessions.ToolDenied
	}
	return t.run(c)
}

// lease takes the read or write lease of the session's place (the
// workspace's, or its instance's) for one tool operation.
func (c *call) lease(write bool) (func(), error) {
	if write {
		return c.p.leases.Write(c.ctx, c.l.rec.ID)
	}
	return c.p.leases.Read(c.ctx, c.l.rec.ID)
}

// wrote notes a path the turn's tools changed, for the turn's commit.
func (c *call) wrote(p string) { c.l.noteWrite(p) }

func (c *call) read(p string) (string, error) {
	got, err := c.p.files.ReadFile(c.l.rec.ID, p, files.ReadOptions{})
	if err != nil {
		return "", err
	}
	return string(got.Data), nil
}

func runReadFile(c *call) (string, sessions.ToolState) {
	release, err := c.lease(false)
	if err != nil {
		return err.Error(), sessions.ToolError
	}
	defer release()
	text, err := c.read(c.str("path"))
	if err != nil {
		return err.Error(), sessions.ToolError
	}
	return text, sessions.ToolDone
}

func runWriteFile(c *call) (string, sessions.ToolState) {
	path, content := c.str("path"), c.str("content")
	release, err := c.lease(true)
	if err != nil {
		return err.Error(), sessions.ToolError
	}
	defer release()
	if err := c.p.files.WriteFile(c.l.rec.ID, path, []byte(content)); err != nil {
		return err.Error(), sessions.ToolError
	}
	c.wrote(path)
	return fmt.Sprintf("wrote %d bytes to %s", len(content), path), sessions.ToolDone
}

func runEditFile(c *call) (string, sessions.ToolState) {
	path, old, repl := c.str("path"), c.str("old_text"), c.str("new_text")
	release, err := c.lease(true)
	if err != nil {
		return err.Error(), sessions.ToolError
	}
	defer release()
	text, err := c.read(path)
	if err != nil {
		return err.Error(), sessions.ToolError
	}
	switch n := strings.Count(text, old); {
	case old == "":
		return "old_text is empty", sessions.ToolError
	case n == 0:
		return "old_text not found in " + path, sessions.ToolError
	case n > 1:
		return fmt.Sprintf("old_text is ambiguous: it occurs %d times in %s", n, path), sessions.ToolError
	}
	if err := c.p.files.WriteFile(c.l.rec.ID, path, []byte(strings.Replace(text, old, repl, 1))); err != nil {
		return err.Error(), sessions.ToolError
	}
	c.wrote(path)
	return "edited " + path, sessions.ToolDone
}

func runList(c *call) (string, sessions.ToolState) {
	p := c.str("path")
	if p == "" {
		p = "."
	}
	release, err := c.lease(false)
	if err != nil {
		return err.Error(), sessions.ToolError
	}
	defer release()
	ents, err := c.p.files.List(p)
	if err != nil {
		return err.Error(), sessions.ToolError
	}
	var b strings.Builder
	for _, en := range ents {
		name := en.Name()
		if en.IsDir() {
			name += "/"
		}
		b.WriteString(name + "\n")
	}
	return b.String(), sessions.ToolDone
}

func runExec(c *call) (string, sessions.ToolState) {
	timeout := 10 * time.Minute
	if s, ok := c.input["timeout_seconds"].(float64); ok && s > 0 {
		timeout = time.Duration(s * float64(time.Second))
	}
	res, err := c.l.execFor(c.ctx, terminal.ExecRequest{ShellCommand: c.str("command"), Timeout: timeout})
	if err != nil {
		return err.Error(), sessions.ToolError
	}
	return FormatExec(res), execState(res)
}

func runAskUser(c *call) (string, sessions.ToolState) {
	var choices []string
	if raw, ok := c.input["choices"].([]any); ok {
		for _, x := range raw {
			if s, ok := x.(string); ok {
				choices = append(choices, s)
			}
		}
	}
	res, err := c.l.park(c.ctx, sessions.Interaction{Kind: sessions.Question, ToolCall: c.id,
		Text: c.str("question"), Choices: choices, Default: c.str("default")})
	if err != nil {
		return err.Error(), sessions.ToolInterrupted
	}
	return res.Answer, sessions.ToolDone
}

func runWait(c *call) (string, sessions.ToolState) {
	it := sessions.Interaction{Kind: sessions.Park, Event: c.str("event"), ToolCall: c.id}
	if s, ok := c.input["seconds"].(float64); ok && s >= 0 {
		d := c.e.opts.Now().Add(time.Duration(s * float64(time.Second)))
		it.Deadline = &d
	}
	if it.Deadline == nil && it.Event == "" {
		return "wait needs seconds or an event", sessions.ToolError
	}
	res, err := c.l.park(c.ctx, it)
	if err != nil {
		return err.Error(), sessions.ToolInterrupted
	}
	switch {
	case res.By == "timer":
		return "the timer fired", sessions.ToolDone
	case strings.HasPrefix(res.By, "event ") && res.Answer != "":
		return "the " + res.By + " fired with data: " + res.Answer, sessions.ToolDone
	case strings.HasPrefix(res.By, "event "):
		return "the " + res.By + " fired", sessions.ToolDone
	default:
		return "woken by " + res.By, sessions.ToolDone
	}
}
