package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/attach"
	"github.com/atelier-studio/atelier/core"
	sess "github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/tui/files"
)

// tenKFiles makes a workspace of 10,000 files: 100 at the root and 99
// folders of 100.
func tenKFiles(b *testing.B) string {
	b.Helper()
	ws := b.TempDir()
	for d := 0; d < 100; d++ {
		dir := ws
		if d > 0 {
			dir = filepath.Join(ws, fmt.Sprintf("pkg%02d", d))
			if err := os.Mkdir(dir, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		for f := 0; f < 100; f++ {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%03d.go", f)), []byte("package x\n"), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	return ws
}

// BenchmarkStartFirstFrame10kFiles measures the studio's start on a
// 10,000-file workspace: build the App (subscribe, take the snapshot), list
// the root folder as Init asks, and draw the first frame at 120x40. The
// engine is opened once outside the loop.
func BenchmarkStartFirstFrame10kFiles(b *testing.B) {
	ws := tenKFiles(b)
	eng, err := core.Open(ws, core.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer closeEngine(b, eng)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a, err := New(Options{Engine: attach.Local(eng)})
		if err != nil {
			b.Fatal(err)
		}
		a.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		a.Update(a.files.Init()().(files.Loaded))
		if len(a.Render()) == 0 {
			b.Fatal("empty frame")
		}
		a.Close()
	}
}

// BenchmarkStudioFrame draws a whole 200x60 studio frame with a session
// tab open on a long transcript.
func BenchmarkStudioFrame(b *testing.B) {
	ws := b.TempDir()
	eng, err := core.Open(ws, core.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer closeEngine(b, eng)
	rec, err := eng.Create(core.CreateOptions{Title: "bench", Instructions: "x"})
	if err != nil {
		b.Fatal(err)
	}
	a, err := New(Options{Engine: attach.Local(eng)})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	a.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	a.live.recs[rec.ID] = rec
	a.openSession(rec.ID, true)
	a.tabs.list[0].(*sessionTab).Loaded(benchMessages(10_000), 0, nil)
	a.Render()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a.Render()
	}
}

func benchMessages(n int) []sess.Message {
	out := make([]sess.Message, n)
	for i := range out {
		role := sess.Assistant
		if i%2 == 0 {
			role = sess.User
		}
		out[i] = sess.Message{ID: fmt.Sprintf("m%05d", i+1), Rev: 1, Role: role, Complete: true,
			Parts: []sess.Part{{Type: sess.TextPart, Text: fmt.Sprintf("message %d with enough words to wrap once or twice on a narrow screen", i)}}}
	}
	return out
}
