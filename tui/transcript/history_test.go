package transcript

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/internal/golden"
	sess "github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/sessions/history"
)

// turns is a session's history: two turns and a restore, newest first.
func turns() []Turn {
	at := func(m int) time.Time { return time.Date(2026, 3, 4, 10, m, 0, 0, time.Local) }
	return []Turn{
		{Commit: history.Commit{Hash: "cccccccccc", Parent: "bbbbbbbbbb", SessionID: "s1", Kind: history.KindRestore,
			Summary: "back to aaaaaaa (turn 1)", Time: at(30)},
			Files: []history.FileChange{{Path: "notes.md", Status: history.Deleted, Deletions: 3}}},
		{Commit: history.Commit{Hash: "bbbbbbbbbb", Parent: "aaaaaaaaaa", SessionID: "s1", Turn: 2, Kind: history.KindTurn,
			Summary: "write the notes", Time: at(20)},
			Files: []history.FileChange{
				{Path: "notes.md", Status: history.Added, Additions: 3},
				{Path: "src/new.go", OldPath: "src/old.go", Status: history.Renamed, Additions: 1, Deletions: 1},
				{Path: "logo.png", Status: history.Modified, Binary: true},
			}},
		{Commit: history.Commit{Hash: "aaaaaaaaaa", Parent: "0000000000", SessionID: "s1", Turn: 1, Kind: history.KindTurn,
			Summary: "look around", Time: at(10)}},
	}
}

func histView(h *History) string { return ansi.Strip(strings.Join(h.View(), "\n")) }

func TestHistoryView(t *testing.T) {
	h := NewHistory(plainStyles(), "s1", "greet")
	h.SetSize(70, 10)
	if v := histView(h); !strings.Contains(v, "loading the history") {
		t.Fatalf("before the load:\n%s", v)
	}
	h.Set(turns(), 4, nil)
	v := h.View()
	if len(v) != 10 {
		t.Fatalf("%d lines, want the height", len(v))
	}
	for i, l := range v {
		if w := ansi.StringWidth(l); w > 70 {
			t.Fatalf("line %d is %d wide", i, w)
		}
	}
	golden.Check(t, "history-70x10.txt", histView(h))

	h.Set(nil, 0, nil)
	if v := histView(h); !strings.Contains(v, "No commits yet") {
		t.Fatalf("an empty history says so:\n%s", v)
	}
	h.Set(nil, 0, history.ErrEmpty)
	if v := histView(h); !strings.Contains(v, "history: history is empty") {
		t.Fatalf("an error shows:\n%s", v)
	}
}

func TestHistoryKeysAskForDiffsAndRestores(t *testing.T) {
	h := NewHistory(plainStyles(), "s1", "greet")
	h.SetSize(70, 10)
	h.Set(turns(), 0, nil)

	// Row 0 is the restore: b undoes it (back to its parent).
	act, ok := h.HandleKey(kp("b"))
	want := Restore{ID: "s1", Commit: "bbbbbbbbbb", Label: "before the restore of 10:30:00 (undoing it)"}
	if !ok || !reflect.DeepEqual(act, want) {
		t.Fatalf("b on a restore: %#v", act)
	}
	// Row 2 is turn 2; enter is its whole diff, R restores to after it.
	h.HandleKey(kp("j"))
	h.HandleKey(kp("j"))
	if act, _ := h.HandleKey(kp("enter")); !reflect.DeepEqual(act, OpenDiff{ID: "s1", Commit: "bbbbbbbbbb", Title: "greet · turn 2"}) {
		t.Fatalf("enter on a turn: %#v", act)
	}
	if act, _ := h.HandleKey(kp("R")); !reflect.DeepEqual(act, Restore{ID: "s1", Commit: "bbbbbbbbbb", Label: "after turn 2"}) {
		t.Fatalf("R on a turn: %#v", act)
	}
	// Row 4 is the renamed file: both its paths go.
	h.HandleKey(kp("j"))
	h.HandleKey(kp("j"))
	if act, _ := h.HandleKey(kp("enter")); !reflect.DeepEqual(act, OpenDiff{ID: "s1", Commit: "bbbbbbbbbb",
		Paths: []string{"src/new.go", "src/old.go"}, Title: "greet · src/new.go · turn 2"}) {
		t.Fatalf("enter on a file: %#v", act)
	}
	if act, _ := h.HandleKey(kp("b")); !reflect.DeepEqual(act, Restore{ID: "s1", Commit: "aaaaaaaaaa",
		Paths: []string{"src/new.go", "src/old.go"}, Label: "src/new.go before turn 2"}) {
		t.Fatalf("b on a file: %#v", act)
	}
	if _, ok := h.HandleKey(kp("p")); ok {
		t.Fatal("p is not the history's: the tab's controls take it")
	}

	// A new load keeps the selection on the same file, wherever it moved.
	fresh := append([]Turn{{Commit: history.Commit{Hash: "dddddddddd", Parent: "cccccccccc", Kind: history.KindTurn, Turn: 3}}}, turns()...)
	h.Set(fresh, 0, nil)
	if _, f, _ := h.Selected(); f == nil || f.Path != "src/new.go" {
		t.Fatalf("the selection should stay on src/new.go: %+v", f)
	}
}

