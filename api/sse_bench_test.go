package api

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/core"
)

// BenchmarkSSE1000Subscribers: 1,000 clients follow the event stream over
// their own connections to the host's unix socket (the api/client reader,
// JSON decoding included); each round changes a session through the engine
// and times, for every client, the change's publish to its receipt. The
// p50 and p99 of those times are reported.
func BenchmarkSSE1000Subscribers(b *testing.B) {
	const subs = 1000
	r := newRig(b, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	rec, err := r.eng.Create(core.CreateOptions{Agent: "demo", Instructions: "watched"})
	if err != nil {
		b.Fatal(err)
	}
	var (
		t0      atomic.Int64 // when the round's change was asked for, in ns
		round   atomic.Int64 // the round under way: archived is round%2 == 1
		arrived sync.WaitGroup
		mu      sync.Mutex
		lat     []time.Duration
		resyncs atomic.Int64
	)
	var done sync.WaitGroup
	for range subs {
		st := r.stream(b, ctx)
		done.Add(1)
		go func() {
			defer done.Done()
			var mine []time.Duration
			seen := int64(0)
			for ev := range st.C {
				if ev.Kind == client.KindResync {
					resyncs.Add(1)
				}
				if ev.Kind != client.KindSession || ev.SessionID != rec.ID {
					continue
				}
				n := round.Load()
				if n <= seen || ev.Session.Archived != (n%2 == 1) {
					continue
				}
				mine = append(mine, time.Duration(time.Now().UnixNano()-t0.Load()))
				seen = n
				arrived.Done()
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	b.ResetTimer()
	for i := 1; i <= b.N; i++ {
		arrived.Add(subs)
		t0.Store(time.Now().UnixNano())
		round.Store(int64(i))
		if err := r.eng.As("").Archive(rec.ID, i%2 == 1); err != nil {
			b.Fatal(err)
		}
		arrived.Wait()
	}
	b.StopTimer()
	cancel() // ends the streams
	done.Wait()
	if n := resyncs.Load(); n > 0 {
		b.Fatalf("%d clients were resynced", n)
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}
