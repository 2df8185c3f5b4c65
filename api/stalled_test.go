package api

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/sessions"
)

// A stream whose client stops reading holds no backlog of its own: it
// stays at its cursor in the shared ring, and once it reads again it is
// told to resync (then sent a snapshot) instead of being sent every event
// it missed. The other streams meanwhile get every event, in order, with
// no resync.
func TestStalledStreamIsResyncedAndSlowsNoOther(t *testing.T) {
	const ring, total, others = 64, 4000, 4
	r := newRig(t, Options{RingSize: ring})
	ctx := ctxFor(t, 2*time.Minute)

	conn, err := net.Dial("unix", r.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }() // the test is over; nothing to report
	req, err := http.NewRequest(http.MethodGet, "http://host/v1/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := req.Write(conn); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		t.Fatal(err)
	}
	stalled := bufio.NewScanner(resp.Body)
	stalled.Buffer(make([]byte, 1<<20), 1<<20)
	nextEvent := func() string {
		for stalled.Scan() {
			if k, ok := strings.CutPrefix(stalled.Text(), "event: "); ok {
				return k
			}
		}
		t.Fatalf("stalled stream ended: %v", stalled.Err())
		return ""
	}
	if k := nextEvent(); k != string(client.KindSnapshot) {
		t.Fatalf("first event %s", k)
	}
	// From here the stalled client reads nothing until the others are done.

	var got [others][]uint64
	var wg sync.WaitGroup
	for i := range others {
		st := r.stream(t, ctx)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ev := range st.C {
				if ev.Kind != core.EvDelta {
					t.Errorf("client %d got %s", i, ev.Kind)
					return
				}
				gotMu.Lock()
				got[i] = append(got[i], ev.Seq)
				n := len(got[i])
				gotMu.Unlock()
				if n == total {
					return
				}
			}
		}()
	}
	delta := core.Event{Kind: core.EvDelta, SessionID: "260101000000abcdef0123",
		Delta: &core.Delta{MessageID: "m1", Part: 0, Type: sessions.TextPart, Text: "some streamed words of a reply "}}
	first := r.srv.ring.lastSeq() + 1
	for sent := 0; sent < total; sent += 16 {
		// The readers keep up (each batch waits for them); the ring is
		// small, so the stalled one falls out of it many times over.
		r.srv.inject(slices16(delta))
		for !caughtUp(&got, first+uint64(sent)+15) {
			time.Sleep(200 * time.Microsecond)
		}
	}
	wg.Wait()
	for i := range got {
		if len(got[i]) != total {
			t.Fatalf("client %d got %d events, want %d", i, len(got[i]), total)
		}
		for j, seq := range got[i] {
			if seq != first+uint64(j) {
				t.Fatalf("client %d: event %d has seq %d, want %d", i, j, seq, first+uint64(j))
			}
		}
	}

	// The stalled client reads again: what the socket held, then a resync
	// and a snapshot, never the whole backlog.
	deltas := 0
	for {
		k := nextEvent()
		if k == string(client.KindResync) {
			break
		}
		if k != string(core.EvDelta) {
			t.Fatalf("stalled stream got %s before its resync", k)
		}
		deltas++
	}
	t.Logf("the stalled stream was sent %d of %d events before its resync", deltas, total)
	// What it is sent is what the socket's buffers held when it stalled
	// (800 events on Linux's defaults), however long it stalls.
	if deltas >= total/2 {
		t.Fatalf("the stalled stream was sent %d of %d events: its backlog was kept", deltas, total)
	}
	if k := nextEvent(); k != string(client.KindSnapshot) {
		t.Fatalf("after the resync: %s, want a snapshot", k)
	}
}

var gotMu sync.Mutex

// caughtUp reports whether every reader has seq.
func caughtUp(got *[4][]uint64, seq uint64) bool {
	gotMu.Lock()
	defer gotMu.Unlock()
	for i := range got {
		if n := len(got[i]); n == 0 || got[i][n-1] < seq {
			return false
		}
	}
	return true
}

func slices16(ev core.Event) []core.Event {
	evs := make([]core.Event, 16)
	for i := range evs {
		evs[i] = ev
	}
	return evs
}