func TestTabShowsHistoryAndKeepsItsControls(t *testing.T) {
	tab := NewTab(plainStyles(), sess.Session{ID: "s1", Title: "greet", Agent: "demo", Status: sess.Waiting})
	tab.SetSize(70, 20)
	tab.Loaded(nil, 0, nil)
	if got := tab.HandleKey(kp("h")); got != (LoadHistory{ID: "s1"}) {
		t.Fatalf("h asks for the history: %#v", got)
	}
	if !tab.ShowsHistory() || tab.Scope().Name != "Session history" {
		t.Fatal("the tab shows the history and its keys")
	}
	tab.History().Set(turns(), 0, nil)
	if v := ansi.Strip(strings.Join(tab.View(), "\n")); !strings.Contains(v, "turn 2") || !strings.Contains(v, "A notes.md  +3 −0") {
		t.Fatalf("the history replaces the transcript:\n%s", v)
	}
	if got := tab.HandleKey(kp("t")); got != (Terminal{ID: "s1", Title: "greet"}) {
		t.Fatalf("t still opens a terminal: %#v", got)
	}
	if got := tab.HandleKey(kp("x")); got != (Control{"s1", "cancel"}) {
		t.Fatalf("x still cancels: %#v", got)
	}
	tab.HandleKey(kp("esc"))
	if tab.ShowsHistory() || tab.Scope().Name != "Session tab" {
		t.Fatal("esc goes back to the transcript")
	}
}

// TestHistoryLoadsFilesAsItScrolls: commits beyond the first load show
// their files as pending; moving near them asks for a batch, once.
func TestHistoryLoadsFilesAsItScrolls(t *testing.T) {
	var ts []Turn
	for i := 60; i >= 1; i-- {
		c := history.Commit{Hash: fmt.Sprintf("%010d", i), Kind: history.KindTurn, Turn: i}
		if i > 40 {
			ts = append(ts, Turn{Commit: c, Files: []history.FileChange{{Path: "a.go", Status: history.Modified}}})
		} else {
			ts = append(ts, Turn{Commit: c, Pending: true})
		}
	}
	h := NewHistory(plainStyles(), "s1", "greet")
	h.SetSize(70, 10)
	h.Set(ts, 0, nil)
	if h.Wants() != nil {
		t.Fatal("nothing pending is near the top")
	}
	var asked LoadFiles
	for range 60 {
		if act, _ := h.HandleKey(kp("j")); act != nil {
			asked = act.(LoadFiles)
			break
		}
	}
	if len(asked.Commits) != 20 || asked.Commits[0] != fmt.Sprintf("%010d", 40) || asked.Commits[19] != fmt.Sprintf("%010d", 21) {
		t.Fatalf("the next 20 pending commits, newest first: %v", asked.Commits)
	}
	for range 12 {
		if act, _ := h.HandleKey(kp("j")); act != nil {
			t.Fatalf("asked once: %#v", act)
		}
	}
	if !strings.Contains(histView(h), "files: …") {
		t.Fatalf("pending files say so:\n%s", histView(h))
	}
	_, before, _ := h.Selected()
	var got []Turn
	for _, hash := range asked.Commits {
		got = append(got, Turn{Commit: history.Commit{Hash: hash}, Files: []history.FileChange{{Path: "b.go", Status: history.Added}}})
	}
	h.SetFiles(got)
	if strings.Contains(histView(h), "files: …") {
		t.Fatalf("loaded files show:\n%s", histView(h))
	}
	if _, after, _ := h.Selected(); (before == nil) != (after == nil) {
		t.Fatal("the selection stays on its row's commit")
	}
}
