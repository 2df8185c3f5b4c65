package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/attach"
	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/dialog"
	"github.com/atelier-studio/atelier/workflow/runs"
)

// What the studio starts beside a session, as `atelier workflow run` and
// `atelier events fire` do: a workflow's run (picked from the host's
// workflows, its input asked for as JSON with the schema's fields shown)
// and a named event with optional data. Each goes through the engine
// surface in a command; the run then shows where runs show (the sessions
// list's group, its session's tab), the firing in the status line.

type (
	// workflowsMsg is the host's workflows, read to pick one to run.
	workflowsMsg struct {
		list []runs.Source
		err  error
	}
	// runStartedMsg is the answer to starting a run.
	runStartedMsg struct {
		name string
		run  runs.Run
		err  error
	}
	// firedMsg is what firing an event did.
	firedMsg struct {
		name  string
		fired attach.Fired
		err   error
	}
)

// chooseWorkflow reads the host's workflows in a command, to pick one.
func (sp *settingsPart) chooseWorkflow() tea.Cmd {
	eng := sp.eng
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), programTimeout)
		defer cancel()
		list, err := eng.Workflows(ctx)
		return workflowsMsg{list: list, err: err}
	}
}

// pickWorkflow lists the workflows read; choosing one asks for its input.
func (sp *settingsPart) pickWorkflow(msg workflowsMsg) tea.Cmd {
	if msg.err != nil {
		sp.status.set("workflows: "+errorText(msg.err), true)
		return nil
	}
	if len(msg.list) == 0 {
		sp.status.set("no workflows: a workflow is a TOML file in .atelier/workflows/ (docs/workflows.md)", false)
		return nil
	}
	list := msg.list
	entries := make([]dialog.Entry, 0, len(list))
	for _, w := range list {
		desc := w.Name
		switch {
		case w.Error != "":
			desc += " · cannot run: " + w.Error
		case w.Description != "":
			desc += " · " + w.Description
		}
		where := "user's"
		if w.Workspace {
			where = "workspace's"
		}
		entries = append(entries, dialog.Entry{Scope: where, Desc: desc})
	}
	sp.dlg.open(dialog.NewPalette(sp.st, "Run a workflow (enter asks for its input)", entries), onOK(func(r dialog.Result) tea.Cmd {
		w := list[r.Chosen]
		if w.Error != "" {
			sp.status.set("workflow "+w.Name+" cannot run: "+w.Error, true)
			return nil
		}
		sp.askInput(w)
		return nil
	}))
	return nil
}

// askInput asks for a run's input as JSON, naming the schema's fields; a
// line that is not a JSON object is refused and nothing starts.
func (sp *settingsPart) askInput(w runs.Source) {
	text := "The input of " + w.Name + ", as a JSON object."
	if fields := schemaFields(w.Input); fields != "" {
		text += "\nFields: " + fields
	}
	name := w.Name
	sp.dlg.prompt("Run "+w.Name, text, "{}", func(line string) tea.Cmd {
		line = strings.TrimSpace(line)
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &obj); err != nil || obj == nil {
			sp.status.set("the input of "+name+" must be a JSON object, like {\"key\": \"value\"}: nothing started", true)
			return nil
		}
		return sp.runWorkflow(name, json.RawMessage(line))
	})
}

// runWorkflow starts the run in a command.
func (sp *settingsPart) runWorkflow(name string, input json.RawMessage) tea.Cmd {
	eng := sp.eng
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), programTimeout)
		defer cancel()
		run, err := eng.RunWorkflow(ctx, name, input)
		return runStartedMsg{name: name, run: run, err: err}
	}
}

// runStarted says the run started and reads the runs again, so its group
// shows in the sessions list at once.
func (sp *settingsPart) runStarted(msg runStartedMsg) tea.Cmd {
	if msg.err != nil {
		sp.status.set("workflow "+msg.name+": "+errorText(msg.err), true)
		sp.act.log("", "starting workflow "+msg.name+" failed: "+errorText(msg.err), themes.ToneError)
		return nil
	}
	text := fmt.Sprintf("you: started workflow %s (run %s, %s)", msg.name, msg.run.ID, msg.run.Status)
	sp.status.set(text, false)
	sp.act.log("", text, themes.ToneAccent)
	return sp.loadRuns()
}

// schemaFields words an input schema's properties for the prompt: each
// with its type, the required ones marked; "" for a schema without any.
func schemaFields(schema json.RawMessage) string {
	var s struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if len(schema) == 0 || json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return ""
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	req := map[string]bool{}
	for _, n := range s.Required {
		req[n] = true
	}
	parts := make([]string, 0, len(names))
	for _, n := range names {
		p := n
		if t, ok := s.Properties[n].Type.(string); ok {
			p += " (" + t + ")"
		}
		if req[n] {
			p += " required"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}

// askEvent asks for an event's name, then its data; a bad name or data
// that is not JSON is refused and nothing fires.
func (sp *settingsPart) askEvent() {
	sp.dlg.prompt("Fire an event", "The event's name: sessions parked on it wake, triggers with on_event for it fire.", "", func(name string) tea.Cmd {
		name = strings.TrimSpace(name)
		if !config.ValidEventName(name) {
			sp.status.set(config.EventNameRule+": nothing fired", true)
			return nil
		}
		sp.dlg.prompt("Fire "+name, "Its data, as JSON (empty for none): what the woken waits return, what the triggers' templates read.", "", func(data string) tea.Cmd {
			data = strings.TrimSpace(data)
			if data != "" && !json.Valid([]byte(data)) {
				sp.status.set("the data must be JSON (a string is written \"in quotes\"): nothing fired", true)
				return nil
			}
			return sp.fireEvent(name, json.RawMessage(data))
		})
		return nil
	})
}

// fireEvent fires the event in a command.
func (sp *settingsPart) fireEvent(name string, data json.RawMessage) tea.Cmd {
	eng := sp.eng
	if len(data) == 0 {
		data = nil
	}
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), programTimeout)
		defer cancel()
		f, err := eng.FireEvent(ctx, name, data)
		return firedMsg{name: name, fired: f, err: err}
	}
}

// fired says in the status line how many triggers the event fired and how
// many parked sessions it woke.
func (sp *settingsPart) fired(msg firedMsg) {
	if msg.err != nil {
		sp.status.set("event "+msg.name+": "+errorText(msg.err), true)
		return
	}
	sp.status.set("you: fired "+msg.name+" · "+firedText(msg.fired), false)
}

// firedText words a firing: the triggers it fired (named) and the
// sessions it woke.
func firedText(f attach.Fired) string {
	trig := plural(len(f.Triggers), "trigger", "triggers")
	if len(f.Triggers) > 0 {
		trig += " (" + strings.Join(f.Triggers, ", ") + ")"
	}
	return trig + " fired · woke " + plural(f.Woken, "parked session", "parked sessions")
}
