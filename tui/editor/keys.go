package editor

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/tui/keys"
)

// KeyMap is the editor's keys besides typing and the arrows.
type KeyMap struct {
	Save, Undo, Redo, Copy, Cut, Paste, SelectAll, Find, FindNext, FindPrev, GoTo, External, Close, Leave key.Binding
	Move, Select, Word, Page, Ends                                                                        key.Binding
}

// DefaultKeyMap returns the editor's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Save:      keys.New("save the file", "ctrl+s"),
		Undo:      keys.New("undo", "ctrl+z"),
		Redo:      keys.New("redo", "ctrl+y", "ctrl+shift+z"),
		Copy:      keys.New("copy the selection (also to the terminal's clipboard)", "ctrl+c"),
		Cut:       keys.New("cut the selection, or the line", "ctrl+x"),
		Paste:     keys.New("paste the studio's clipboard (the terminal's paste works too)", "ctrl+v"),
		SelectAll: keys.New("select everything", "ctrl+a"),
		Find:      keys.New("find (enter: next match, esc: done)", "ctrl+f"),
		FindNext:  keys.New("next match", "f3"),
		FindPrev:  keys.New("previous match", "shift+f3"),
		GoTo:      keys.New("go to a line", "ctrl+g"),
		External:  keys.New("open the file in $EDITOR (a terminal tab)", "ctrl+o"),
		Close:     keys.New("close the tab (asks when unsaved)", "ctrl+w"),
		Leave:     keys.New("drop the selection; with none, give the keys back to the studio", "esc"),
		Move:      keys.New("move", "up", "down", "left", "right", "home", "end"),
		Select:    keys.New("select while moving", "shift+up", "shift+down", "shift+left", "shift+right", "shift+home", "shift+end"),
		Word:      keys.New("move by word", "ctrl+left", "ctrl+right", "alt+left", "alt+right"),
		Page:      keys.New("page up and down", "pgup", "pgdown"),
		Ends:      keys.New("first and last line", "ctrl+home", "ctrl+end"),
	}
}

// Scope returns the keymap as data for help and docs.
func (k KeyMap) Scope() keys.Scope {
	return keys.Scope{Name: "Editor tab", About: "A file opened from the file tree (`enter` on a file). The editor takes every key " +
		"(typing, `ctrl+c` copies) but `ctrl+]`, which gives the keys back to the studio; `esc` does too when nothing is selected.",
		Bindings: []key.Binding{k.Save, k.Undo, k.Redo, k.Copy, k.Cut, k.Paste, k.SelectAll, k.Find, k.FindNext, k.FindPrev,
			k.GoTo, k.External, k.Close, k.Leave, k.Move, k.Select, k.Word, k.Page, k.Ends},
		Short: []string{"ctrl+s", "ctrl+f", "ctrl+z", "esc"}, TakesKeys: true}
}

// Action is what the editor asks the root to do.
type Action interface{ editorAction() }

// Save asks to write Data to the file; History is the state it holds, for
// Saved.
type Save struct {
	ID      int
	Path    string
	Data    []byte
	History uint64
}

// Copy asks to put text on the terminal's clipboard (OSC 52).
type Copy struct{ Text string }

// Close asks to close the tab; Dirty says there is unsaved work to ask
// about.
type Close struct {
	ID    int
	Dirty bool
}

// External asks to open the file in the user's $EDITOR.
type External struct{ Path string }

// Leave gives the keys back to the studio.
type Leave struct{}

func (Save) editorAction()     {}
func (Copy) editorAction()     {}
func (Close) editorAction()    {}
func (External) editorAction() {}
func (Leave) editorAction()    {}

// HandleKey acts on a key and returns what the root should do, if
// anything.
func (e *Editor) HandleKey(msg tea.KeyPressMsg) Action {
	if e.mode != modeEdit {
		e.lineKey(msg)
		return nil
	}
	k := e.keys
	switch {
	case key.Matches(msg, k.Save):
		data, id := e.Content()
		return Save{ID: e.id, Path: e.path, Data: data, History: id}
	case key.Matches(msg, k.Undo):
		e.Undo()
	case key.Matches(msg, k.Redo):
		e.Redo()
	case key.Matches(msg, k.Copy):
		if t := e.SelectedText(); t != "" {
			e.clip.Text = t
			e.message = "copied " + plural(strings.Count(t, "\n")+1, "line")
			return Copy{Text: t}
		}
	case key.Matches(msg, k.Cut):
		return e.cut()
	case key.Matches(msg, k.Paste):
		if e.clip.Text != "" {
			e.insert(e.clip.Text, kindOther)
		}
	case key.Matches(msg, k.SelectAll):
		a := Pos{}
		e.anchor = &a
		e.cur = e.buf.End()
		e.scrollToCursor()
	case key.Matches(msg, k.Find):
		e.openLine(modeFind, "find: ", e.query)
	case key.Matches(msg, k.FindNext):
		e.Find(e.query, 1)
	case key.Matches(msg, k.FindPrev):
		e.Find(e.query, -1)
	case key.Matches(msg, k.GoTo):
		e.openLine(modeGoto, "go to line: ", "")
	case key.Matches(msg, k.External):
		return External{Path: e.path}
	case key.Matches(msg, k.Close):
		return Close{ID: e.id, Dirty: e.Dirty()}
	case key.Matches(msg, k.Leave):
		if _, _, ok := e.Selection(); ok {
			e.anchor = nil
			return nil
		}
		return Leave{}
	default:
		if !e.navigate(msg) {
			e.edit(msg)
		}
	}
	return nil
}

