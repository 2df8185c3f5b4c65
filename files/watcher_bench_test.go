package files

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkWatcherEdit measures an edit delivered as a watcher event, end to
// end with the default coalescing window: ns/op is the latency.
func BenchmarkWatcherEdit(b *testing.B) {
	ws, _ := newWorkspace(b)
	w, err := NewWatcher(ws, WatcherOptions{})
	must(b, err)
	defer closeOK(b, w)
	p := ws.Abs("edited.txt")
	must(b, os.WriteFile(p, []byte("0"), 0o644))
	drain(w, 500*time.Millisecond)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		must(b, os.WriteFile(p, []byte(fmt.Sprint(i)), 0o644))
		for seen := false; !seen; {
			for _, c := range <-w.Events() {
				seen = seen || c.Path == "edited.txt"
			}
		}
	}
}

func drain(w *Watcher, d time.Duration) {
	for {
		select {
		case <-w.Events():
		case <-time.After(d):
			return
		}
	}
}

// BenchmarkWatcherSetup5kDirs measures NewWatcher on 5,000 folders (50 of
// 100), each holding a file: the walk and the 5,000 watches.
func BenchmarkWatcherSetup5kDirs(b *testing.B) {
	ws, root := newWorkspace(b)
	for i := 0; i < 50; i++ {
		for j := 0; j < 100; j++ {
			d := filepath.Join(root, fmt.Sprintf("a%02d", i), fmt.Sprintf("b%03d", j))
			must(b, os.MkdirAll(d, 0o755))
			must(b, os.WriteFile(filepath.Join(d, "f.go"), nil, 0o644))
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w, err := NewWatcher(ws, WatcherOptions{})
		must(b, err)
		b.StopTimer()
		if n := len(w.watches); n != 5051 {
			b.Fatalf("%d watches", n)
		}
		must(b, w.Close())
		b.StartTimer()
	}
}

// BenchmarkWatcherStorm creates 50k files as fast as possible and reports
// how many batches the watcher needed to deliver them (the aim: 3 or fewer).
func BenchmarkWatcherStorm(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		ws, _ := newWorkspace(b)
		w, err := NewWatcher(ws, WatcherOptions{})
		must(b, err)
		b.StartTimer()
		want := stormFiles(b, ws.Root(), 50000)
		seen, batches := 0, 0
		for seen < len(want) {
			batch := <-w.Events()
			batches++
			seen += len(batch)
		}
		b.StopTimer()
		b.ReportMetric(float64(batches), "batches/op")
		must(b, w.Close())
		b.StartTimer()
	}
}
