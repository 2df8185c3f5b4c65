package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/tui/dialog"
)

// messages runs a command and returns the messages it makes, opening
// batches.
func messages(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, messages(c)...)
		}
		return out
	}
	return []tea.Msg{msg}
}

// only returns the one message of type M among msgs.
func only[M tea.Msg](t *testing.T, msgs []tea.Msg) M {
	t.Helper()
	var found []M
	for _, m := range msgs {
		if m, ok := m.(M); ok {
			found = append(found, m)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d messages of the type wanted among %#v", len(found), msgs)
	}
	return found[0]
}

// TestDiskDiffIsMadeByACommand checks that the diff between a dirty
// editor and its file changed on disk is made in a command, not in
// Update: Update opens nothing and returns the command, whose message
// opens the question; the diff tab it offers comes the same way.
func TestDiskDiffIsMadeByACommand(t *testing.T) {
	h, _ := editorWorkspace(t, 120, 40)
	et := openInEditor(t, h, "main.go")
	h.typeText("// mine\n")
	theirs := "package main\n\nfunc main() {\n\tprintln(\"theirs\")\n}\n"
	read := fileReadMsg{editor: et.ID(), path: "main.go", by: "another program", data: []byte(theirs)}

	_, cmd := h.app.Update(read)
	if h.app.dlg.dialog != nil || cmd == nil {
		t.Fatalf("Update should leave the diff to a command (dialog open %v, command %v)", h.app.dlg.dialog != nil, cmd != nil)
	}
	h.send(only[diskDiffMsg](t, messages(cmd)))
	if _, ok := h.app.dlg.dialog.(*dialog.Choice); !ok {
		t.Fatalf("the diff's message should ask:\n%s", h.screen())
	}
	for _, want := range []string{"main.go changed on disk", "-// mine", "+    println(\"theirs\")"} {
		if !strings.Contains(h.screen(), want) {
			t.Errorf("the question lacks %q:\n%s", want, h.screen())
		}
	}

	tabs := h.app.tabs.len()
	_, cmd = h.app.Update(keyMsg("d"))
	if h.app.tabs.len() != tabs || cmd == nil {
		t.Fatalf("d should leave the diff to a command (%d tabs, command %v)", h.app.tabs.len(), cmd != nil)
	}
	if !et.Dirty() {
		t.Fatal("d keeps the editor's text")
	}
	h.send(only[diskDiffTabMsg](t, messages(cmd)))
	dt, ok := h.app.tabs.current().(*diffTab)
	if !ok || h.app.tabs.len() != tabs+1 || dt.v.Title() != "main.go: yours → disk" {
		t.Fatalf("the diff's message should open its tab:\n%s", h.screen())
	}
	if s := h.screen(); !strings.Contains(s, "println(\"theirs\")") {
		t.Errorf("the tab lacks the disk's line:\n%s", s)
	}
}

// TestDiskDiffAfterASave checks that a question made moot while its diff
// was being made is not asked: the editor was saved meanwhile, so the
// file is read again and matches.
func TestDiskDiffAfterASave(t *testing.T) {
	h, ws := editorWorkspace(t, 120, 40)
	et := openInEditor(t, h, "main.go")
	h.typeText("// mine\n")
	theirs := "package main\n\nfunc main() {\n\tprintln(\"theirs\")\n}\n"
	read := fileReadMsg{editor: et.ID(), path: "main.go", by: "another program", data: []byte(theirs)}
	_, cmd := h.app.Update(read)
	diffMsg := only[diskDiffMsg](t, messages(cmd))

	h.press("ctrl+s")
	if et.Dirty() {
		t.Fatal("ctrl+s should save")
	}
	h.send(diffMsg)
	if h.app.dlg.dialog != nil {
		t.Fatalf("a saved editor should not be asked about an older change:\n%s", h.screen())
	}
	got, err := os.ReadFile(filepath.Join(ws, "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(et.Buffer().Text(), "// mine") || !strings.Contains(string(got), "// mine") {
		t.Fatalf("the editor and the disk should both keep the saved text: %q, %q", et.Buffer().Text(), got)
	}
}
