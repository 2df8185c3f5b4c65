package api

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"mime"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/atelier-studio/atelier/api/client"
)

// declaredAnswers checks, for every request a test server serves, that
// the answer is one the OpenAPI document declares for the route: a
// success with the route's status, one of its media types and no Atelier-*
// header it does not declare; a problem with a 4xx status one of the
// route's (routeProblems, or the listener's shared 401 and 421; a request
// no route takes may be 404 not_found or 405 method_not_allowed). So every
// answer the package's tests provoke is one a client generated from the
// document knows of. The 5xx problems are the document's default answer.
type declaredAnswers struct {
	srv      *Server      // whose routes the requests are matched to
	next     http.Handler // what answers: srv, or a guard in front of it
	declared map[string]map[problemRef]bool
	success  map[string]success

	mu         sync.Mutex
	undeclared []string
}

func newDeclaredAnswers(t testing.TB, srv *Server, next http.Handler) *declaredAnswers {
	d := &declaredAnswers{srv: srv, next: next, declared: map[string]map[problemRef]bool{}, success: map[string]success{}}
	for _, op := range operations() {
		ok := success{status: op.status, types: map[string]bool{}, headers: map[string]bool{}}
		for _, h := range op.respHeaders {
			ok.headers[http.CanonicalHeaderKey(h)] = true
		}
		if op.resp != nil {
			ok.types["application/json"] = true
		}
		if op.sse != nil {
			ok.types["text/event-stream"] = true
		}
		for _, t := range op.rawResp {
			ok.types[t] = true
		}
		d.success[op.method+" "+op.path] = ok
		set := map[problemRef]bool{}
		for _, p := range routeProblems(op) {
			set[p] = true
		}
		for _, p := range sharedResponses {
			set[p] = true
		}
		d.declared[op.method+" "+op.path] = set
	}
	// No route: the guard's refusals, or the mux's own.
	d.declared[""] = map[problemRef]bool{
		{http.StatusNotFound, client.CodeNotFound}: true, {http.StatusMethodNotAllowed, client.CodeMethodNotAllowed}: true}
	for _, p := range sharedResponses {
		d.declared[""][p] = true
	}
	t.Cleanup(func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		for _, u := range d.undeclared {
			t.Errorf("answered what the OpenAPI document does not declare: %s", u)
		}
	})
	return d
}

func (d *declaredAnswers) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, pattern := d.srv.mux.Handler(r)
	rec := &problemRecorder{ResponseWriter: w}
	d.next.ServeHTTP(rec, r)
	if ok, known := d.success[pattern]; known && rec.status >= 200 && rec.status < 300 {
		ct, _, _ := mime.ParseMediaType(rec.Header().Get("Content-Type"))
		if rec.status != ok.status || (ct != "" && !ok.types[ct]) {
			d.note(fmt.Sprintf("%q answered %d %s, the document says %d %v (%s %s)",
				pattern, rec.status, ct, ok.status, slices.Sorted(maps.Keys(ok.types)), r.Method, r.URL.Path))
		}
		for h := range rec.Header() {
			if strings.HasPrefix(h, "Atelier-") && !ok.headers[h] {
				d.note(fmt.Sprintf("%q answered with the header %s, which the document does not declare (%s %s)", pattern, h, r.Method, r.URL.Path))
			}
		}
		return
	}
	if rec.status < 400 || rec.status >= 500 || rec.Header().Get("Content-Type") != "application/problem+json" {
		return
	}
	var p client.Problem
	if err := json.Unmarshal(rec.body.Bytes(), &p); err != nil {
		d.note(fmt.Sprintf("%s %s: a %d problem that does not decode: %v", r.Method, r.URL.Path, rec.status, err))
		return
	}
	if !d.declared[pattern][problemRef{rec.status, p.Code}] {
		d.note(fmt.Sprintf("%q answered %d %s (%s %s)", pattern, rec.status, p.Code, r.Method, r.URL.Path))
	}
}

// success is a route's success as the document declares it: its status,
// the media types of its answer and its headers.
type success struct {
	status  int
	types   map[string]bool
	headers map[string]bool
}

func (d *declaredAnswers) note(s string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.undeclared = append(d.undeclared, s)
}

// problemRecorder passes a response through, keeping its status and the
// start of its body; streams and WebSockets go through it as through the
// server's own writer (Flush, Hijack, Unwrap).
type problemRecorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (p *problemRecorder) WriteHeader(status int) {
	if p.status == 0 {
		p.status = status
	}
	p.ResponseWriter.WriteHeader(status)
}

func (p *problemRecorder) Write(b []byte) (int, error) {
	if p.status == 0 {
		p.status = http.StatusOK
	}
	if p.status >= 400 && p.body.Len() < 64<<10 {
		p.body.Write(b)
	}
	return p.ResponseWriter.Write(b)
}

func (p *problemRecorder) Flush() {
	// A stream's flush; the server checks its own errors.
	_ = http.NewResponseController(p.ResponseWriter).Flush()
}

func (p *problemRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(p.ResponseWriter).Hijack()
}

func (p *problemRecorder) Unwrap() http.ResponseWriter { return p.ResponseWriter }
