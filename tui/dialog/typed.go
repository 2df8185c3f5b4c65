package dialog

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/input"
)

// Typed confirms something that cannot be undone by having the operator
// type a word (the workspace's folder name). Enter with anything else
// refuses and keeps the dialog open; esc dismisses.
type Typed struct {
	keys  KeyMap // the studio\'s (SetKeyMap), else the defaults
	st    themes.Styles
	title string
	text  []string
	word  string
	in    *input.Line
	wrong bool
}

// NewTyped returns a typed confirmation for word.
func NewTyped(st themes.Styles, title string, text []string, word string) *Typed {
	in := input.New(st, "› ")
	in.Focus()
	return &Typed{keys: DefaultKeyMap(), st: st, title: title, text: text, word: word, in: in}
}

// HandleKey implements Dialog.
func (d *Typed) HandleKey(msg tea.KeyPressMsg) Result {
	switch k := d.keys.Line; {
	case key.Matches(msg, k.Cancel):
		return Result{Closed: true}
	case key.Matches(msg, k.Submit):
		if d.in.Value() != d.word {
			d.wrong = true
			return Result{}
		}
		return Result{Closed: true, OK: true, Text: d.word}
	}
	d.wrong = false
	d.in.Update(msg)
	return Result{}
}

// Paste implements Dialog.
func (d *Typed) Paste(msg tea.PasteMsg) { d.in.Update(msg) }

// View implements Dialog.
func (d *Typed) View(width, height int) string {
	w := min(width-4, 72)
	var lines []string
	for _, t := range d.text {
		lines = append(lines, wrap(t, w-4)...)
	}
	lines = append(lines, "", d.st.Base.Render("Type ")+d.st.Bold.Render(d.word)+d.st.Base.Render(" to confirm:"))
	d.in.SetWidth(w - 4)
	lines = append(lines, d.in.View())
	if d.wrong {
		lines = append(lines, d.st.Error.Render("That is not "+d.word+": nothing was done."))
	}
	lines = append(lines, "", d.st.Key.Render(hint(d.keys.Line.Submit, 1))+" "+d.st.Hint.Render("confirm")+"   "+
		d.st.Key.Render(hint(d.keys.Line.Cancel, 1))+" "+d.st.Hint.Render("cancel"))
	return box(d.st, d.title, lines, w, width, height)
}

// SetKeyMap gives the dialog the studio's keys.
func (d *Typed) SetKeyMap(km KeyMap) { d.keys = km }
