package tui

import (
	"runtime"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/attach"
	"github.com/atelier-studio/atelier/core"
)

// BenchmarkMemory20Sessions reports the heap the engine and the studio
// hold with 20 sessions, each with its tab open on a 500-message
// transcript drawn once at 200x60.
func BenchmarkMemory20Sessions(b *testing.B) {
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		eng, err := core.Open(b.TempDir(), core.Options{NoHistory: true, Passive: true})
		if err != nil {
			b.Fatal(err)
		}
		a, err := New(Options{Engine: attach.Local(eng)})
		if err != nil {
			b.Fatal(err)
		}
		a.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
		for i := 0; i < 20; i++ {
			rec, err := eng.Create(core.CreateOptions{Title: "s", Instructions: "x"})
			if err != nil {
				b.Fatal(err)
			}
			a.live.recs[rec.ID] = rec
			a.openSession(rec.ID, true)
			a.tabs.list[a.tabs.len()-1].(*sessionTab).Loaded(benchMessages(500), 0, nil)
			a.Render()
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "MiB")
		a.Close()
		closeEngine(b, eng)
	}
}
