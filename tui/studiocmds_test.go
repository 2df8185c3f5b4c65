package tui

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/attach"
	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/core"
	afiles "github.com/atelier-studio/atelier/files"
	"github.com/atelier-studio/atelier/internal/golden"
	sess "github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/tui/files"
	"github.com/atelier-studio/atelier/workflow"
)

// TestClearInThePrompt: /clear sent alone in a session's input line clears
// its conversation (it enters the queue as the engine's clear, which
// applies between turns) and is never sent to the agent as a prompt.
func TestClearInThePrompt(t *testing.T) {
	h := newHarness(t, t.TempDir(), 120, 40)
	h.newDemo("greet", "say hello")
	h.until("the approval's card", func() bool { return strings.Contains(h.screen(), "⚠ approval: exec") })
	id := h.app.tabs.visibleSession()
	h.press("i")
	h.typeText("/clear")
	h.press("enter")
	h.until("the clear in the status line and the activity", func() bool {
		return strings.Contains(h.screen(), "greet: you: cleared the conversation") &&
			h.logged("greet: you: cleared the conversation: the agent is shown nothing said before")
	})
	q, err := h.eng.Queue(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(q) != 1 || q[0].Kind != sess.CtlClear {
		t.Fatalf("the queue holds the clear alone, nothing sent to the agent: %+v", q)
	}
	if !strings.Contains(h.screen(), "steer ›  enter steers the turn") {
		t.Fatalf("the input line is emptied, as by any send:\n%s", h.screen())
	}
}

// TestClearKeyAsks: N in a session's tab (and its palette entry) asks
// before clearing the conversation; the confirm dialog says what a clear
// keeps.
func TestClearKeyAsks(t *testing.T) {
	h := goldenWorkspace(t)
	h.press("down", "enter") // the older session: "fix the flaky tests"
	h.until("the transcript", func() bool { return !strings.Contains(h.screen(), "loading") })
	h.press("N")
	s := h.screen()
	checkSize(t, s, 120, 40)
	golden.Check(t, "clear-confirm-120x40.txt", s)
	h.press("esc")
	if h.app.dlg.dialog != nil {
		t.Fatal("esc keeps things as they are")
	}

	// The palette lists it with the tab's keys.
	h.press(":")
	h.typeText("clear the conversation")
	h.press("enter")
	if !strings.Contains(h.screen(), "Clear the conversation of “fix the flaky tests”?") {
		t.Fatalf("the palette's entry asks as N does:\n%s", h.screen())
	}
}

// greetWorkflow is a workspace workflow: a command, then a question for a
// person, so its run suspends.
const greetWorkflow = `description = "say hello to someone"
key = "who"
[input]
type = "object"
required = ["who"]
properties = { who = { type = "string" }, loud = { type = "boolean" } }
[[steps]]
key = "hello"
exec = "echo hello {{ .input.who }}"
[[steps]]
key = "ask"
ask = "say {{ .steps.hello.stdout }}"
`

// withWorkflows is the seam of a host that runs ws's workflows (trusted)
// and triggers.
func withWorkflows(t *testing.T, ws string, triggers []config.Trigger) func(*core.Engine) attach.Engine {
	return func(e *core.Engine) attach.Engine {
		wf := workflow.NewRunner(e, workflow.Options{Finder: workflow.Finder{Workspace: ws,
			Trust: func() (config.TrustState, error) { return config.TrustTrusted, nil }}})
		t.Cleanup(wf.Close) // before the engine's close, registered earlier
		return attach.LocalHost(e, attach.LocalOptions{Workflows: wf, Triggers: triggers})
	}
}

// TestRunWorkflowFromTheStudio: ctrl+r lists the workspace's workflows,
// choosing one asks for its input naming the schema's fields, input that
// is not a JSON object starts nothing, and a good one starts the run,
// which the sessions list then shows with its session.
func TestRunWorkflowFromTheStudio(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, workflow.WorkspaceDir, "greet.toml"), greetWorkflow)
	h := goldenWorkspaceOn(t, ws, withWorkflows(t, ws, nil))
	h.press("ctrl+r")
	h.until("the workflows", func() bool { return strings.Contains(h.screen(), "greet · say hello to someone") })
	h.press("enter")
	s := h.screen()
	checkSize(t, s, 120, 40)
	golden.Check(t, "workflow-input-120x40.txt", s)

	h.press("ctrl+u")
	h.typeText(`{"who":`)
	h.press("enter")
	h.until("the refusal", func() bool { return strings.Contains(h.app.status.text, "must be a JSON object") })
	if all, err := workflow.ReadRuns(ws); err != nil || len(all) != 0 {
		t.Fatalf("bad input starts nothing: %d runs, %v", len(all), err)
	}

	h.press(":")
	h.typeText("run a workflow")
	h.press("enter")
	h.until("the workflows again, from the palette", func() bool { return strings.Contains(h.screen(), "greet · say hello to someone") })
	h.press("enter", "ctrl+u")
	h.typeText(`{"who": "ana"}`)
	h.press("enter")
	h.until("the run started and listed", func() bool {
		return strings.HasPrefix(h.app.status.text, "you: started workflow greet") && len(h.app.set.runs) == 1
	})
	run := h.app.set.runs[0]
	if run.Workflow != "greet" || string(run.Input) == "" || !strings.Contains(string(run.Input), "ana") {
		t.Fatalf("the run started is greet with the input given: %+v", run)
	}
}

