package modeltest

import (
	"strings"
	"sync"

	"github.com/atelier-studio/atelier/sessions"
)

// Event is one call a harness made on an Emitter.
type Event struct {
	Kind  string // text, reasoning, tool_start, tool_input, tool_result, usage, notice, rewind
	ID    string
	Name  string
	Text  string
	State sessions.ToolState
	Usage sessions.Usage
}

// Recorder is a harness.Emitter that records every call in order. Its
// Rewind drops the events since the last rewind point, as an engine drops
// the provisional output of a step that is retried.
type Recorder struct {
	mu     sync.Mutex
	events []Event
}

func (r *Recorder) add(e Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

// Text implements harness.Emitter.
func (r *Recorder) Text(d string) { r.add(Event{Kind: "text", Text: d}) }

// Reasoning implements harness.Emitter.
func (r *Recorder) Reasoning(d string) { r.add(Event{Kind: "reasoning", Text: d}) }

// ToolStart implements harness.Emitter.
func (r *Recorder) ToolStart(id, name string) { r.add(Event{Kind: "tool_start", ID: id, Name: name}) }

// ToolInput implements harness.Emitter.
func (r *Recorder) ToolInput(id, d string) { r.add(Event{Kind: "tool_input", ID: id, Text: d}) }

// ToolResult implements harness.Emitter.
func (r *Recorder) ToolResult(id, output string, state sessions.ToolState) {
	r.add(Event{Kind: "tool_result", ID: id, Text: output, State: state})
}

// Usage implements harness.Emitter.
func (r *Recorder) Usage(u sessions.Usage) { r.add(Event{Kind: "usage", Usage: u}) }

// Notice implements harness.Emitter.
func (r *Recorder) Notice(text string) { r.add(Event{Kind: "notice", Text: text}) }

// Events returns a copy of what was recorded.
func (r *Recorder) Events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

// Joined returns the text of all events of one kind, concatenated.
func (r *Recorder) Joined(kind string) string {
	var b strings.Builder
	for _, e := range r.Events() {
		if e.Kind == kind {
			b.WriteString(e.Text)
		}
	}
	return b.String()
}

// Notices returns the notices in order.
func (r *Recorder) Notices() []string {
	var out []string
	for _, e := range r.Events() {
		if e.Kind == "notice" {
			out = append(out, e.Text)
		}
	}
	return out
}

// ToolInputs returns each started tool call's streamed input, by id, and
// the ids in the order they started.
func (r *Recorder) ToolInputs() (map[string]string, []string) {
	in := map[string]string{}
	var order []string
	for _, e := range r.Events() {
		switch e.Kind {
		case "tool_start":
			in[e.ID] = ""
			order = append(order, e.ID)
		case "tool_input":
			in[e.ID] += e.Text
		}
	}
	return in, order
}

// Rewinder is a Recorder whose engine can drop a step's provisional
// output; the harnesses use it to retry a stream that failed mid-way.
type Rewinder struct {
	Recorder
	Rewinds int
}

// Rewind drops what was recorded except notices, and counts the call.
func (r *Rewinder) Rewind() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Rewinds++
	kept := r.events[:0]
	for _, e := range r.events {
		if e.Kind == "notice" {
			kept = append(kept, e)
		}
	}
	r.events = kept
}
