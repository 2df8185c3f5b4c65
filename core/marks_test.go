package core

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/atelier-studio/atelier/engine"
	"github.com/atelier-studio/atelier/files"
	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/scripted"
)

// TestChangeMarksFold: the set says how each path stands against the
// start of the turn, whatever happened to it in between.
func TestChangeMarksFold(t *testing.T) {
	m := changeMarks{}
	m.apply([]files.Change{
		{Kind: files.Created, Path: "new.go", By: "s1"},
		{Kind: files.Changed, Path: "new.go", By: "s2"},
		{Kind: files.Changed, Path: "old.go", By: files.External},
		{Kind: files.Created, Path: "gone.go", By: "s1"},
		{Kind: files.Deleted, Path: "gone.go", By: "s1"},
		{Kind: files.Deleted, Path: "kept.go", By: files.Operator},
		{Kind: files.Created, Path: "kept.go", By: files.Operator},
		{Kind: files.Created, Path: "dir/a.go", By: "s1"},
		{Kind: files.Renamed, OldPath: "dir", Path: "moved", By: "s1", IsDir: true},
		{Kind: files.Notice, Message: "polling"},
	})
	want := []engine.ChangeMark{
		{Path: "kept.go", Kind: engine.MarkChanged, By: files.Operator},
		{Path: "moved", Kind: engine.MarkCreated, By: "s1", From: "dir"},
		{Path: "new.go", Kind: engine.MarkCreated, By: "s2"},
		{Path: "old.go", Kind: engine.MarkChanged, By: files.External},
	}
	if got := m.list(); !reflect.DeepEqual(got, want) {
		t.Fatalf("marks\n got %+v\nwant %+v", got, want)
	}
	if m.apply([]files.Change{{Kind: files.Changed, Path: "old.go", By: files.External}}) {
		t.Fatal("a change that leaves the set as it was reported as a change")
	}
}

// TestChangeMarksAreTheEngines: the engine's own watcher marks what a
// session and another program changed, with who; the snapshot and the
// stream carry the set, and a new turn empties it for every subscriber.
func TestChangeMarksAreTheEngines(t *testing.T) {
	m := &scripted.Model{Script: []scripted.Step{
		{Calls: []harness.ToolCall{toolCall("c1", "write_file", map[string]any{"path": "a.txt", "content": "x"})}},
		{Text: "done"},
		{Text: "second"},
	}}
	r := newRig(t, MapResolver{"a": m})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Approval: PolicyAuto}).ID
	if err := os.WriteFile(filepath.Join(r.ws, "b.txt"), []byte("y"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := []engine.ChangeMark{
		{Path: "a.txt", Kind: engine.MarkCreated, By: id},
		{Path: "b.txt", Kind: engine.MarkCreated, By: files.External},
	}
	r.until("marks of a.txt and b.txt", func(ev Event) bool {
		return ev.Kind == EvMarks && reflect.DeepEqual(ev.Marks, want)
	})
	if got := r.e.Snapshot().Marks; !reflect.DeepEqual(got, want) {
		t.Fatalf("snapshot's marks %+v, want %+v", got, want)
	}
	if got := r.e.ChangeMarks(); !reflect.DeepEqual(got, want) {
		t.Fatalf("ChangeMarks %+v, want %+v", got, want)
	}
	// A second subscriber, come later, gets them in its snapshot.
	snap, late := r.e.Subscribe()
	defer late.Close()
	if !reflect.DeepEqual(snap.Marks, want) {
		t.Fatalf("a later subscriber's snapshot has %+v, want %+v", snap.Marks, want)
	}
	r.create(CreateOptions{Agent: "a", AutoStart: true, Approval: PolicyAuto})
	r.until("the marks cleared", func(ev Event) bool { return ev.Kind == EvMarks && len(ev.Marks) == 0 })
	if got := r.e.Snapshot().Marks; len(got) != 0 {
		t.Fatalf("marks after a new turn started: %+v", got)
	}
	cleared := false
	for !cleared {
		<-late.Ready()
		for _, ev := range late.Drain() {
			cleared = cleared || (ev.Kind == EvMarks && len(ev.Marks) == 0)
		}
	}
}