// TestFireEventFromTheStudio: E (and its palette entry) asks for an
// event's name and data, a bad name fires nothing, and a good one fires
// once with its data: the status line says which triggers it fired.
func TestFireEventFromTheStudio(t *testing.T) {
	ws := t.TempDir()
	tr := []config.Trigger{{Name: "deployed", OnEvent: "deploy", Agent: "demo", Prompt: "Check release"}}
	h := goldenWorkspaceOn(t, ws, withWorkflows(t, ws, tr))
	_, feed := h.eng.Subscribe()
	t.Cleanup(feed.Close)

	h.press("E")
	h.typeText("not an event")
	h.press("enter")
	h.until("the refusal", func() bool { return strings.HasPrefix(h.app.status.text, "an event name is letters") })

	h.press(":")
	h.typeText("fire a named event")
	h.press("enter")
	h.typeText("deploy")
	h.press("enter")
	s := h.screen()
	checkSize(t, s, 120, 40)
	golden.Check(t, "event-data-120x40.txt", s)
	h.typeText(`{"version": 7}`)
	h.press("enter")
	h.until("the firing in the status line", func() bool {
		return h.app.status.text == "you: fired deploy · 1 trigger (deployed) fired · woke 0 parked sessions"
	})
	var signals []string
	for _, ev := range feed.Drain() {
		if ev.Kind == core.EvSignal && ev.Signal != nil {
			signals = append(signals, ev.Signal.Name+" "+ev.Signal.Data)
		}
	}
	if len(signals) != 1 || signals[0] != `deploy {"version": 7}` {
		t.Fatalf("one event fired, with its data, the bad name none: %q", signals)
	}
}

// TestMentionCompletesAPath: "@" then letters in a session's prompt offers
// the workspace's paths they begin (folders and files, not the ignored
// ones), tab accepts one as "@path", esc dismisses the list and keeps the
// word, and a file created meanwhile is offered once the watcher saw it.
func TestMentionCompletesAPath(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, ".gitignore"), "build/\n")
	writeFiles(t, ws, "build/core.o", "docs/core.md")
	h := goldenWorkspaceOn(t, ws, attach.Local)
	h.press("down", "enter")
	h.until("the transcript", func() bool { return !strings.Contains(h.screen(), "loading") })
	h.press("i")
	h.typeText("look at @co")
	h.until("the paths offered", func() bool { return strings.Contains(h.screen(), "@core/engine.go") })
	s := h.screen()
	checkSize(t, s, 120, 40)
	golden.Check(t, "mention-120x40.txt", s)
	if strings.Contains(s, "build/") {
		t.Fatalf("an ignored folder is not offered:\n%s", s)
	}
	if !strings.Contains(s, "@docs/core.md") {
		t.Fatalf("a path whose name the word begins is offered too:\n%s", s)
	}

	h.press("tab") // the folder first: the shortest
	h.typeText("e")
	h.press("tab")
	h.typeText("and @REA")
	h.until("README offered", func() bool { return strings.Contains(h.screen(), "  @README.md") })
	h.press("esc")
	if !h.app.takesText() || strings.Contains(h.screen(), "  @README.md") {
		t.Fatalf("esc dismisses the list and keeps the line open:\n%s", h.screen())
	}
	if !strings.Contains(h.screen(), "send › look at @core/engine.go and @REA") {
		t.Fatalf("the accepted path is in the line as @path:\n%s", h.screen())
	}

	writeFile(t, filepath.Join(ws, "notes.md"), "new\n")
	h.typeText(" @no")
	if strings.Contains(h.screen(), "  @notes.md") {
		t.Fatal("the kept list is walked again on the watcher's word, not on a key")
	}
	h.send(files.Changes{{Kind: afiles.Created, Path: "notes.md"}}) // as the watcher reports it
	h.until("the new file offered", func() bool { return strings.Contains(h.screen(), "  @notes.md") })
}

// TestMentionAttached: a studio attached to another machine's engine
// completes the paths of the served workspace, read through its files API.
func TestMentionAttached(t *testing.T) {
	far := t.TempDir()
	writeFiles(t, far, "src/main.go", "src/util.go")
	h := farStudio(t, far)
	if _, err := h.eng.Create(core.CreateOptions{Title: "afar", Instructions: "a task"}); err != nil {
		t.Fatal(err)
	}
	h.until("the session", func() bool { return strings.Contains(h.screen(), "afar") })
	h.app.setFocus(focusSessions)
	h.press("enter")
	h.until("the tab", func() bool { return h.app.tabs.visibleSession() != "" })
	h.press("i")
	h.typeText("@src/m")
	h.until("the served path offered", func() bool { return strings.Contains(h.screen(), "  @src/main.go") })
	if strings.Contains(h.screen(), "@src/util.go") {
		t.Fatalf("only the paths the word begins:\n%s", h.screen())
	}
}
