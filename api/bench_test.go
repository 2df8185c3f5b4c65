package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/sessions"
)

// inject puts events into the ring as the pump would, numbered after the
// engine's (which is idle in the benchmark).
func (s *Server) inject(evs []core.Event) {
	seq := s.ring.lastSeq()
	fs := make([]frame, 0, len(evs))
	for _, ev := range evs {
		seq++
		ev.Seq = seq
		f, err := encodeEvent(ev)
		if err != nil {
			panic(err)
		}
		fs = append(fs, f)
	}
	s.ring.add(fs)
}

// BenchmarkSocketFanout: events delivered through the socket to 10 SSE
// clients (the api/client reader, JSON decoding included). The figure is
// events/s delivered in total. The producer stays within half the ring of
// the slowest client, so no client is resynced.
func BenchmarkSocketFanout(b *testing.B) {
	const clients = 10
	r := newRig(b, Options{})
	ctx := ctxFor(b, 5*time.Minute)
	var consumed [clients]atomic.Int64
	var wg sync.WaitGroup
	for i := range clients {
		st := r.stream(b, ctx)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ev := range st.C {
				if ev.Kind == client.KindResync {
					panic("a client was resynced")
				}
				if consumed[i].Add(1) == int64(b.N) {
					return
				}
			}
		}()
	}
	slowest := func() int64 {
		m := consumed[0].Load()
		for i := range consumed {
			m = min(m, consumed[i].Load())
		}
		return m
	}
	delta := core.Event{Kind: core.EvDelta, SessionID: "260101000000abcdef0123",
		Delta: &core.Delta{MessageID: "m1", Part: 0, Type: sessions.TextPart, Text: "some streamed words of a reply "}}
	batch := make([]core.Event, 64)
	for i := range batch {
		batch[i] = delta
	}
	b.ResetTimer()
	start := time.Now()
	for sent := 0; sent < b.N; {
		n := min(len(batch), b.N-sent)
		for int64(sent+n)-slowest() > int64(r.srv.opts.RingSize/2) {
			time.Sleep(20 * time.Microsecond)
		}
		r.srv.inject(batch[:n])
		sent += n
	}
	wg.Wait()
	el := time.Since(start)
	b.ReportMetric(float64(clients*b.N)/el.Seconds(), "events/s")
}

// loopModel is a model that never ends its turn by itself: every step says
// a word and lists the workspace, so the session has a step boundary every
// few hundred microseconds.
type loopModel struct{}

func (loopModel) Name() string { return "loop" }
func (loopModel) Caps() harness.Caps {
	return harness.Caps{Boundary: harness.StepBoundary, Resume: true}
}
func (loopModel) Step(_ context.Context, req harness.StepRequest, out harness.Emitter) (harness.StepResult, error) {
	out.Text("step ")
	id := fmt.Sprintf("c%d", req.Step)
	in, _ := json.Marshal(map[string]string{"path": "."})
	return harness.StepResult{Stop: harness.StopToolUse, ToolCalls: []harness.ToolCall{{ID: id, Name: "list", Input: in}}}, nil
}

type loopResolver struct{}

func (loopResolver) Resolve(string) (harness.Harness, core.AgentSettings, error) {
	return loopModel{}, core.AgentSettings{Approval: core.PolicyAuto, MaxSteps: 1 << 30}, nil
}

// BenchmarkSocketControlRoundTrip: a client asks to pause a running
// session; the time until PAUSED is on its stream (p50 and p99 reported).
// Each round resumes the session first (not timed).
func BenchmarkSocketControlRoundTrip(b *testing.B) {
	eng, err := core.Open(b.TempDir(), core.Options{Agents: loopResolver{}, NoHistory: true})
	if err != nil {
		b.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "at")
	if err != nil {
		b.Fatal(err)
	}
	sock := filepath.Join(dir, "s")
	l, err := net.Listen("unix", sock)
	if err != nil {
		b.Fatal(err)
	}
	srv := NewServer(eng, Options{})
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(l) }() // ends with hs.Close below
	b.Cleanup(func() {
		_ = hs.Close()
		srv.Close()
		_ = eng.Close()
		_ = os.RemoveAll(dir)
	})
	c, err := client.New(sock, client.Options{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := ctxFor(b, 5*time.Minute)
	rec, err := c.Create(ctx, client.CreateRequest{Agent: "loop", Task: "loop", AutoStart: true})
	if err != nil {
		b.Fatal(err)
	}
	st, err := c.Events(ctx, rec.ID, 0)
	if err != nil {
		b.Fatal(err)
	}
	status := func(want sessions.Status) {
		for ev := range st.C {
			if ev.Kind == client.KindSession && ev.Session.Status == want {
				return
			}
			if ev.Kind == client.KindSnapshot && len(ev.Snapshot.Sessions) == 1 && ev.Snapshot.Sessions[0].Status == want {
				return
			}
		}
		b.Fatalf("stream ended waiting for %s", want)
	}
	status(sessions.Running)
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := c.Pause(ctx, rec.ID); err != nil {
			b.Fatal(err)
		}
		status(sessions.Paused)
		lat = append(lat, time.Since(t0))
		b.StopTimer()
		if _, err := c.Resume(ctx, rec.ID); err != nil {
			b.Fatal(err)
		}
		status(sessions.Running)
		b.StartTimer()
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}
