package modeltest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// Reply is one scripted answer of the fake server.
type Reply struct {
	// Status is the HTTP status; zero means 200.
	Status int
	// Header holds extra response headers (Retry-After, say).
	Header map[string]string
	// Body is sent at once unless Chunks is set.
	Body []byte
	// Chunks are written and flushed one by one, Delay apart.
	Chunks [][]byte
	Delay  time.Duration
	// Hang keeps the response open after the body until the client leaves,
	// as a stalled stream does.
	Hang bool
}

// SSE is a 200 reply streaming body as text/event-stream, one event at a time.
func SSE(body []byte) Reply {
	return Reply{Chunks: Events(body)}
}

// JSONError is an error reply with a JSON body.
func JSONError(status int, body string) Reply {
	return Reply{Status: status, Body: []byte(body), Header: map[string]string{"Content-Type": "application/json"}}
}

// Request is what the fake server received.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// JSON decodes the request body into a generic map.
func (r Request) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("request body is not JSON: %v\n%s", err, r.Body)
	}
	return m
}

// Server is a scripted fake model API: the n-th request gets the n-th
// reply. A request beyond the script, or a reply never asked for, fails
// the test.
type Server struct {
	*httptest.Server
	t       testing.TB
	mu      sync.Mutex
	replies []Reply
	reqs    []Request
}

// NewServer starts a fake server with its script; it stops with the test.
func NewServer(t testing.TB, replies ...Reply) *Server {
	t.Helper()
	s := &Server{t: t, replies: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(func() {
		s.Close()
		s.mu.Lock()
		defer s.mu.Unlock()
		if len(s.reqs) < len(s.replies) {
			t.Errorf("fake server: %d scripted replies, only %d requests came", len(s.replies), len(s.reqs))
		}
	})
	return s
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	n := len(s.reqs)
	s.reqs = append(s.reqs, Request{Method: r.Method, Path: r.URL.RequestURI(), Header: r.Header.Clone(), Body: body})
	var rep Reply
	ok := n < len(s.replies)
	if ok {
		rep = s.replies[n]
	}
	s.mu.Unlock()
	if !ok {
		s.t.Errorf("fake server: unexpected request %d: %s %s", n+1, r.Method, r.URL)
		http.Error(w, `{"error":{"message":"unscripted request"}}`, http.StatusInternalServerError)
		return
	}
	for k, v := range rep.Header {
		w.Header().Set(k, v)
	}
	if rep.Chunks != nil && w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "text/event-stream")
	}
	status := rep.Status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	if rep.Chunks == nil {
		_, _ = w.Write(rep.Body)
	}
	fl, _ := w.(http.Flusher)
	for i, c := range rep.Chunks {
		if i > 0 && rep.Delay > 0 {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(rep.Delay):
			}
		}
		if _, err := w.Write(c); err != nil {
			return
		}
		if fl != nil {
			fl.Flush()
		}
	}
	if rep.Hang {
		<-r.Context().Done()
	}
}
