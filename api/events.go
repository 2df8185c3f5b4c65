package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/core"
)

// frame is one event, encoded once for every stream.
type frame struct {
	seq     uint64
	session string
	data    []byte // the whole SSE message: id, event and data lines
}

// ring holds the latest events for the streams. Every event with a seq
// above base is in it (or still to come from the pump); a cursor below
// base cannot be resumed. The pump appends; streams read at their own
// cursors and wait on wake, which is closed (and replaced) on each append.
type ring struct {
	mu     sync.Mutex
	buf    []frame // circular
	head   int     // index of the oldest frame
	n      int
	base   uint64
	last   uint64 // seq of the newest frame (base when empty)
	wake   chan struct{}
	closed bool
}

func newRing(size int, base uint64) *ring {
	return &ring{buf: make([]frame, size), base: base, last: base, wake: make(chan struct{})}
}

// add appends frames (their seqs increasing) and wakes the streams.
func (r *ring) add(fs []frame) {
	r.mu.Lock()
	for _, f := range fs {
		if r.n == len(r.buf) {
			r.base = r.buf[r.head].seq
			r.buf[r.head] = frame{}
			r.head = (r.head + 1) % len(r.buf)
			r.n--
		}
		r.buf[(r.head+r.n)%len(r.buf)] = f
		r.n++
		r.last = f.seq
	}
	close(r.wake)
	r.wake = make(chan struct{})
	r.mu.Unlock()
}

// reset forgets every frame: the pump lost events and resumes after a
// snapshot at seq base.
func (r *ring) reset(base uint64) {
	r.mu.Lock()
	clear(r.buf)
	r.head, r.n, r.base, r.last = 0, 0, base, base
	close(r.wake)
	r.wake = make(chan struct{})
	r.mu.Unlock()
}

func (r *ring) close() {
	r.mu.Lock()
	if !r.closed {
		r.closed = true
		close(r.wake)
	}
	r.mu.Unlock()
}

// since appends to dst the frames after seq and returns them with the
// channel that signals the next append. ok is false when seq is older than
// the ring holds; closed says the ring ends.
func (r *ring) since(seq uint64, dst []frame) (out []frame, wake <-chan struct{}, ok, closed bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if seq < r.base {
		return dst, r.wake, false, r.closed
	}
	at := func(i int) frame { return r.buf[(r.head+i)%len(r.buf)] }
	i := sort.Search(r.n, func(i int) bool { return at(i).seq > seq })
	for ; i < r.n; i++ {
		dst = append(dst, at(i))
	}
	return dst, r.wake, true, r.closed
}

// pump moves the engine's events into the ring, encoded once. When its own
// subscription overflows (the engine outran it), it takes a snapshot and
// resets the ring after it: the streams behind it resync.
func (s *Server) pump(sub *core.Subscription) {
	defer close(s.pumped)
	defer s.ring.close()
	defer sub.Close()
	var fs []frame
	for {
		select {
		case <-s.done:
			return
		case _, ok := <-sub.Ready():
			if !ok {
				return
			}
		}
		fs = fs[:0]
		for _, ev := range sub.Drain() {
			if ev.Kind == core.EvResync {
				s.ring.add(fs)
				fs = fs[:0]
				s.ring.reset(s.eng.Snapshot().Seq)
				continue
			}
			if ev.Seq <= s.ring.lastSeq() {
				continue // in the snapshot the ring was reset to
			}
			f, err := encodeEvent(ev)
			if err != nil {
				// Cannot happen for the engine's types; resync the
				// streams rather than skip an event in silence.
				s.ring.reset(ev.Seq)
				continue
			}
			fs = append(fs, f)
		}
		if len(fs) > 0 {
			s.ring.add(fs)
		}
	}
}

func (r *ring) lastSeq() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

func encodeEvent(ev core.Event) (frame, error) {
	b, err := json.Marshal(ev)
	if err != nil {
		return frame{}, err
	}
	data := make([]byte, 0, len(b)+64)
	data = append(data, "id: "...)
	data = strconv.AppendUint(data, ev.Seq, 10)
	data = append(data, "\nevent: "...)
	data = append(data, ev.Kind...)
	data = append(data, "\ndata: "...)
	data = append(data, b...)
	data = append(data, "\n\n"...)
	return frame{seq: ev.Seq, session: ev.SessionID, data: data}, nil
}

