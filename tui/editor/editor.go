package editor

import (
	"crypto/sha256"
	"path"
	"strings"

	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/input"
	"github.com/atelier-studio/atelier/tui/syntax"
)

// Clipboard is the studio's own clipboard, shared by its editors. It is
// used from the UI goroutine only.
type Clipboard struct{ Text string }

// Options say what an editor opens.
type Options struct {
	// ID tells this editor's messages from another's; the root assigns it.
	ID int
	// Path is the file's workspace-relative path: shown, saved to, and
	// used to pick the syntax.
	Path string
	// Data is the file's content as read.
	Data []byte
	// Clipboard is shared with the other editors; nil gives the editor one
	// of its own.
	Clipboard *Clipboard
}

// mode is what the keys do: edit, or type into the find or go-to line.
type mode uint8

const (
	modeEdit mode = iota
	modeFind
	modeGoto
)

// Editor is one file's editor tab.
type Editor struct {
	keys KeyMap
	st   themes.Styles
	cls  classes
	id   int
	path string
	clip *Clipboard

	buf      *Buffer
	hist     history
	saved    uint64   // the history id the file on disk holds
	diskSum  [32]byte // the content last read or written
	crlf     bool     // lines end with \r\n on disk
	finalNL  bool     // the file ends with a line break
	tabWidth int
	indent   string // what tab inserts

	cur    Pos
	anchor *Pos // the other end of the selection, when there is one
	want   int  // the column up and down aim for
	top    int  // first line shown
	left   int  // first column shown
	w, h   int

	mode    mode
	line    *input.Line
	query   string
	message string
	focused bool

	hl highlightState
}

// New opens an editor on a file's content. Line breaks are kept as the
// file has them (\n or \r\n), and so is a final line break.
func New(st themes.Styles, o Options) *Editor {
	text := string(o.Data)
	e := &Editor{keys: DefaultKeyMap(), st: st, cls: buildClasses(st), id: o.ID, path: o.Path, clip: o.Clipboard,
		tabWidth: 4, indent: "\t"}
	if e.clip == nil {
		e.clip = &Clipboard{}
	}
	e.crlf = strings.Contains(text, "\r\n")
	if e.crlf {
		text = strings.ReplaceAll(text, "\r\n", "\n")
	}
	e.finalNL = endsLines(text)
	e.buf = NewBuffer(strings.TrimSuffix(text, "\n"))
	e.diskSum = sha256.Sum256(o.Data)
	e.indent = detectIndent(e.buf)
	e.line = input.New(st, "")
	if e.hl.lexer = syntax.ForFile(o.Path); e.hl.lexer != nil {
		e.hl.lighter = syntax.NewHighlighter(e.hl.lexer)
	}
	return e
}

// detectIndent returns "\t" when the file indents with tabs (or has no
// indentation), else four spaces.
func detectIndent(b *Buffer) string {
	for i := 0; i < min(b.Len(), 2000); i++ {
		l := b.Line(i)
		switch {
		case strings.HasPrefix(l, "\t"):
			return "\t"
		case strings.HasPrefix(l, "  "):
			return "    "
		}
	}
	return "\t"
}

// SetStyles redraws the editor with other styles (the theme changed).
func (e *Editor) SetStyles(st themes.Styles) {
	e.st, e.cls = st, buildClasses(st)
	e.line = input.New(st, e.line.Prompt)
}

// ID returns the id the root gave the editor.
func (e *Editor) ID() int { return e.id }

// Path returns the file's workspace-relative path.
func (e *Editor) Path() string { return e.path }

// Buffer returns the text (for tests and benchmarks; edit through keys).
func (e *Editor) Buffer() *Buffer { return e.buf }

// Cursor returns the cursor's position.
func (e *Editor) Cursor() Pos { return e.cur }

// Selection returns the selected range, earlier end first, and whether
// there is one.
func (e *Editor) Selection() (Pos, Pos, bool) {
	if e.anchor == nil || *e.anchor == e.cur {
		return Pos{}, Pos{}, false
	}
	from, to := order(*e.anchor, e.cur)
	return from, to, true
}

// SelectedText returns the selected text, "" without a selection.
func (e *Editor) SelectedText() string {
	from, to, ok := e.Selection()
	if !ok {
		return ""
	}
	return e.buf.Slice(from, to)
}

// Dirty reports unsaved changes.
func (e *Editor) Dirty() bool { return e.hist.current() != e.saved }

// Message returns the last note the editor showed (not found, saved...).
func (e *Editor) Message() string { return e.message }

// endsLines says whether the file's text ends its last line with a break:
// one that does, or an empty file (a new one), which then gets the break
// text files end with once it has something in it. A file without the
// final break keeps it that way.
func endsLines(text string) bool { return text == "" || strings.HasSuffix(text, "\n") }

