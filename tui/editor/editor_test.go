package editor

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/keys"
)

// press builds the key message for a name like "a", "enter", "shift+left",
// "ctrl+z", as the studio's keymaps name keys.
func press(name string) tea.KeyPressMsg { return keys.Press(name) }

func newEditor(t testing.TB, path, text string) *Editor {
	t.Helper()
	e := New(themes.Build(themes.Dark(), true), Options{ID: 1, Path: path, Data: []byte(text)})
	e.SetSize(60, 12)
	e.Focus()
	return e
}

// do presses each key; a key of more than one rune that is no key name
// types its runes.
func do(e *Editor, ks ...string) []Action {
	var acts []Action
	for _, k := range ks {
		if strings.HasPrefix(k, "type:") {
			for _, r := range k[5:] {
				e.HandleKey(tea.KeyPressMsg{Code: r, Text: string(r)})
			}
			continue
		}
		if a := e.HandleKey(press(k)); a != nil {
			acts = append(acts, a)
		}
	}
	return acts
}

func TestEditing(t *testing.T) {
	cases := []struct {
		name   string
		text   string
		keys   []string
		want   string
		cursor Pos
	}{
		{"insert", "hello", []string{"end", "type: world"}, "hello world", Pos{0, 11}},
		{"insert in the middle", "ac", []string{"right", "type:b"}, "abc", Pos{0, 2}},
		{"enter keeps the indent", "\tfoo", []string{"end", "enter", "type:bar"}, "\tfoo\n\tbar", Pos{1, 4}},
		{"backspace joins lines", "ab\ncd", []string{"down", "backspace"}, "abcd", Pos{0, 2}},
		{"delete at the end joins", "ab\ncd", []string{"end", "delete"}, "abcd", Pos{0, 2}},
		{"backspace a multibyte rune", "héllo", []string{"right", "right", "backspace"}, "hllo", Pos{0, 1}},
		{"shift selects, typing replaces", "one two", []string{"shift+right", "shift+right", "shift+right", "type:1"}, "1 two", Pos{0, 1}},
		{"selection across lines deleted", "abc\ndef\nghi", []string{"right", "shift+down", "shift+down", "backspace"}, "ahi", Pos{0, 1}},
		{"select all and delete", "abc\ndef", []string{"ctrl+a", "delete"}, "", Pos{0, 0}},
		{"cut a line", "one\ntwo\nthree", []string{"down", "ctrl+x"}, "one\nthree", Pos{1, 0}},
		{"cut and paste", "one\ntwo", []string{"shift+end", "ctrl+x", "down", "end", "ctrl+v"}, "\ntwoone", Pos{1, 6}},
		{"word moves", "foo bar_baz qux", []string{"ctrl+right", "ctrl+right", "shift+ctrl+left", "delete"}, "foo  qux", Pos{0, 4}},
		{"up and down keep the column", "abcdef\nx\nabcdef", []string{"end", "down", "down", "type:!"}, "abcdef\nx\nabcdef!", Pos{2, 7}},
		{"home toggles the indent", "    x", []string{"end", "home", "type:a", "home", "home", "type:b"}, "b    ax", Pos{0, 1}},
		{"undo a word at a time", "", []string{"type:one two", "ctrl+z"}, "one", Pos{0, 3}},
		{"undo all", "", []string{"type:one two", "ctrl+z", "ctrl+z"}, "", Pos{0, 0}},
		{"redo", "", []string{"type:one two", "ctrl+z", "ctrl+z", "ctrl+y", "ctrl+shift+z"}, "one two", Pos{0, 7}},
		{"undo a deletion run", "abcd", []string{"end", "backspace", "backspace", "ctrl+z"}, "abcd", Pos{0, 4}},
		{"undo a paste of lines", "x", []string{"shift+end", "ctrl+c", "end", "enter", "ctrl+v", "ctrl+z"}, "x\n", Pos{1, 0}},
		{"a new edit drops the redo", "", []string{"type:ab", "ctrl+z", "type:c", "ctrl+y"}, "c", Pos{0, 1}},
		{"tab inserts the file's indent", "    x\ny", []string{"down", "tab"}, "    x\n    y", Pos{1, 4}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEditor(t, "a.txt", c.text)
			do(e, c.keys...)
			if got := e.Buffer().Text(); got != c.want {
				t.Errorf("text = %q, want %q", got, c.want)
			}
			if e.Cursor() != c.cursor {
				t.Errorf("cursor = %+v, want %+v", e.Cursor(), c.cursor)
			}
		})
	}
}

