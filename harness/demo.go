package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/atelier-studio/atelier/internal/exemplar"
	"github.com/atelier-studio/atelier/sessions"
)

// Demo is the offline scripted agent, the default when nothing else is
// configured. It is a Model, so it drives the engine's real tool loop: its
// script asks to run a command (an approval under the ask policy), writes a
// file, asks a question with a default answer, parks on a short timer and
// completes. Every step is decided from the history alone, so the demo is
// deterministic and picks up where it was after a restart. A turn whose
// input carries an output schema is answered at once, without the script,
// with a JSON value built from the schema (structured output, offline).
type Demo struct {
	// Pace is the pause between streamed words; zero streams at once.
	Pace time.Duration
	// Wait is how long the demo parks on its timer.
	Wait time.Duration
	// Event, when set, makes the demo park on that named event instead of
	// its timer (`atelier events fire`), as an agent waiting for a deploy.
	Event string
}

// NewDemo returns the demo agent at a human pace.
func NewDemo() *Demo { return &Demo{Pace: 35 * time.Millisecond, Wait: 5 * time.Second} }

// Name implements Harness.
func (d *Demo) Name() string { return "demo" }

// Caps implements Harness.
func (d *Demo) Caps() Caps { return Caps{Boundary: StepBoundary, Resume: true, Compact: true} }

// DemoFile is the file the demo writes into the workspace.
const DemoFile = "atelier-demo.md"

// Step implements Model.
func (d *Demo) Step(ctx context.Context, req StepRequest, out Emitter) (StepResult, error) {
	if len(req.Output) > 0 {
		return d.answerWith(ctx, req.Output, out)
	}
	prompt, done, again := demoProgress(req.History)
	say := func(text string) error { return d.stream(ctx, out, text) }
	call := func(name string, input any) (StepResult, error) {
		b, _ := json.Marshal(input)
		id := fmt.Sprintf("demo-%d-%s", req.Step, name)
		out.ToolStart(id, name)
		out.ToolInput(id, string(b))
		out.Usage(sessions.Usage{InputTokens: 120, OutputTokens: 40})
		return StepResult{Stop: StopToolUse, ToolCalls: []ToolCall{{ID: id, Name: name, Input: b}},
			Usage: sessions.Usage{InputTokens: 120, OutputTokens: 40}}, nil
	}
	if again || !hasTools(req.Tools) {
		// A turn after the script (a continuous session's next prompt), or
		// an engine that offers the demo no tools.
		if err := say("You said: " + firstLine(prompt) + ". The demo has no more tricks; " +
			"configure a real agent to get real work done."); err != nil {
			return StepResult{}, err
		}
		return StepResult{Stop: StopEnd}, nil
	}
	switch {
	case !done["exec"]:
		if err := say("Here is my plan: look at the workspace, ask you one question, write a short " +
			"note that ends with your answer, wait a moment, then finish. First, let me list the files.\n"); err != nil {
			return StepResult{}, err
		}
		return call("exec", map[string]any{"command": "ls -la"})
	case !done["ask_user"]:
		if err := say("One question before I write the note.\n"); err != nil {
			return StepResult{}, err
		}
		return call("ask_user", map[string]any{"question": "Which greeting should the note end with?",
			"choices": []string{"hello", "goodbye"}, "default": "hello"})
	case !done["write_file"]:
		if err := say("Now I will write the note into the workspace.\n"); err != nil {
			return StepResult{}, err
		}
		return call("write_file", map[string]any{"path": DemoFile,
			"content": "# Written by the Atelier demo\n\nThe task was: " + firstLine(prompt) + "\n\n" + greeting(req.History) + "\n"})
	case !done["wait"]:
		if err := say("Thanks. Now I wait a few seconds, as an agent waiting on a build would.\n"); err != nil {
			return StepResult{}, err
		}
		if d.Event != "" {
			return call("wait", map[string]any{"event": d.Event})
		}
		return call("wait", map[string]any{"seconds": d.Wait.Seconds()})
	}
	if err := say(closing(req.History) + " That is the whole demo."); err != nil {
		return StepResult{}, err
	}
	return StepResult{Stop: StopEnd, Usage: sessions.Usage{InputTokens: 200, OutputTokens: 30}}, nil
}