// Content returns the file's bytes as a save writes them, with its line
// breaks, and the history id they correspond to.
func (e *Editor) Content() ([]byte, uint64) {
	text := e.buf.Text()
	if e.finalNL && text != "" {
		text += "\n"
	}
	if e.crlf {
		text = strings.ReplaceAll(text, "\n", "\r\n")
	}
	return []byte(text), e.hist.current()
}

// Saved records that the content of history id was written to disk.
func (e *Editor) Saved(id uint64, data []byte) {
	e.saved = id
	e.diskSum = sha256.Sum256(data)
	e.message = "saved"
}

// SameAsDisk reports whether data is what the editor last read or wrote:
// a change on disk that brings nothing new (the editor's own save, seen by
// the watcher) needs no question.
func (e *Editor) SameAsDisk(data []byte) bool { return sha256.Sum256(data) == e.diskSum }

// Reload replaces the text with the file's content from disk, as one step
// that undo can take back, and marks it saved.
func (e *Editor) Reload(data []byte) {
	text := string(data)
	e.crlf = strings.Contains(text, "\r\n")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	e.finalNL = endsLines(text)
	text = strings.TrimSuffix(text, "\n")
	if text != e.buf.Text() {
		cur := e.cur
		e.anchor = nil
		e.cur = Pos{}
		e.replace(Pos{}, e.buf.End(), text, kindOther)
		e.cur = e.buf.Clamp(cur)
		e.want = e.visualCol(e.cur)
	}
	e.saved = e.hist.current()
	e.diskSum = sha256.Sum256(data)
	e.message = "reloaded from disk"
	e.scrollToCursor()
}

// KeepMine records that the operator keeps the editor's text over a
// changed file: the buffer stays dirty so a save overwrites the file.
func (e *Editor) KeepMine(disk []byte) {
	e.diskSum = sha256.Sum256(disk)
	e.saved = ^uint64(0) // no history state matches the file any more
	e.message = "kept your version; saving overwrites the file"
}

// Label is the tab's label: the file's name and a dot while unsaved.
func (e *Editor) Label() string {
	if e.Dirty() {
		return path.Base(e.path) + " ●"
	}
	return path.Base(e.path)
}

// SetSize sets the inside size.
func (e *Editor) SetSize(w, h int) {
	e.w, e.h = w, h
	e.line.SetWidth(max(w-1, 1))
	e.scrollToCursor()
}

// Focus gives the editor the keys.
func (e *Editor) Focus() { e.focused = true }

// Blur takes them away.
func (e *Editor) Blur() { e.focused = false }

// Focused reports whether the editor has the keys.
func (e *Editor) Focused() bool { return e.focused }

// replace changes the text as one recorded edit and moves the cursor to
// the end of what was inserted.
func (e *Editor) replace(from, to Pos, text string, k kind) {
	from, to = order(e.buf.Clamp(from), e.buf.Clamp(to))
	before := e.cur
	removed := e.buf.Slice(from, to)
	end := e.buf.Replace(from, to, text)
	e.cur, e.anchor = end, nil
	e.hist.record(edit{at: from, removed: removed, inserted: text, before: before, after: end, kind: k}, e.saved)
	e.want = e.visualCol(e.cur)
	e.message = ""
}

// insert types text over the selection.
func (e *Editor) insert(text string, k kind) {
	from, to, ok := e.Selection()
	if !ok {
		from, to = e.cur, e.cur
	}
	if ok {
		k = kindOther
	}
	e.replace(from, to, text, k)
	e.scrollToCursor()
}

// Undo takes back the last change.
func (e *Editor) Undo() bool {
	n := len(e.hist.undo)
	if n == 0 {
		e.message = "nothing to undo"
		return false
	}
	ed := e.hist.undo[n-1]
	e.hist.undo = e.hist.undo[:n-1]
	e.buf.Replace(ed.at, endOf(ed.at, ed.inserted), ed.removed)
	e.hist.redo = append(e.hist.redo, ed)
	e.cur, e.anchor = e.buf.Clamp(ed.before), nil
	e.want = e.visualCol(e.cur)
	e.message = ""
	e.scrollToCursor()
	return true
}

// Redo applies the last change undone again.
func (e *Editor) Redo() bool {
	n := len(e.hist.redo)
	if n == 0 {
		e.message = "nothing to redo"
		return false
	}
	ed := e.hist.redo[n-1]
	e.hist.redo = e.hist.redo[:n-1]
	e.buf.Replace(ed.at, endOf(ed.at, ed.removed), ed.inserted)
	e.hist.undo = append(e.hist.undo, ed)
	e.cur, e.anchor = e.buf.Clamp(ed.after), nil
	e.want = e.visualCol(e.cur)
	e.message = ""
	e.scrollToCursor()
	return true
}
