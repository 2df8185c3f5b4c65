package api

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/sessions"
)

// BenchmarkAttachSnapshot: a fresh client attaches to an engine holding 20
// sessions of 500 messages each. One attach is the live view's first event
// (the snapshot: sessions, their statuses, open interactions; transcripts
// are paged on demand) and the newest page of one transcript
// (GET /v1/sessions/{id}/messages?limit=50). Target: 50 ms per attach. The
// p50 and p95 are reported.
func BenchmarkAttachSnapshot(b *testing.B) {
	const (
		nSessions = 20
		nMessages = 500
		pageSize  = 50
	)
	ws := b.TempDir()
	ids := fillAttachWorkspace(b, ws, nSessions, nMessages)
	r := openRig(b, ws, Options{})
	ctx := ctxFor(b, 5*time.Minute)
	target := ids[len(ids)/2]

	attach := func() {
		c, err := client.New(r.sock, client.Options{Label: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		defer c.CloseIdle()
		sctx, cancel := context.WithCancel(ctx)
		st, err := c.Events(sctx, "", 0)
		if err != nil {
			cancel()
			b.Fatal(err)
		}
		ev, ok := <-st.C
		cancel() // closes the stream: only its snapshot is wanted
		if !ok {
			b.Fatalf("stream ended before its snapshot: %v", st.Err())
		}
		if ev.Kind != client.KindSnapshot || len(ev.Snapshot.Sessions) != nSessions {
			b.Fatalf("first event %s", ev.Kind)
		}
		ended := 0
		for _, rec := range ev.Snapshot.Sessions {
			if rec.Status == sessions.Ended {
				ended++
			}
		}
		if ended != nSessions/2 || len(ev.Snapshot.Transcripts) != 0 {
			b.Fatalf("snapshot: %d ended, %d transcripts", ended, len(ev.Snapshot.Transcripts))
		}
		page, err := c.Messages(ctx, target, pageSize, "")
		if err != nil {
			b.Fatal(err)
		}
		if len(page.Messages) != pageSize || !page.More ||
			page.Messages[pageSize-1].ID != fmt.Sprintf("m%04d", nMessages) {
			b.Fatalf("page: %d messages, more %v", len(page.Messages), page.More)
		}
		for range st.C { // the reader ends with the cancelled context
		}
	}

	// The first attach reads the transcript from disk; it is logged, and
	// the measured ones are the attaches after it.
	t0 := time.Now()
	attach()
	b.Logf("first attach: %v", time.Since(t0))
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		attach()
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(lat)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
	b.ReportMetric(ms(lat[len(lat)*95/100]), "p95-ms")
}

// fillAttachWorkspace creates n sessions through an engine, closes it, and
// writes each a transcript of m messages (user prompts, assistant replies
// with tool calls) through the store's logs, as the engine would have. Half
// the sessions are then marked ended, so the snapshot holds a mix.
func fillAttachWorkspace(b *testing.B, ws string, n, m int) []string {
	b.Helper()
	eng, err := core.Open(ws, core.Options{Passive: true, NoHistory: true})
	if err != nil {
		b.Fatal(err)
	}
	ids := make([]string, 0, n)
	for i := range n {
		rec, err := eng.Create(core.CreateOptions{Agent: "demo", Title: fmt.Sprintf("session %d", i),
			Instructions: "refactor the parser and keep the tests green"})
		if err != nil {
			b.Fatal(err)
		}
		ids = append(ids, rec.ID)
	}
	if err := eng.Close(); err != nil {
		b.Fatal(err)
	}
	st, err := sessions.Open(ws)
	if err != nil {
		b.Fatal(err)
	}
	reply := strings.Repeat("The parser now reads the header before the body; ", 8)
	start := time.Now().Add(-time.Hour)
	for si, id := range ids {
		l := st.Log(id)
		for k := 1; k <= m; k++ {
			msg := sessions.Message{ID: fmt.Sprintf("m%04d", k), Rev: 1, Turn: (k-1)/10 + 1,
				Time: start.Add(time.Duration(k) * time.Second), Complete: true}
			switch {
			case k%10 == 1:
				msg.Role = sessions.User
				msg.Parts = []sessions.Part{{Type: sessions.TextPart, Text: "go on with the next step"}}
			case k%2 == 0:
				msg.Role = sessions.Assistant
				msg.Parts = []sessions.Part{{Type: sessions.TextPart, Text: reply}, {Type: sessions.ToolPart,
					Tool: &sessions.ToolCall{ID: fmt.Sprintf("c%d", k), Name: "read", Input: `{"path":"parser/parse.go"}`,
						Output: strings.Repeat("func parse() {}\n", 20), State: sessions.ToolDone}}}
			default:
				msg.Role = sessions.Assistant
				msg.Parts = []sessions.Part{{Type: sessions.TextPart, Text: reply}}
			}
			if err := l.AppendMessageUnsynced(msg); err != nil {
				b.Fatal(err)
			}
		}
		if err := l.Close(); err != nil {
			b.Fatal(err)
		}
		if si%2 == 1 {
			e, err := st.Load(id)
			if err != nil {
				b.Fatal(err)
			}
			e.Session.Status = sessions.Ended
			e.Session.EndReason = sessions.Completed
			if err := st.Save(e.Session); err != nil {
				b.Fatal(err)
			}
		}
	}
	return ids
}
