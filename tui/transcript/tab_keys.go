package transcript

// What a session's tab does with a key or a paste: the card's answers, the
// queue's moves, scrolling, and the prompt box's typing and line breaks.

import (
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/core"
	sess "github.com/atelier-studio/atelier/sessions"
)

// Wants returns what the tab needs loaded for what it shows (the files of
// history commits scrolled near), nil when nothing.
func (t *Tab) Wants() Action {
	if t.showHist {
		return t.hist.Wants()
	}
	return nil
}

// HandleKey acts on a key and returns what the root should do.
func (t *Tab) HandleKey(msg tea.KeyPressMsg) Action {
	if t.typing {
		return t.typeKey(msg)
	}
	if t.showHist {
		if key.Matches(msg, t.hist.KeyMap().Back) {
			t.showHist = false
			return nil
		}
		if act, ok := t.hist.HandleKey(msg); ok {
			return act
		}
	}
	if act := t.respond(msg); act != nil {
		return act
	}
	k, id := t.keys, t.rec.ID
	switch {
	case key.Matches(msg, k.History):
		t.showHist = !t.showHist
		if t.showHist {
			return LoadHistory{ID: id}
		}
	case key.Matches(msg, k.Terminal):
		return Terminal{ID: id, Title: t.rec.Title}
	case key.Matches(msg, k.Older):
		if t.more && !t.fetching {
			t.fetching = true
			return LoadAll{ID: id}
		}
	case key.Matches(msg, k.Input):
		if t.rec.Status != sess.Ended {
			t.typing = true
			t.in.Focus()
		}
	case key.Matches(msg, k.Pause):
		return Control{id, core.ActPause}
	case key.Matches(msg, k.Resume):
		if t.rec.Status == sess.Created {
			return Control{id, core.ActStart}
		}
		return Control{id, core.ActResume}
	case key.Matches(msg, k.Stop):
		return Control{id, core.ActStop}
	case key.Matches(msg, k.Interrupt):
		// esc is also the key people press to back out of things: it
		// stops only a turn that runs, and is nothing otherwise.
		if core.Allowed(t.rec.Status, core.ActStop) {
			return Control{id, core.ActStop}
		}
	case key.Matches(msg, k.Cancel):
		return Control{id, core.ActCancel}
	case key.Matches(msg, k.Close):
		return Control{id, core.ActClose}
	case key.Matches(msg, k.Nudge):
		return Control{id, core.ActNudge}
	case key.Matches(msg, k.Compact):
		return Compact{ID: id}
	case key.Matches(msg, k.Clear):
		return Clear{ID: id}
	case key.Matches(msg, k.Fork):
		upTo, _ := t.tr.SelectedMessage()
		return Fork{ID: id, UpTo: upTo, Title: t.rec.Title}
	case key.Matches(msg, k.Unqueue):
		if n := len(t.queue); n > 0 {
			return Unqueue{ID: id, ControlID: t.queue[min(t.qsel, n-1)].ID}
		}
	case key.Matches(msg, k.QueueEdit):
		if t.rec.Status != sess.Ended {
			t.startEdit(min(t.qsel, len(t.queue)-1))
		}
	case key.Matches(msg, k.QueuePrev):
		t.qsel = max(t.qsel-1, 0)
	case key.Matches(msg, k.QueueNext):
		t.qsel = min(t.qsel+1, max(len(t.queue)-1, 0))
	case key.Matches(msg, k.QueueUp), key.Matches(msg, k.QueueDown):
		d := 1
		if key.Matches(msg, k.QueueUp) {
			d = -1
		}
		if to := t.qsel + d; t.qsel < len(t.queue) && to >= 0 && to < len(t.queue) {
			// The selection follows the input when the new queue arrives.
			c := t.queue[t.qsel].ID
			return MoveQueued{ID: id, ControlID: c, To: to}
		}
	case key.Matches(msg, k.Grants):
		return Grants{ID: id, Title: t.rec.Title}
	default:
		if !t.showHist {
			t.navigate(msg)
		}
	}
	return nil
}

