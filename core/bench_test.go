package core

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/sessions"
)

// busy is an instant Model that never finishes its turn: every step asks for
// a cheap tool call, so every step is a boundary where a pause applies.
type busy struct{}

func (busy) Name() string       { return "busy" }
func (busy) Caps() harness.Caps { return harness.Caps{Boundary: harness.StepBoundary, Resume: true} }
func (busy) Step(ctx context.Context, req harness.StepRequest, out harness.Emitter) (harness.StepResult, error) {
	id := fmt.Sprintf("c%d", req.Step)
	return harness.StepResult{Stop: harness.StopToolUse, ToolCalls: []harness.ToolCall{{ID: id, Name: "list", Input: []byte(`{}`)}}}, ctx.Err()
}

// BenchmarkControlRoundTrip measures pause requested → PAUSED observed by
// a subscriber, with an instant harness; it reports the p50 and p95.
func BenchmarkControlRoundTrip(b *testing.B) {
	e, err := Open(b.TempDir(), Options{Agents: MapResolver{"busy": busy{}}})
	if err != nil {
		b.Fatal(err)
	}
	defer closeEngine(b, e)
	_, sub := e.Subscribe()
	defer sub.Close()
	rec, _ := e.Create(CreateOptions{Agent: "busy", AutoStart: true, Approval: PolicyAuto})
	waitStatus := func(st sessions.Status) {
		for {
			<-sub.Ready()
			for _, ev := range sub.Drain() {
				if ev.Kind == EvSession && ev.SessionID == rec.ID && ev.Session.Status == st {
					return
				}
			}
		}
	}
	var lat []time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := e.As("").Pause(rec.ID); err != nil {
			b.Fatal(err)
		}
		waitStatus(sessions.Paused)
		lat = append(lat, time.Since(start))
		b.StopTimer()
		if _, err := e.As("").Resume(rec.ID); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
}

// BenchmarkSubscribeFanout measures mutations delivered to 10 subscribers
// that drain as fast as they can.
func BenchmarkSubscribeFanout(b *testing.B) {
	e, err := Open(b.TempDir(), Options{Passive: true})
	if err != nil {
		b.Fatal(err)
	}
	defer closeEngine(b, e)
	const subs = 10
	done := make(chan int, subs)
	for i := 0; i < subs; i++ {
		_, s := e.Subscribe()
		go func() {
			n := 0
			for range s.Ready() {
				for _, ev := range s.Drain() {
					if ev.Kind == EvNotice && ev.Text == "end" {
						done <- n
						return
					}
					n++
				}
			}
		}()
	}
	start := time.Now()
	for i := 0; b.Loop(); i++ {
		e.mu.Lock()
		e.bus.publish(Event{Kind: EvQueue, SessionID: "s"})
		e.mu.Unlock()
	}
	e.mu.Lock()
	e.bus.publish(Event{Kind: EvNotice, Text: "end"})
	e.mu.Unlock()
	total := 0
	for i := 0; i < subs; i++ {
		total += <-done
	}
	b.ReportMetric(float64(total)/time.Since(start).Seconds(), "delivered/s")
}

// BenchmarkIdleSessionMemory reports the heap held per idle (ended)
// session once the engine has opened a workspace of them.
func BenchmarkIdleSessionMemory(b *testing.B) {
	ws := b.TempDir()
	e, _ := Open(ws, Options{Passive: true})
	const n = 200
	for i := 0; i < n; i++ {
		if _, err := e.Create(CreateOptions{Agent: "demo", Instructions: "task"}); err != nil {
			b.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		e2, err := Open(ws, Options{Passive: true})
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "B/session")
		if err := e2.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