// writeTimeout bounds one write to a stream: a client that reads nothing
// for that long is dropped (it reconnects and resumes).
const writeTimeout = 30 * time.Second

// stream is one SSE client.
type stream struct {
	s       *Server
	w       http.ResponseWriter
	rc      *http.ResponseController
	session string // the session it is filtered to, or ""
	cursor  uint64 // the seq up to which it is served
}

func (s *Server) events(w http.ResponseWriter, r *http.Request) error {
	st := &stream{s: s, w: w, rc: http.NewResponseController(w)}
	if id := r.URL.Query().Get("session"); id != "" {
		if !idPattern.MatchString(id) {
			return badRequest(fmt.Sprintf("session %q is not a valid id", id))
		}
		rec, err := s.eng.Session(id)
		if err != nil {
			return err
		}
		st.session = rec.ID
	}
	resume, last := false, uint64(0)
	if v := r.Header.Get("Last-Event-ID"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return badRequest(fmt.Sprintf("Last-Event-ID %q: want an event id", v))
		}
		resume, last = true, n
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	var err error
	switch {
	case !resume:
		err = st.snapshot()
	case last > s.eng.Snapshot().Seq:
		// An id this engine never gave: another host's stream.
		err = st.resync()
	default:
		st.cursor = last
		err = st.flush()
	}
	if err != nil {
		return nil // the client went away; the status is sent
	}
	st.run(r)
	return nil
}

// run serves the stream until the client goes away or the ring closes.
func (st *stream) run(r *http.Request) {
	beat := time.NewTicker(st.s.opts.Heartbeat)
	defer beat.Stop()
	var buf []frame
	for {
		fs, wake, ok, closed := st.s.ring.since(st.cursor, buf[:0])
		var err error
		switch {
		case !ok:
			err = st.resync()
		case len(fs) > 0:
			err = st.send(fs)
			buf = fs
		case closed:
			return
		default:
			select {
			case <-wake:
			case <-beat.C:
				err = st.write([]byte(": ping\n\n"))
				if err == nil {
					err = st.flush()
				}
			case <-r.Context().Done():
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// send writes the frames of the stream's session (all of them unfiltered)
// and flushes: an event is never held back behind a later one.
func (st *stream) send(fs []frame) error {
	for _, f := range fs {
		st.cursor = f.seq
		if st.session != "" && f.session != st.session {
			continue
		}
		if err := st.write(f.data); err != nil {
			return err
		}
	}
	return st.flush()
}

// snapshot sends a snapshot (the session's, with its transcript, when the
// stream is filtered) and moves the cursor to its seq.
func (st *stream) snapshot() error {
	var snap core.Snapshot
	if st.session != "" {
		var sub *core.Subscription
		snap, sub = st.s.eng.Subscribe(st.session)
		sub.Close() // only the atomic snapshot with the transcript is wanted
	} else {
		snap = st.s.eng.Snapshot()
	}
	out := client.Snapshot{Seq: snap.Seq, Sessions: snap.Sessions, Transcripts: snap.Transcripts,
		Interactions: []client.Interaction{}, Marks: snap.Marks}
	if st.session != "" {
		out.Marks = nil // the marks' events are the workspace's, not the session's
		out.Sessions = nil
		for _, rec := range snap.Sessions {
			if rec.ID == st.session {
				out.Sessions = append(out.Sessions, rec)
			}
		}
	}
	for _, it := range snap.Interactions {
		if st.session == "" || it.SessionID == st.session {
			out.Interactions = append(out.Interactions, it)
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	st.cursor = snap.Seq
	msg := fmt.Appendf(nil, "id: %d\nevent: %s\ndata: %s\n\n", snap.Seq, client.KindSnapshot, b)
	if err := st.write(msg); err != nil {
		return err
	}
	return st.flush()
}

// resync tells the client the stream cannot go on where it was, then
// sends a fresh snapshot to go on from.
func (st *stream) resync() error {
	if err := st.write([]byte("event: resync\ndata: {}\n\n")); err != nil {
		return err
	}
	return st.snapshot()
}

func (st *stream) write(b []byte) error {
	if err := st.rc.SetWriteDeadline(time.Now().Add(writeTimeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	_, err := st.w.Write(b)
	return err
}

func (st *stream) flush() error { return st.rc.Flush() }
