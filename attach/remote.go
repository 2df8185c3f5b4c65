package attach

import (
	"context"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/sessions"
)

// Controls are the session controls over a host's API, answered in the
// engine's types and errors. The CLI's short commands and Remote share
// them.
type Controls struct {
	Ctx context.Context
	C   *client.Client
	// Env returns what this client hands over with a send or steer for a
	// session of agent (see client.InputRequest.Env); nil hands nothing.
	Env func(agent string) map[string]string
}

func (r Controls) Session(id string) (sessions.Session, error) {
	rec, err := r.C.Session(r.Ctx, id)
	return rec, Err(err)
}

func (r Controls) Start(id string) error {
	_, err := r.C.Start(r.Ctx, id)
	return Err(err)
}

func (r Controls) control(id, action string) (core.Receipt, error) {
	rc, err := r.C.Control(r.Ctx, id, action)
	return rc, Err(err)
}

func (r Controls) Pause(id string) (core.Receipt, error)        { return r.control(id, "pause") }
func (r Controls) Resume(id string) (core.Receipt, error)       { return r.control(id, "resume") }
func (r Controls) Stop(id string) (core.Receipt, error)         { return r.control(id, "stop") }
func (r Controls) Cancel(id string) (core.Receipt, error)       { return r.control(id, "cancel") }
func (r Controls) CloseSession(id string) (core.Receipt, error) { return r.control(id, "close") }
func (r Controls) Nudge(id string) (core.Receipt, error)        { return r.control(id, "nudge") }

func (r Controls) Delete(id string) error {
	_, err := r.control(id, "delete")
	return err
}

// SetModel queues a change of the session's model.
func (r Controls) SetModel(id, model string) (core.Receipt, error) {
	rc, err := r.C.SetModel(r.Ctx, id, model)
	return rc, Err(err)
}

// SetApproval queues a change of the session's approval policy.
func (r Controls) SetApproval(id, policy string) (core.Receipt, error) {
	rc, err := r.C.SetApproval(r.Ctx, id, policy)
	return rc, Err(err)
}

// Compact asks for a summary of the session's older history.
func (r Controls) Compact(id string) (core.Receipt, error) { return r.control(id, "compact") }

// Clear starts the session's conversation afresh.
func (r Controls) Clear(id string) (core.Receipt, error) { return r.control(id, "clear") }

func (r Controls) Archive(id string, archive bool) error {
	action := "archive"
	if !archive {
		action = "unarchive"
	}
	_, err := r.control(id, action)
	return err
}

func (r Controls) Send(id, text string, key ...string) (core.Receipt, error) {
	return r.input(id, text, false, key)
}

func (r Controls) Steer(id, text string, key ...string) (core.Receipt, error) {
	return r.input(id, text, true, key)
}

// Prompt sends a prompt with its options.
func (r Controls) Prompt(id string, p core.Prompt) (core.Receipt, error) {
	return r.send(id, false, client.InputRequest{Text: p.Text, Key: p.Key, OutputSchema: p.Output})
}

// input sends a prompt or a steer with the variables this client hands
// over for the session's agent, which it asks the host for first.
func (r Controls) input(id, text string, steer bool, key []string) (core.Receipt, error) {
	return r.send(id, steer, client.InputRequest{Text: text, Key: firstKey(key)})
}

// send is input with the whole request.
func (r Controls) send(id string, steer bool, req client.InputRequest) (core.Receipt, error) {
	if r.Env != nil {
		rec, err := r.C.Session(r.Ctx, id)
		if err != nil {
			return core.Receipt{}, Err(err)
		}
		req.Env = r.Env(rec.Agent)
	}
	rc, err := r.C.Input(r.Ctx, id, steer, req)
	return rc, Err(err)
}

func (r Controls) Queue(id string) ([]sessions.Control, error) {
	q, err := r.C.Queue(r.Ctx, id)
	return q, Err(err)
}

func (r Controls) RemoveQueued(id, item string) error {
	return Err(r.C.RemoveQueued(r.Ctx, id, item))
}

func (r Controls) MoveQueued(id, item string, to int) error {
	return Err(r.C.MoveQueued(r.Ctx, id, item, to))
}

// EditQueued replaces the text of a pending prompt or steer.
func (r Controls) EditQueued(id, item, text string) error {
	return Err(r.C.EditQueued(r.Ctx, id, item, text))
}

func (r Controls) OpenInteractions() ([]core.OpenInteraction, error) {
	list, err := r.C.Interactions(r.Ctx, "")
	return list, Err(err)
}

// Answer answers an interaction; the host records the client's label as
// who answered.
func (r Controls) Answer(sessionID, interactionID string, a core.Answer) error {
	return Err(r.C.Respond(r.Ctx, sessionID, interactionID,
		client.Response{Decision: a.Decision, Message: a.Message, Text: a.Text, Prefix: a.Prefix}))
}

func (r Controls) Grants(id string) ([]string, error) {
	g, err := r.C.Grants(r.Ctx, id)
	return g, Err(err)
}

// Context is what the session's agent is given at its next step.
func (r Controls) Context(id string) (core.AgentContext, error) {
	c, err := r.C.Context(r.Ctx, id)
	if err != nil {
		return core.AgentContext{}, Err(err)
	}
	out := core.AgentContext{Session: c.Session, Agent: c.Agent, Kind: c.Kind, Model: c.Model, Instructions: c.Instructions,
		Tools: make([]harness.ToolSpec, len(c.Tools)), Messages: c.Messages, Bytes: c.Bytes, Compacted: c.Compacted, Next: c.Next}
	for i, t := range c.Tools {
		out.Tools[i] = harness.ToolSpec{Name: t.Name, Description: t.Description, Schema: t.Schema}
	}
	return out, nil
}

func (r Controls) Revoke(id, grant string) error { return Err(r.C.Revoke(r.Ctx, id, grant)) }

func (r Controls) Fork(id, upTo, title string) (sessions.Session, error) {
	rec, err := r.C.Fork(r.Ctx, id, upTo, title)
	return rec, Err(err)
}

func firstKey(keys []string) string {
	if len(keys) == 0 {
		return ""
	}
	return keys[0]
}

// Event is the engine's event an event of the host's stream carries: the
// same type, decoded. ok is false for a snapshot or resync (not engine
// events) and for a malformed event (nothing to apply).
func Event(ev client.Event) (core.Event, bool) {
	if ev.Kind == client.KindResync || !ev.Complete() {
		return core.Event{}, false
	}
	return ev.Event, true
}
