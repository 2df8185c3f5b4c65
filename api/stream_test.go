package api

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/internal/poll"
	"github.com/atelier-studio/atelier/sessions"
)

// transcript rebuilds a session's messages from a stream: the snapshot's,
// then each revision (the highest of an id wins), in order of first sight.
type transcript struct {
	order []string
	msgs  map[string]sessions.Message
}

func newTranscript() *transcript { return &transcript{msgs: map[string]sessions.Message{}} }

func (tr *transcript) put(m sessions.Message) {
	old, ok := tr.msgs[m.ID]
	if !ok {
		tr.order = append(tr.order, m.ID)
	}
	if !ok || m.Rev >= old.Rev {
		tr.msgs[m.ID] = m
	}
}

// follower reads a stream until its session ends, answering what the demo
// asks (when answer is set) and checking that ids only grow.
type follower struct {
	t       *testing.T
	r       *rig
	id      string
	answer  bool
	seqs    []uint64 // ids of the events after the first snapshot
	snapSeq uint64
	tr      *transcript
	ended   bool
}

func (f *follower) read(ctx context.Context, st *client.Stream, stopAfter int) {
	f.t.Helper()
	n := 0
	for ev := range st.C {
		switch ev.Kind {
		case client.KindSnapshot:
			if f.tr != nil {
				f.t.Fatalf("a second snapshot at %d (resync?)", ev.Seq)
			}
			f.snapSeq, f.tr = ev.Seq, newTranscript()
			for _, m := range ev.Snapshot.Transcripts[f.id] {
				f.tr.put(m)
			}
			for _, rec := range ev.Snapshot.Sessions {
				if rec.ID == f.id && rec.Status == sessions.Ended {
					f.ended = true
				}
			}
			for _, it := range ev.Snapshot.Interactions {
				f.reply(ctx, it.SessionID, it.Interaction)
			}
		case client.KindResync:
			f.t.Fatalf("resync after %v", f.seqs)
		default:
			if last := f.last(); ev.Seq <= last {
				f.t.Fatalf("event %d (%s) after %d: a repeat or out of order", ev.Seq, ev.Kind, last)
			}
			f.seqs = append(f.seqs, ev.Seq)
			if ev.SessionID != f.id {
				break
			}
			switch ev.Kind {
			case client.KindMessage:
				f.tr.put(*ev.Message)
			case client.KindInteraction:
				f.reply(ctx, ev.SessionID, *ev.Interaction)
			case client.KindSession:
				f.ended = ev.Session.Status == sessions.Ended
			}
		}
		n++
		if f.ended || (stopAfter > 0 && n >= stopAfter) {
			return
		}
	}
	f.t.Fatalf("stream closed before the session ended: %v", st.Err())
}

func (f *follower) last() uint64 {
	if len(f.seqs) == 0 {
		return f.snapSeq
	}
	return f.seqs[len(f.seqs)-1]
}

func (f *follower) reply(ctx context.Context, sid string, it sessions.Interaction) {
	if !f.answer || it.Resolved || sid != f.id {
		return
	}
	var resp client.Response
	switch it.Kind {
	case sessions.Question:
		resp.Text = "hello"
	case sessions.Approval:
		resp.Decision = sessions.AllowOnce
	default:
		return
	}
	if err := f.r.c.Respond(ctx, sid, it.ID, resp); err != nil && !client.IsCode(err, client.CodeAlreadyResolved) {
		f.t.Errorf("respond to %s: %v", it.Kind, err)
	}
}

