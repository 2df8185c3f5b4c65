package tui

import (
	"sort"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/attach"
	"github.com/atelier-studio/atelier/core"
)

// BenchmarkKeystrokeWhileTerminalFloods measures keystroke → frame in the
// sessions pane while a terminal tab prints 10 MB: the terminal's output is
// parsed off the UI loop, and the loop applies its (coalesced) screen
// updates between keystrokes as the program would. Each iteration applies
// the pending terminal messages, then the key, then draws the frame; it
// reports the p50 and p95 of that, the latency a person sees.
func BenchmarkKeystrokeWhileTerminalFloods(b *testing.B) {
	eng, err := core.Open(b.TempDir(), core.Options{NoHistory: true})
	if err != nil {
		b.Fatal(err)
	}
	defer closeEngine(b, eng)
	for i := 0; i < 30; i++ {
		if _, err := eng.Create(core.CreateOptions{Title: "s", Instructions: "x"}); err != nil {
			b.Fatal(err)
		}
	}
	a, err := New(Options{Engine: attach.Local(eng), NoColor: true})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	a.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	started := a.work.openTerminal("flood", []string{"sh", "-c", "head -c 7500000 /dev/urandom | base64; sleep 60"})()
	msgs := make(chan tea.Msg, 64)
	pump := func(cmd tea.Cmd) {
		if cmd == nil {
			return
		}
		go func() {
			if m := cmd(); m != nil {
				msgs <- m
			}
		}()
	}
	_, cmd := a.Update(started)
	pump(cmd)
	a.setFocus(focusSessions)
	keys := []tea.KeyPressMsg{{Code: 'j', Text: "j"}, {Code: 'k', Text: "k"}}
	var lat []time.Duration
	frames := 0
	for i := 0; b.Loop(); i++ {
		start := time.Now()
	drain:
		for {
			select {
			case m := <-msgs:
				_, cmd := a.Update(m)
				pump(cmd)
				frames++
			default:
				break drain
			}
		}
		a.Update(keys[i%2])
		if len(a.Render()) == 0 {
			b.Fatal("empty frame")
		}
		lat = append(lat, time.Since(start))
		time.Sleep(2 * time.Millisecond) // a fast typist, not a busy loop
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
	b.ReportMetric(float64(frames)/float64(len(lat)), "term-updates/key")
}
