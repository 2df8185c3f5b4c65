package dialog

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/themes"
)

// Option is one answer of a Choice: the key that picks it and what it
// does.
type Option struct{ Key, Label string }

// Choice asks a question with several answers, each on its own key, and
// may show a preview under the text (a diff, say). Esc picks Dismiss.
type Choice struct {
	keys    KeyMap // the studio\'s (SetKeyMap), else the defaults
	st      themes.Styles
	title   string
	text    string
	preview []string
	options []Option
	dismiss string
}

// NewChoice returns a question; preview lines are already styled.
// dismiss is the key whose answer esc gives ("" for none: esc then
// closes with OK false).
func NewChoice(st themes.Styles, title, text string, preview []string, options []Option, dismiss string) *Choice {
	return &Choice{keys: DefaultKeyMap(), st: st, title: title, text: text, preview: preview, options: options, dismiss: dismiss}
}

// HandleKey implements Dialog: an option's key picks it (Result.Text is
// the key).
func (c *Choice) HandleKey(msg tea.KeyPressMsg) Result {
	k := msg.String()
	if key.Matches(msg, c.keys.Line.Cancel) {
		if c.dismiss == "" {
			return Result{Closed: true}
		}
		k = c.dismiss
	}
	for _, o := range c.options {
		if o.Key == k {
			return Result{Closed: true, OK: true, Text: k}
		}
	}
	return Result{}
}

// Paste implements Dialog.
func (c *Choice) Paste(tea.PasteMsg) {}

// View implements Dialog.
func (c *Choice) View(width, height int) string {
	w := min(width-4, 90)
	lines := wrap(c.text, w-4)
	if len(c.preview) > 0 {
		lines = append(lines, "")
		room := max(height-len(lines)-6, 3)
		for i, p := range c.preview {
			if i == room {
				lines = append(lines, c.st.Subtle.Render("… "+itoa(len(c.preview)-room)+" more lines"))
				break
			}
			lines = append(lines, ansi.Truncate(p, w-4, "…"))
		}
	}
	var opts []string
	for _, o := range c.options {
		label := o.Label
		if o.Key == c.dismiss {
			label += " (esc)"
		}
		opts = append(opts, c.st.Key.Render(o.Key)+" "+c.st.Hint.Render(label))
	}
	if c.dismiss == "" {
		opts = append(opts, c.st.Key.Render(hint(c.keys.Line.Cancel, 1))+" "+c.st.Hint.Render("cancel"))
	}
	lines = append(lines, "", strings.Join(opts, "   "))
	return box(c.st, c.title, lines, min(w, 60), width, height)
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// SetKeyMap gives the dialog the studio's keys.
func (d *Choice) SetKeyMap(km KeyMap) { d.keys = km }