// TestStreamRebuildsTranscript: a demo session followed over the socket
// from its creation to its end; the transcript rebuilt from the snapshot
// and the events is the one GET messages answers, same ids and revisions.
func TestStreamRebuildsTranscript(t *testing.T) {
	r := newRig(t, Options{})
	ctx := ctxFor(t, 20*time.Second)
	rec, err := r.c.Create(ctx, client.CreateRequest{Task: "write a note", Approval: "auto", AutoStart: true})
	if err != nil {
		t.Fatal(err)
	}
	st, err := r.c.Events(ctx, rec.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := &follower{t: t, r: r, id: rec.ID, answer: true}
	f.read(ctx, st, 0)
	page, err := r.c.Messages(ctx, rec.ID, 1000, "")
	if err != nil {
		t.Fatal(err)
	}
	if page.More {
		t.Fatal("more than 1000 messages")
	}
	checkSameTranscript(t, f.tr, page.Messages)
	got, err := r.c.Session(ctx, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != sessions.Ended || got.EndReason != sessions.Completed {
		t.Fatalf("session %s %s, want ENDED completed", got.Status, got.EndReason)
	}
	// Paging back from the newest page gives the older messages.
	if n := len(page.Messages); n > 2 {
		tail, err := r.c.Messages(ctx, rec.ID, 2, "")
		if err != nil {
			t.Fatal(err)
		}
		older, err := r.c.Messages(ctx, rec.ID, 2, tail.Messages[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		if !tail.More || len(older.Messages) != 2 || older.Messages[1].ID != page.Messages[n-3].ID {
			t.Fatalf("paging: tail %v, older %v", ids(tail.Messages), ids(older.Messages))
		}
	}
}

func ids(msgs []sessions.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.ID)
	}
	return out
}

func checkSameTranscript(t *testing.T, tr *transcript, want []sessions.Message) {
	t.Helper()
	if len(want) == 0 {
		t.Fatal("no messages")
	}
	if !slices.Equal(tr.order, ids(want)) {
		t.Fatalf("message ids from the stream %v, from GET messages %v", tr.order, ids(want))
	}
	for _, m := range want {
		if got := tr.msgs[m.ID]; got.Rev != m.Rev || got.Complete != m.Complete || len(got.Parts) != len(m.Parts) {
			t.Fatalf("message %s: stream rev %d complete %v parts %d, GET rev %d complete %v parts %d",
				m.ID, got.Rev, got.Complete, len(got.Parts), m.Rev, m.Complete, len(m.Parts))
		}
	}
}

// TestStreamResumes: one stream follows a session start to end; another is
// cut twice, once by its client (which reconnects with the last id) and
// once by the server dropping every connection (the client reconnects by
// itself). The second sees exactly the first's events after its snapshot:
// no gap, no repeat.
func TestStreamResumes(t *testing.T) {
	r := newRig(t, Options{})
	ctx := ctxFor(t, 30*time.Second)
	rec, err := r.c.Create(ctx, client.CreateRequest{Task: "write a note", Approval: "auto"})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := r.c.Events(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	cutCtx, cut := context.WithCancel(ctx)
	b1, err := r.c.Events(cutCtx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	fa := &follower{t: t, r: r, id: rec.ID, answer: true}
	fb := &follower{t: t, r: r, id: rec.ID}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fa.read(ctx, ref, 0)
	}()
	if _, err := r.c.Start(ctx, rec.ID); err != nil {
		t.Fatal(err)
	}
	fb.read(ctx, b1, 40)
	cut()
	for range b1.C { // drain what was in flight: not delivered to fb
	}
	// The client resumes with the last id it saw.
	b2, err := r.c.Events(ctx, "", fb.last())
	if err != nil {
		t.Fatal(err)
	}
	fb.read(ctx, b2, 40)
	// The server drops the connection; the client reconnects by itself.
	r.dropConns()
	fb.read(ctx, b2, 0)
	<-done
	if t.Failed() {
		return
	}
	want := fa.seqs[slices.Index(fa.seqs, fb.seqs[0]):]
	if i := slices.IndexFunc(fa.seqs, func(s uint64) bool { return s > fb.snapSeq }); fa.seqs[i] != fb.seqs[0] {
		t.Fatalf("first event after the snapshot at %d: %d, want %d", fb.snapSeq, fb.seqs[0], fa.seqs[i])
	}
	got := fb.seqs
	n := min(len(want), len(got))
	if !slices.Equal(want[:n], got[:n]) {
		t.Fatalf("resumed stream differs:\nwant %v\n got %v", want, got)
	}
	if len(got) < len(want) {
		t.Fatalf("resumed stream ended at %d, the reference at %d", got[len(got)-1], want[len(want)-1])
	}
}

// TestStreamTooOld: a Last-Event-ID older than the ring holds, or newer
// than the engine ever gave, gets a resync and then a fresh snapshot.
func TestStreamTooOld(t *testing.T) {
	r := newRig(t, Options{RingSize: 8})
	ctx := ctxFor(t, 20*time.Second)
	for i := 0; i < 6; i++ {
		rec, err := r.c.Create(ctx, client.CreateRequest{Task: "t"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.c.Control(ctx, rec.ID, "archive"); err != nil {
			t.Fatal(err)
		}
	}
	poll.Until(t, "the awaited state", func() bool { return r.srv.ring.lastSeq() == r.eng.Snapshot().Seq })
	for _, last := range []uint64{1, 1 << 40} {
		st, err := r.c.Events(ctx, "", last)
		if err != nil {
			t.Fatal(err)
		}
		if ev := <-st.C; ev.Kind != client.KindResync {
			t.Fatalf("Last-Event-ID %d: first event %s, want resync", last, ev.Kind)
		}
		ev := <-st.C
		if ev.Kind != client.KindSnapshot || ev.Seq != r.eng.Snapshot().Seq || len(ev.Snapshot.Sessions) != 6 {
			t.Fatalf("Last-Event-ID %d: after the resync %s at %d, want the snapshot", last, ev.Kind, ev.Seq)
		}
	}
	// An id the ring still holds resumes without a snapshot.
	last := r.eng.Snapshot().Seq - 2
	st, err := r.c.Events(ctx, "", last)
	if err != nil {
		t.Fatal(err)
	}
	if ev := <-st.C; ev.Kind == client.KindResync || ev.Kind == client.KindSnapshot || ev.Seq != last+1 {
		t.Fatalf("resumed with %s at %d, want the event %d", ev.Kind, ev.Seq, last+1)
	}
}
