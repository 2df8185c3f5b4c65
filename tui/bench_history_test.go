package tui

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/attach"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/sessions/history"
)

// BenchmarkOpenEndedSessionTab measures opening the tab of an ended
// session with 20,000 messages on a freshly opened engine, up to its first
// frame at 120x40: with the tail the studio loads (500 messages) and with
// the whole transcript, for comparison.
func BenchmarkOpenEndedSessionTab(b *testing.B) {
	ws := b.TempDir()
	endedSession(b, ws, "long", 20_000)
	for _, c := range []struct {
		name string
		load func(a *App) loadedMsg
	}{
		{"tail", func(a *App) loadedMsg { return a.ctl.loadTail("long")().(loadedMsg) }},
		{"whole", func(a *App) loadedMsg { return a.ctl.loadTranscript("long")().(loadedMsg) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				eng, err := core.Open(ws, core.Options{NoHistory: true})
				if err != nil {
					b.Fatal(err)
				}
				a, err := New(Options{Engine: attach.Local(eng), NoColor: true})
				if err != nil {
					b.Fatal(err)
				}
				a.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
				b.StartTimer()
				a.openSession("long", true) // the command is c.load
				a.ctl.handleResult(c.load(a))
				if a.Render() == "" {
					b.Fatal("no frame")
				}
				b.StopTimer()
				a.Close()
				closeEngine(b, eng)
				b.StartTimer()
			}
		})
	}
}

// BenchmarkSessionHistory measures loading a session's turn history (the
// log, then each commit's files) from a history of 50 turns of that
// session and 50 of another, each changing 3 files: what `h` in a session
// tab runs.
func BenchmarkSessionHistory(b *testing.B) {
	ws := b.TempDir()
	eng, err := core.Open(ws, core.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer closeEngine(b, eng)
	h := eng.History()
	if h == nil {
		b.Fatal(eng.HistoryError())
	}
	ctx := context.Background()
	for turn := 1; turn <= 50; turn++ {
		for _, sid := range []string{"s1", "s2"} {
			for f := range 3 {
				writeFile(b, filepath.Join(ws, sid, fmt.Sprintf("file%d.txt", f)), fmt.Sprintf("turn %d\n", turn))
			}
			if _, err := h.CommitTurn(ctx, history.TurnCommit{SessionID: sid, Turn: turn, Summary: "edit"}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("turns", func(b *testing.B) {
		for b.Loop() {
			turns, _, err := sessionHistory(ctx, attach.Local(eng), "s1")
			if err != nil || len(turns) != 50 || len(turns[0].Files) != 3 {
				b.Fatalf("%d turns, %v", len(turns), err)
			}
		}
	})
	b.Run("blame", func(b *testing.B) {
		blame := blamer(attach.Local(eng))
		for b.Loop() {
			c, err := blame(ctx, "s1/file0.txt")
			if err != nil || c.Turn != 50 {
				b.Fatalf("%+v %v", c, err)
			}
		}
	})
}
