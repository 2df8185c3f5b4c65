package transcript

import (
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	sess "github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/tui/actions"
	"github.com/atelier-studio/atelier/tui/diff"
)

// The card at the foot of a session's tab: the approval or question the
// session waits on, answered right there with the keys of the Action
// required pane (a allow once, A allow for the session, d deny, D deny
// with a message, v the diff; enter answers a question), so the operator
// reads the transcript and decides in one place.

// Respond carries what the card's keys asked, as the Action required pane
// would have: the root does the same with it.
type Respond struct{ Act actions.Action }

func (Respond) tabAction() {}

// SetPending gives the tab the session's open approvals and questions,
// oldest first; the card shows the oldest.
func (t *Tab) SetPending(its []sess.Interaction) {
	t.waits = its
	parked := map[string]sess.InteractionKind{}
	for _, it := range its {
		if it.ToolCall != "" {
			parked[it.ToolCall] = it.Kind
		}
	}
	t.tr.SetParked(parked)
}

// SetActionKeys gives the card the Action required pane's keys.
func (t *Tab) SetActionKeys(k actions.KeyMap) { t.akeys = k }

// card is the interaction the card shows, if any.
func (t *Tab) card() (sess.Interaction, bool) {
	for _, it := range t.waits {
		if it.Kind == sess.Approval || it.Kind == sess.Question {
			return it, true
		}
	}
	return sess.Interaction{}, false
}

// respond is what a key does to the card's interaction, nil when nothing.
func (t *Tab) respond(msg tea.KeyPressMsg) Action {
	it, ok := t.card()
	if !ok || t.showHist {
		return nil
	}
	if act := actions.Respond(t.akeys, t.rec, it, msg); act != nil {
		return Respond{act}
	}
	return nil
}

// cardLines draws the card: what is asked, why, and the keys.
func (t *Tab) cardLines() []string {
	it, ok := t.card()
	if !ok || t.showHist {
		return nil
	}
	k := t.akeys
	hint := func(keyName, what string) string { return t.st.Key.Render(keyName) + " " + t.st.Hint.Render(what) }
	var out []string
	switch it.Kind {
	case sess.Approval:
		head := "⚠ approval: " + actions.Subject(it)
		out = append(out, t.st.Warning.Render(ansi.Truncate(head, t.w, "…")))
		why := "the session's policy (" + t.rec.Approval + ") asks before this"
		if it.Reason != "" {
			why = it.Reason
		}
		out = append(out, t.st.Subtle.Render(ansi.Truncate("  "+why, t.w, "…")))
		if it.Diff != "" {
			add, del := diff.Stat(it.Diff)
			out = append(out, t.st.Subtle.Render("  "+it.Path+": ")+t.st.Success.Render("+"+strconv.Itoa(add))+" "+
				t.st.Error.Render("−"+strconv.Itoa(del)))
		}
		parts := []string{hint(k.AllowOnce.Help().Key, "allow once"), hint(k.AllowSession.Help().Key, "allow for the session")}
		if !it.Protected {
			parts = append(parts, hint(k.AlwaysHere.Help().Key, "always here"))
		}
		parts = append(parts, hint(k.Deny.Help().Key, "deny"), hint(k.DenyMessage.Help().Key, "deny with a message"))
		if it.Command != "" && !it.Protected {
			parts = append(parts, hint(k.AllowPrefix.Help().Key, "allow a prefix…"))
		}
		if it.Diff != "" {
			parts = append(parts, hint(k.ViewDiff.Help().Key, "diff"))
		}
		out = append(out, ansi.Truncate("  "+strings.Join(parts, t.st.Hint.Render(" · ")), t.w, "…"))
	case sess.Question:
		out = append(out, t.st.Warning.Render(ansi.Truncate("? question: "+oneLine(it.Text), t.w, "…")))
		if len(it.Choices) > 0 {
			out = append(out, t.st.Subtle.Render(ansi.Truncate("  choices: "+actions.Choices(it.Choices), t.w, "…")))
		}
		line := "  " + hint(k.Answer.Help().Key, "answer")
		if len(it.Choices) > 0 {
			line += t.st.Hint.Render(" · ") + hint("1–"+strconv.Itoa(min(len(it.Choices), 9)), "pick")
		}
		if it.Default != "" {
			line += t.st.Hint.Render(" · default: ") + oneLine(it.Default)
		}
		out = append(out, ansi.Truncate(line, t.w, "…"))
	}
	if n := len(t.waits); n > 1 {
		out = append(out, t.st.Subtle.Render("  "+strconv.Itoa(n-1)+" more waiting after this one"))
	}
	return out
}
