package core

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/terminal/docker"
)

// rig is an engine on a temporary workspace with a subscription that the
// test reads to wait for states.
type rig struct {
	t   *testing.T
	ws  string
	e   *Engine
	sub *Subscription
	evs []Event // events not yet looked at by until
}

func newRig(t *testing.T, agents MapResolver) *rig {
	t.Helper()
	return openRig(t, t.TempDir(), agents)
}

func openRig(t *testing.T, ws string, agents MapResolver) *rig {
	t.Helper()
	e, err := Open(ws, Options{Agents: agents, Workers: 2, Containers: testContainers})
	if err != nil {
		t.Fatal(err)
	}
	_, sub := e.Subscribe()
	r := &rig{t: t, ws: ws, e: e, sub: sub}
	t.Cleanup(func() { closeEngine(t, e) })
	return r
}

// closeEngine closes e, reporting an error from Close without stopping the
// test: for defers and cleanups.
func closeEngine(tb testing.TB, e *Engine) {
	tb.Helper()
	if err := e.Close(); err != nil {
		tb.Error(err)
	}
}

// until reads events until cond is true of one of them (or of the session's
// current record), failing after a deadline.
func (r *rig) until(what string, cond func(Event) bool) Event {
	r.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		for len(r.evs) > 0 {
			ev := r.evs[0]
			r.evs = r.evs[1:]
			if cond(ev) {
				return ev
			}
		}
		select {
		case <-r.sub.Ready():
			r.evs = append(r.evs, r.sub.Drain()...)
		case <-deadline:
			r.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func (r *rig) status(id string, st sessions.Status) sessions.Session {
	r.t.Helper()
	if s, _ := r.e.Session(id); s.Status == st {
		return s
	}
	ev := r.until(string(st), func(ev Event) bool {
		return ev.Kind == EvSession && ev.SessionID == id && ev.Session.Status == st
	})
	return *ev.Session
}

func (r *rig) sub2(id string, ss sessions.SubState) {
	r.t.Helper()
	if s, _ := r.e.Session(id); s.Status == sessions.Running && s.SubState == ss {
		return
	}
	r.until(string(ss), func(ev Event) bool {
		return ev.Kind == EvSession && ev.SessionID == id && ev.Session.SubState == ss
	})
}

func (r *rig) interaction(id string, kind sessions.InteractionKind) sessions.Interaction {
	r.t.Helper()
	ev := r.until("interaction "+string(kind), func(ev Event) bool {
		return ev.Kind == EvInteraction && ev.SessionID == id && ev.Interaction.Kind == kind && !ev.Interaction.Resolved
	})
	return *ev.Interaction
}

func (r *rig) create(o CreateOptions) sessions.Session {
	r.t.Helper()
	rec, err := r.e.Create(o)
	if err != nil {
		r.t.Fatal(err)
	}
	return rec
}

func toolCall(id, name string, input any) harness.ToolCall {
	b, _ := json.Marshal(input)
	return harness.ToolCall{ID: id, Name: name, Input: b}
}

// gated returns a model whose first step blocks until the returned gate is
// closed, then ends the turn.
func gated() (*scripted.Model, chan struct{}) {
	g := make(chan struct{})
	return &scripted.Model{Script: []scripted.Step{{Text: "working", Gate: g}}}, g
}

func tools(msgs []sessions.Message) []sessions.ToolCall {
	var out []sessions.ToolCall
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.Tool != nil {
				out = append(out, *p.Tool)
			}
		}
	}
	return out
}

// streaming waits until a session's turn has streamed text: its first step
// is in flight.
func (r *rig) streaming(id string) {
	r.t.Helper()
	r.until("a delta", func(ev Event) bool { return ev.Kind == EvDelta && ev.SessionID == id })
}

// testContainers is the Docker backend the tests' engines are handed, as
// the command line's composition hands one in; it dials Docker only when
// a session runs there.
var testContainers = docker.NewSessions(docker.EngineOptions{}, docker.Config{})
