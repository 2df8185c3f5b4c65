package transcript

// A session's tab and its queue: the pending inputs shown under the
// transcript, the one selected, and editing one in the prompt box.

import (
	"strconv"

	sess "github.com/atelier-studio/atelier/sessions"
)

// SetQueue replaces the pending inputs; the selection follows the input
// it was on when it is still there.
func (t *Tab) SetQueue(q []sess.Control) {
	var sel string
	if t.qsel < len(t.queue) {
		sel = t.queue[t.qsel].ID
	}
	t.queue = q
	t.qsel = min(t.qsel, max(len(q)-1, 0))
	for i, c := range q {
		if c.ID == sel {
			t.qsel = i
		}
	}
	if t.edit != "" && t.queuedAt(t.edit) < 0 {
		t.edit, t.lost = "", true
	}
}

// queuedAt returns the position of a queued input, -1 when it is not
// queued.
func (t *Tab) queuedAt(id string) int {
	for i, c := range t.queue {
		if c.ID == id {
			return i
		}
	}
	return -1
}

// Editing returns the id of the queued input the line edits, "" when none.
func (t *Tab) Editing() string { return t.edit }

// startEdit puts queued input i in the input line to edit it in place;
// only prompts and steers have text to edit.
func (t *Tab) startEdit(i int) {
	if i < 0 || i >= len(t.queue) || t.queue[i].Kind != sess.CtlPrompt && t.queue[i].Kind != sess.CtlSteer {
		return
	}
	c := t.queue[i]
	t.wasOpen, t.typing, t.lost = t.typing, true, false
	t.qsel, t.edit = i, c.ID
	if t.draft == "" {
		t.draft = t.in.Value()
	}
	t.in.SetValue(c.Text)
	t.editFrom = t.in.Value()
	t.in.Focus()
}

// endEdit leaves an edit: the line holds its draft again, and closes when
// it was closed before.
func (t *Tab) endEdit() {
	t.edit, t.editFrom = "", ""
	t.freeLine()
	if !t.wasOpen {
		t.typing = false
		t.in.Blur()
	}
}

// freeLine empties the line after its text went, or puts back the draft
// an edit set aside.
func (t *Tab) freeLine() {
	t.in.Reset()
	if t.draft != "" {
		t.in.SetValue(t.draft)
		t.draft = ""
	}
}

// Unedited puts back in the input line the text of an edit the engine
// refused (the input left the queue meanwhile), to send as a new input.
func (t *Tab) Unedited(text string) {
	if t.in.Value() != "" {
		t.draft = t.in.Value()
	}
	t.in.SetValue(text)
	t.lost = true
}

// QueueSelection returns the index of the selected queued input.
func (t *Tab) QueueSelection() int { return t.qsel }

func (t *Tab) queueLines() []string {
	if len(t.queue) == 0 {
		return nil
	}
	out := []string{t.st.Subtle.Render("queued (" + strconv.Itoa(len(t.queue)) + "; { } select, K J move, e edits, u removes):")}
	from := min(max(t.qsel-1, 0), max(len(t.queue)-3, 0))
	for i := from; i < len(t.queue) && i < from+3; i++ {
		c := t.queue[i]
		mark := "  "
		switch {
		case c.ID == t.edit:
			mark = "✎ "
		case i == t.qsel:
			mark = "› "
		}
		out = append(out, t.st.Warning.Render(mark+strconv.Itoa(i+1)+". "+string(c.Kind)+": ")+oneLine(c.Text))
	}
	if rest := len(t.queue) - from - 3; rest > 0 {
		out = append(out, t.st.Subtle.Render("  … "+strconv.Itoa(rest)+" more"))
	}
	return out
}