func (e *Editor) cut() Action {
	from, to, ok := e.Selection()
	if !ok { // the whole line
		from = Pos{e.cur.Line, 0}
		to = Pos{e.cur.Line + 1, 0}
		if e.cur.Line == e.buf.Len()-1 {
			to = Pos{e.cur.Line, len(e.buf.Line(e.cur.Line))}
			if e.cur.Line > 0 {
				from = Pos{e.cur.Line - 1, len(e.buf.Line(e.cur.Line - 1))}
			}
		}
	}
	text := e.buf.Slice(from, to)
	if text == "" {
		return nil
	}
	e.clip.Text = text
	e.replace(from, to, "", kindOther)
	e.scrollToCursor()
	return Copy{Text: text}
}

// navigate moves the cursor for a movement key; it reports whether the key
// was one.
func (e *Editor) navigate(msg tea.KeyPressMsg) bool {
	s := msg.String()
	sel := strings.HasPrefix(s, "shift+") || strings.Contains(s, "+shift+")
	s = strings.Replace(s, "shift+", "", 1)
	switch s {
	case "up":
		e.vertical(-1, sel)
	case "down":
		e.vertical(1, sel)
	case "left":
		if from, _, ok := e.Selection(); ok && !sel {
			e.moveTo(from, false, false)
		} else {
			e.moveTo(e.leftOf(e.cur), sel, false)
		}
	case "right":
		if _, to, ok := e.Selection(); ok && !sel {
			e.moveTo(to, false, false)
		} else {
			e.moveTo(e.rightOf(e.cur), sel, false)
		}
	case "ctrl+left", "alt+left", "alt+b":
		e.moveTo(e.wordLeft(e.cur), sel, false)
	case "ctrl+right", "alt+right", "alt+f":
		e.moveTo(e.wordRight(e.cur), sel, false)
	case "home":
		e.moveTo(e.home(e.cur), sel, false)
	case "end":
		e.moveTo(Pos{e.cur.Line, len(e.buf.Line(e.cur.Line))}, sel, false)
	case "pgup":
		e.top = max(e.top-e.textH(), 0)
		e.vertical(-e.textH(), sel)
	case "pgdown":
		e.top = min(e.top+e.textH(), max(e.buf.Len()-e.textH(), 0))
		e.vertical(e.textH(), sel)
	case "ctrl+home":
		e.moveTo(Pos{}, sel, false)
	case "ctrl+end":
		e.moveTo(e.buf.End(), sel, false)
	default:
		return false
	}
	return true
}

// edit types, deletes and breaks lines.
func (e *Editor) edit(msg tea.KeyPressMsg) {
	switch msg.String() {
	case "enter":
		l := e.buf.Line(e.cur.Line)
		i := 0
		for i < len(l) && i < e.cur.Col && (l[i] == ' ' || l[i] == '\t') {
			i++
		}
		e.insert("\n"+l[:i], kindOther)
	case "tab":
		e.insert(e.indent, kindType)
	case "backspace", "ctrl+h":
		if _, _, ok := e.Selection(); ok {
			e.insert("", kindOther)
			return
		}
		if p := e.leftOf(e.cur); p != e.cur {
			e.replace(p, e.cur, "", kindDelete)
			e.scrollToCursor()
		}
	case "delete", "ctrl+d":
		if _, _, ok := e.Selection(); ok {
			e.insert("", kindOther)
			return
		}
		if p := e.rightOf(e.cur); p != e.cur {
			e.replace(e.cur, p, "", kindDelete)
			e.scrollToCursor()
		}
	default:
		if msg.Text != "" && msg.Mod&(tea.ModCtrl|tea.ModAlt) == 0 {
			e.insert(msg.Text, kindType)
		}
	}
}

// Paste inserts pasted text (bracketed paste from the terminal).
func (e *Editor) Paste(msg tea.PasteMsg) {
	if e.mode != modeEdit {
		e.line.Update(msg)
		return
	}
	text := strings.ReplaceAll(msg.Content, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	if text != "" {
		e.insert(text, kindOther)
	}
}

// openLine opens the find or go-to line at the bottom.
func (e *Editor) openLine(m mode, prompt, value string) {
	e.mode = m
	e.line.Prompt = prompt
	e.line.SetValue(value)
	e.line.Focus()
}

// lineKey types into the find or go-to line.
func (e *Editor) lineKey(msg tea.KeyPressMsg) {
	switch msg.String() {
	case "esc":
		e.mode = modeEdit
		e.line.Blur()
		return
	case "enter", "down":
		switch e.mode {
		case modeFind:
			e.query = e.line.Value()
			e.Find(e.query, 1)
		case modeGoto:
			n, err := strconv.Atoi(strings.TrimSpace(e.line.Value()))
			e.mode = modeEdit
			if err != nil || n < 1 {
				e.message = "not a line number: " + e.line.Value()
				return
			}
			e.GoTo(min(n, e.buf.Len()))
		}
		return
	case "up", "shift+enter":
		if e.mode == modeFind {
			e.query = e.line.Value()
			e.Find(e.query, -1)
		}
		return
	}
	e.line.Update(msg)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// KeyMap returns the editor's keys.
func (e *Editor) KeyMap() KeyMap { return e.keys }

// SetKeyMap replaces the keys (the configuration's overrides).
func (e *Editor) SetKeyMap(k KeyMap) { e.keys = k }
