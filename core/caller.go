package core

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/atelier-studio/atelier/engine"
	"github.com/atelier-studio/atelier/sessions"
)

// Caller sends controls on behalf of one client (the studio, the command
// line, an API client, the MCP bridge), so that every control records who
// sent it (sessions.Control.Client, in controls.jsonl). Engine's own
// control methods send as the engine's default client (Options.Client).
type Caller struct {
	e      *Engine
	client string
	user   string
}

// As returns a Caller that labels its controls with client ("" is the
// engine's default client), sent by this process's user.
func (e *Engine) As(client string) Caller {
	return e.AsUser(client, "")
}

// AsUser is As for a client run by another process: user says who ran it
// (sessions.Control.User); "" is this process's user.
func (e *Engine) AsUser(client, user string) Caller {
	if client == "" {
		client = e.opts.Client
	}
	if user == "" {
		user = ProcessUser()
	}
	return Caller{e: e, client: client, user: user}
}

func (c Caller) submit(id string, ctl sessions.Control) (Receipt, error) {
	ctl.Client, ctl.User = c.client, c.user
	return c.e.submit(id, ctl)
}

// Start starts a CREATED session.
func (c Caller) Start(id string) error {
	_, err := c.submit(id, sessions.Control{Kind: sessions.CtlStart})
	return err
}

// Pause holds a RUNNING session at the next boundary its agent allows; if
// the turn ends first, the pause is recorded as superseded.
func (c Caller) Pause(id string) (Receipt, error) {
	return c.submit(id, sessions.Control{Kind: sessions.CtlPause})
}

// Resume continues a PAUSED session.
func (c Caller) Resume(id string) (Receipt, error) {
	return c.submit(id, sessions.Control{Kind: sessions.CtlResume})
}

// Stop interrupts the turn in flight at once and keeps the session: it
// then waits for its next input (WAITING awaiting_input).
func (c Caller) Stop(id string) (Receipt, error) {
	return c.submit(id, sessions.Control{Kind: sessions.CtlStop})
}

// Cancel ends a session, at once for a turn in flight: the tool call in
// flight gets an interrupted result. It cannot be undone.
func (c Caller) Cancel(id string) (Receipt, error) {
	return c.submit(id, sessions.Control{Kind: sessions.CtlCancel})
}

// CloseSession ends a continuous session that waits for its next input.
func (c Caller) CloseSession(id string) (Receipt, error) {
	return c.submit(id, sessions.Control{Kind: sessions.CtlClose})
}

// Send gives a session a prompt: a WAITING session starts its next turn
// with it; otherwise it joins the input queue and starts the turn after the
// current one. A non-empty key makes the call idempotent.
func (c Caller) Send(id, text string, key ...string) (Receipt, error) {
	return c.input(id, sessions.CtlPrompt, text, key)
}

// Steer adds an instruction to a running turn, delivered at the next
// boundary its agent allows; a WAITING session takes it as its next input.
func (c Caller) Steer(id, text string, key ...string) (Receipt, error) {
	return c.input(id, sessions.CtlSteer, text, key)
}

func (c Caller) input(id string, kind sessions.ControlKind, text string, key []string) (Receipt, error) {
	if text == "" {
		return Receipt{}, fmt.Errorf("%s: empty text", kind)
	}
	if err := engine.TextTooLarge(string(kind), len(text)); err != nil {
		return Receipt{}, err
	}
	ctl := sessions.Control{Kind: kind, Text: text}
	if len(key) > 0 {
		ctl.Key = key[0]
	}
	return c.submit(id, ctl)
}

// SetModel queues a model change, applied at the next boundary.
func (c Caller) SetModel(id, model string) (Receipt, error) {
	return c.submit(id, sessions.Control{Kind: sessions.CtlModel, Text: model})
}

// SetApproval queues an approval-policy change, applied at the next boundary.
func (c Caller) SetApproval(id, policy string) (Receipt, error) {
	switch policy {
	case PolicyAsk, PolicyAuto, PolicyReadOnly:
	default:
		return Receipt{}, fmt.Errorf("approval policy must be ask, auto or read-only, not %q", policy)
	}
	return c.submit(id, sessions.Control{Kind: sessions.CtlApproval, Text: policy})
}

// Nudge fires a parked session's timer or event now.
func (c Caller) Nudge(id string) (Receipt, error) {
	return c.submit(id, sessions.Control{Kind: sessions.CtlNudge})
}

// Archive hides a session from the default lists; Archive(id, false)
// shows it again.
func (c Caller) Archive(id string, archived bool) error {
	_, err := c.submit(id, sessions.Control{Kind: sessions.CtlArchive, Text: strconv.FormatBool(archived)})
	return err
}

// Answer resolves an open interaction of a session, from any client.
func (c Caller) Answer(sessionID, interactionID string, a Answer) error {
	_, err := c.submit(sessionID, sessions.Control{Kind: sessions.CtlAnswer, Target: interactionID,
		Decision: a.Decision, Message: a.Message, Text: a.Text, Prefix: a.Prefix, Detail: a.By})
	return err
}

// RemoveQueued takes a pending input out of the queue.
func (c Caller) RemoveQueued(id, controlID string) error {
	_, err := c.submit(id, sessions.Control{Kind: sessions.CtlUnqueue, Target: controlID})
	return err
}

// MoveQueued moves a pending input to position to (0 is next).
func (c Caller) MoveQueued(id, controlID string, to int) error {
	_, err := c.submit(id, sessions.Control{Kind: sessions.CtlMove, Target: controlID, Index: to})
	return err
}

// EditQueued replaces the text of a pending prompt or steer; it keeps its
// place in the queue and its idempotency key. An item a turn already took
// is no longer queued: ErrNotQueued.
func (c Caller) EditQueued(id, controlID, text string) error {
	if strings.TrimSpace(text) == "" {
		return fmt.Errorf("edit queued item %s: empty text", controlID)
	}
	if err := engine.TextTooLarge("edit queued item "+controlID+": the text", len(text)); err != nil {
		return err
	}
	_, err := c.submit(id, sessions.Control{Kind: sessions.CtlEdit, Target: controlID, Text: text})
	return err
}

// Revoke withdraws an "allow for this session" grant; the next such call
// asks again.
func (c Caller) Revoke(id, grant string) error {
	_, err := c.submit(id, sessions.Control{Kind: sessions.CtlRevoke, Target: grant})
	return err
}
