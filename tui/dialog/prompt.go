package dialog

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/input"
)

// Prompt asks for one line of text. Enter submits (an empty line only when
// AllowEmpty); esc dismisses.
type Prompt struct {
	keys       KeyMap // the studio\'s (SetKeyMap), else the defaults
	st         themes.Styles
	title      string
	text       []string
	in         *input.Line
	AllowEmpty bool
	// fallback is what an empty line submits (NewDefaultPrompt): shown
	// as the placeholder, so typing replaces it instead of editing it.
	fallback string
}

// NewPrompt returns a prompt with text above the line and value pre-filled.
func NewPrompt(st themes.Styles, title, text, value string) *Prompt {
	in := input.New(st, "› ")
	in.SetValue(value)
	in.Focus()
	return &Prompt{keys: DefaultKeyMap(), st: st, title: title, text: strings.Split(text, "\n"), in: in}
}

// NewDefaultPrompt is a prompt whose empty line submits def, which it
// shows as a placeholder ("default: …"): an answer is typed from scratch,
// and enter alone takes the default.
func NewDefaultPrompt(st themes.Styles, title, text, def string) *Prompt {
	p := NewPrompt(st, title, text, "")
	if def != "" {
		p.fallback = def
		p.in.Placeholder = "default: " + def + " (enter takes it)"
	}
	return p
}

// HandleKey implements Dialog.
func (p *Prompt) HandleKey(msg tea.KeyPressMsg) Result {
	switch k := p.keys.Line; {
	case key.Matches(msg, k.Cancel):
		return Result{Closed: true}
	case key.Matches(msg, k.Submit):
		v := strings.TrimSpace(p.in.Value())
		if v == "" {
			v = p.fallback
		}
		if v == "" && !p.AllowEmpty {
			return Result{}
		}
		return Result{Closed: true, OK: true, Text: v}
	}
	p.in.Update(msg)
	return Result{}
}

// Paste implements Dialog.
func (p *Prompt) Paste(msg tea.PasteMsg) { p.in.Update(msg) }

// View implements Dialog.
func (p *Prompt) View(width, height int) string {
	w := min(width-4, 72)
	var lines []string
	for _, t := range p.text {
		lines = append(lines, wrap(t, w-4)...)
	}
	p.in.SetWidth(w - 4)
	lines = append(lines, "", p.in.View(), "",
		p.st.Key.Render(hint(p.keys.Line.Submit, 1))+" "+p.st.Hint.Render("send")+"   "+p.st.Key.Render(hint(p.keys.Line.Cancel, 1))+" "+p.st.Hint.Render("cancel"))
	return box(p.st, p.title, lines, w, width, height)
}

// SetKeyMap gives the dialog the studio's keys.
func (d *Prompt) SetKeyMap(km KeyMap) { d.keys = km }