func TestSearch(t *testing.T) {
	text := "func main() {\n\tErr := run()\n\tif err != nil {\n\t\tpanic(err)\n\t}\n}"
	cases := []struct {
		name  string
		query string
		dirs  []int
		want  Pos // the selection's start after the last step
	}{
		{"first match, smart case", "err", []int{1}, Pos{1, 1}},
		{"next", "err", []int{1, 1}, Pos{2, 4}},
		{"wraps to the start", "err", []int{1, 1, 1, 1}, Pos{1, 1}},
		{"upper case is exact", "Err", []int{1, 1}, Pos{1, 1}},
		{"backwards wraps to the end", "err", []int{-1}, Pos{3, 8}},
		{"previous", "err", []int{1, 1, -1}, Pos{1, 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEditor(t, "a.go", text)
			for _, d := range c.dirs {
				if !e.Find(c.query, d) {
					t.Fatalf("no match for %q", c.query)
				}
			}
			from, to, ok := e.Selection()
			if !ok || from != c.want || to.Col-from.Col != len(c.query) {
				t.Errorf("selection %+v-%+v (%v), want from %+v", from, to, ok, c.want)
			}
		})
	}
	e := newEditor(t, "a.go", text)
	if e.Find("nothing", 1) || !strings.Contains(e.Message(), "not found") {
		t.Errorf("a missing match: %q", e.Message())
	}
	// Through the keys: ctrl+f, type, enter, esc, then f3.
	do(e, "ctrl+f", "type:err", "enter", "esc", "f3")
	if from, _, _ := e.Selection(); from != (Pos{2, 4}) {
		t.Errorf("after ctrl+f err enter esc f3: %+v", from)
	}
	do(e, "ctrl+g", "type:5", "enter")
	if e.Cursor().Line != 4 {
		t.Errorf("go to line 5: cursor %+v", e.Cursor())
	}
}

func TestDirtyAndSave(t *testing.T) {
	e := newEditor(t, "a.txt", "a\r\nb\r\n")
	if e.Dirty() {
		t.Fatal("fresh editor is dirty")
	}
	do(e, "type:x")
	if !e.Dirty() || !strings.HasSuffix(e.Label(), "●") {
		t.Fatal("an edit should mark the editor dirty")
	}
	acts := do(e, "ctrl+s")
	save, ok := acts[0].(Save)
	if !ok || string(save.Data) != "xa\r\nb\r\n" {
		t.Fatalf("save %#v: line breaks and the final one should be kept", acts)
	}
	e.Saved(save.History, save.Data)
	if e.Dirty() {
		t.Fatal("saved but dirty")
	}
	do(e, "type:y", "ctrl+z")
	if e.Dirty() {
		t.Fatal("undo back to the saved state is clean")
	}
	do(e, "ctrl+z")
	if !e.Dirty() {
		t.Fatal("undo past the saved state is dirty")
	}
	if !e.SameAsDisk(save.Data) || e.SameAsDisk([]byte("other")) {
		t.Fatal("SameAsDisk")
	}
	e.Reload([]byte("fresh\n"))
	if e.Dirty() || e.Buffer().Text() != "fresh" {
		t.Fatalf("reload: dirty %v, %q", e.Dirty(), e.Buffer().Text())
	}
	do(e, "ctrl+z")
	if e.Buffer().Text() != "a\nb" {
		t.Fatalf("a reload can be undone: %q", e.Buffer().Text())
	}
	if acts := do(e, "ctrl+w"); len(acts) != 1 || !acts[0].(Close).Dirty {
		t.Fatalf("closing a dirty editor: %#v", acts)
	}
}

func TestCopyGoesToTheTerminal(t *testing.T) {
	e := newEditor(t, "a.txt", "copy me")
	acts := do(e, "shift+end", "ctrl+c")
	if len(acts) != 1 || acts[0].(Copy).Text != "copy me" {
		t.Fatalf("actions %#v", acts)
	}
	if acts := do(e, "esc", "esc"); len(acts) != 1 {
		t.Fatalf("esc drops the selection, then leaves: %#v", acts)
	} else if _, ok := acts[0].(Leave); !ok {
		t.Fatalf("actions %#v", acts)
	}
}

func TestPasteIsOneUndoStep(t *testing.T) {
	e := newEditor(t, "a.txt", "")
	e.Paste(tea.PasteMsg{Content: "a\r\nb\r\nc"})
	if e.Buffer().Text() != "a\nb\nc" || e.Cursor() != (Pos{2, 1}) {
		t.Fatalf("paste: %q %+v", e.Buffer().Text(), e.Cursor())
	}
	e.Undo()
	if e.Buffer().Text() != "" {
		t.Fatalf("undo paste: %q", e.Buffer().Text())
	}
}

func TestClickPlacesTheCursor(t *testing.T) {
	e := newEditor(t, "a.txt", "first\n\tsecond line")
	e.Click(1, e.gutterW()+6) // the tab is 4 columns: column 6 is "c"
	if e.Cursor() != (Pos{1, 3}) {
		t.Fatalf("cursor %+v", e.Cursor())
	}
	e.Click(9, 0) // below the text: the last line
	if e.Cursor().Line != 1 {
		t.Fatalf("cursor %+v", e.Cursor())
	}
}

// TestANewFileEndsItsLines: what is typed into an empty (new) file is saved
// with the final line break text files end with; an empty file stays
// empty, and a file without the break keeps it that way.
func TestANewFileEndsItsLines(t *testing.T) {
	e := newEditor(t, "new.txt", "")
	if data, _ := e.Content(); len(data) != 0 {
		t.Fatalf("an untouched empty file saves as %q", data)
	}
	do(e, "type:hello", "enter", "type:world")
	if data, _ := e.Content(); string(data) != "hello\nworld\n" {
		t.Fatalf("a new file saves as %q", data)
	}
	e = newEditor(t, "old.txt", "no break")
	do(e, "end", "type:!")
	if data, _ := e.Content(); string(data) != "no break!" {
		t.Fatalf("a file without the final break saves as %q", data)
	}
}