// answerWith answers a prompt that carries an output schema at once, with
// a JSON value built from the schema (exemplar), so structured output
// works offline. A schema it cannot build a value for gets an answer
// without JSON, which the engine's check then reports.
func (d *Demo) answerWith(ctx context.Context, schema json.RawMessage, out Emitter) (StepResult, error) {
	usage := sessions.Usage{InputTokens: 150, OutputTokens: 60}
	v, err := exemplar.For(schema)
	text := "I cannot build an answer for this schema: " + fmt.Sprint(err) + "."
	if err == nil {
		var pretty bytes.Buffer
		if ierr := json.Indent(&pretty, v, "", "  "); ierr != nil {
			pretty.Reset()
			pretty.Write(v)
		}
		text = "Here is my answer, in the shape the schema asks for (the demo builds it from the schema itself):\n\n" +
			"```json\n" + pretty.String() + "\n```\n"
	}
	if err := d.stream(ctx, out, text); err != nil {
		return StepResult{}, err
	}
	return StepResult{Stop: StopEnd, Usage: usage}, nil
}

// greeting is how the note ends: the operator's answer to the demo's
// question, in this turn ("hello" when the question was not answered).
func greeting(history []sessions.Message) string {
	answer := "hello"
	for _, m := range history {
		if m.Role == sessions.User {
			answer = "hello" // this turn's only
		}
		for _, p := range m.Parts {
			if p.Type == sessions.ToolPart && p.Tool != nil && p.Tool.Name == "ask_user" && p.Tool.State == sessions.ToolDone {
				if a := strings.TrimSpace(firstLine(p.Tool.Output)); a != "" {
					answer = a
				}
			}
		}
	}
	r := []rune(answer)
	return strings.ToUpper(string(r[:1])) + string(r[1:]) + "!"
}

func hasTools(specs []ToolSpec) bool {
	need := map[string]bool{"exec": true, "write_file": true, "ask_user": true, "wait": true}
	for _, s := range specs {
		delete(need, s.Name)
	}
	return len(need) == 0
}

// demoProgress finds the prompt of the current turn and which of the demo's
// tools already have a result in it; again is true when an earlier turn
// already ran the script (a continuous session's next prompt), which the demo
// runs once per session.
// closing says what really happened in the turn: a call the operator
// denied, one that failed, the answer given.
func closing(history []sessions.Message) string {
	calls := map[string]*sessions.ToolCall{}
	for _, m := range history {
		if m.Role == sessions.User {
			calls = map[string]*sessions.ToolCall{} // this turn's only
		}
		for _, p := range m.Parts {
			if p.Type == sessions.ToolPart && p.Tool != nil {
				calls[p.Tool.Name] = p.Tool
			}
		}
	}
	what := func(name, did, denied, failed string) string {
		c := calls[name]
		switch {
		case c == nil:
			return ""
		case c.State == sessions.ToolDenied:
			return denied
		case c.State == sessions.ToolError || c.State == sessions.ToolInterrupted:
			return failed
		}
		return did
	}
	var parts []string
	if p := what("exec", "listed the files", "did not list the files (you denied it)", "could not list the files"); p != "" {
		parts = append(parts, p)
	}
	if c := calls["ask_user"]; c != nil && c.State == sessions.ToolDone {
		parts = append(parts, "took your answer, "+strconv.Quote(firstLine(c.Output)))
	}
	if p := what("write_file", "wrote "+DemoFile+" ending with it", "did not write "+DemoFile+" (you denied it)", "could not write "+DemoFile); p != "" {
		if calls["ask_user"] == nil || calls["ask_user"].State != sessions.ToolDone {
			p = strings.TrimSuffix(p, " ending with it")
		}
		parts = append(parts, p)
	}
	if c := calls["wait"]; c != nil && c.State == sessions.ToolDone {
		parts = append(parts, "waited")
	}
	if len(parts) == 0 {
		return "All done."
	}
	if len(parts) > 1 {
		parts[len(parts)-1] = "and " + parts[len(parts)-1]
	}
	return "All done: I " + strings.Join(parts, ", ") + "."
}

func demoProgress(history []sessions.Message) (prompt string, done map[string]bool, again bool) {
	done = map[string]bool{}
	turn := -1
	for _, m := range history {
		if m.Role == sessions.User && m.Turn != turn {
			turn = m.Turn
			if len(done) == 4 {
				again = true
			}
			prompt = m.Text()
			done = map[string]bool{}
			continue
		}
		for _, p := range m.Parts {
			if p.Type == sessions.ToolPart && p.Tool != nil && p.Tool.State.Finished() {
				done[p.Tool.Name] = true
			}
		}
	}
	return prompt, done, again
}

func (d *Demo) stream(ctx context.Context, out Emitter, text string) error {
	words := strings.SplitAfter(text, " ")
	for _, w := range words {
		if d.Pace > 0 {
			t := time.NewTimer(d.Pace)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
		} else if err := ctx.Err(); err != nil {
			return err
		}
		out.Text(w)
	}
	return nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	if s == "" {
		s = "(no task given)"
	}
	return s
}