func (t *Tab) navigate(msg tea.KeyPressMsg) {
	k := t.keys
	switch {
	case key.Matches(msg, k.Up):
		t.tr.ScrollBy(-1)
	case key.Matches(msg, k.Down):
		t.tr.ScrollBy(1)
	case key.Matches(msg, k.PageUp):
		t.tr.Page(-1)
	case key.Matches(msg, k.PageDown):
		t.tr.Page(1)
	case key.Matches(msg, k.Top):
		t.tr.Top()
	case key.Matches(msg, k.Bottom):
		t.tr.Bottom()
		t.tr.ClearSelection()
	case key.Matches(msg, k.Prev):
		t.tr.SelectStep(-1)
	case key.Matches(msg, k.Next):
		t.tr.SelectStep(1)
	case key.Matches(msg, k.Toggle):
		t.tr.Toggle()
	}
}

func (t *Tab) typeKey(msg tea.KeyPressMsg) Action {
	if t.edit != "" {
		return t.editKey(msg)
	}
	if t.mentionKey(msg.String()) {
		return nil
	}
	if t.newline(msg) {
		return nil
	}
	switch msg.String() {
	case "esc":
		t.typing, t.lost = false, false
		t.in.Blur()
		return nil
	case "up":
		if t.in.Value() == "" {
			// As in Codex and Claude Code: up in an empty line takes the
			// last queued prompt back to edit it.
			for i := len(t.queue) - 1; i >= 0; i-- {
				if k := t.queue[i].Kind; k == sess.CtlPrompt || k == sess.CtlSteer {
					t.startEdit(i)
					break
				}
			}
			return nil
		}
	case "enter", "tab":
		text := strings.TrimSpace(t.in.Value())
		if text == "" {
			return nil
		}
		t.lost = false
		t.freeLine()
		if text == clearCommand {
			// As in Claude Code and Codex: the line's own command, never
			// sent to the agent.
			return Clear{ID: t.rec.ID, Typed: true}
		}
		// While the session runs, enter steers the turn and tab queues
		// the text as its next prompt, as Codex does.
		steer := (t.rec.Status == sess.Running || t.rec.Status == sess.Paused) && msg.String() == "enter"
		return Input{ID: t.rec.ID, Text: text, Steer: steer}
	}
	t.in.Update(msg)
	t.suggest()
	if t.WantsPaths() {
		return LoadPaths{}
	}
	return nil
}

// clearCommand, sent alone, clears the conversation instead of going to
// the agent.
const clearCommand = "/clear"

// newline breaks the input line for a newline key, or for enter right
// after a backslash (which the break replaces), and reports whether it
// did.
func (t *Tab) newline(msg tea.KeyPressMsg) bool {
	k := msg.String()
	if slices.Contains(newlineKeys, k) {
		t.in.Newline()
		return true
	}
	return k == "enter" && t.in.Continue()
}

// editKey is typeKey while the line edits a queued input: enter (or tab)
// saves it in its place, esc leaves it as it was.
func (t *Tab) editKey(msg tea.KeyPressMsg) Action {
	if t.newline(msg) {
		return nil
	}
	switch msg.String() {
	case "esc":
		t.endEdit()
		return nil
	case "enter", "tab":
		text := strings.TrimSpace(t.in.Value())
		if text == "" {
			return nil
		}
		id, same := t.edit, t.in.Value() == t.editFrom
		t.endEdit()
		if same {
			return nil
		}
		return EditQueued{ID: t.rec.ID, ControlID: id, Text: text}
	}
	t.in.Update(msg)
	return nil
}

// Paste types pasted text into the input line when it is open.
func (t *Tab) Paste(msg tea.PasteMsg) {
	if t.typing {
		t.in.Update(msg)
		t.suggest()
	}
}
