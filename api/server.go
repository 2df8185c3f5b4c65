package api

import (
	"crypto/subtle"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/core"
)

// APIVersion is the version of the routes under /v1/.
const APIVersion = "v1"

// Options configure a Server. Zero values take the defaults.
type Options struct {
	// Version is the host's build, reported by health and version.
	Version string
	// Client labels the client a request comes from ("studio", "cli",
	// "mcp", "api"...), recorded with what it sends. Nil takes the
	// request's Atelier-Client header, or "api" without one.
	Client func(*http.Request) string
	// Token, when set, is required of every request as a bearer token
	// (TCP listeners; the unix socket is owner-only and needs none).
	Token string
	// Heartbeat is how often an idle event stream gets a comment, so
	// proxies and clients see it alive (default 15 s).
	Heartbeat time.Duration
	// RingSize is how many events the server keeps for streams that fall
	// behind or reconnect (default 4096).
	RingSize int
}

// Server is the engine's HTTP API. It is an http.Handler; Close stops its
// event pump (it also stops by itself when the engine closes).
type Server struct {
	eng    *core.Engine
	opts   Options
	mux    *http.ServeMux
	routes []string // the patterns registered, "METHOD /path"
	ring   *ring

	closeOnce sync.Once
	done      chan struct{}
	pumped    chan struct{}
}

// NewServer returns the API of eng. It subscribes to the engine at once:
// streams can resume from any event published after NewServer returns.
func NewServer(eng *core.Engine, opts Options) *Server {
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = 15 * time.Second
	}
	if opts.RingSize <= 0 {
		opts.RingSize = 4096
	}
	if opts.Client == nil {
		opts.Client = headerLabel
	}
	s := &Server{eng: eng, opts: opts, mux: http.NewServeMux(), done: make(chan struct{}), pumped: make(chan struct{})}
	s.routeAll()
	snap, sub := eng.Subscribe()
	s.ring = newRing(opts.RingSize, snap.Seq)
	go s.pump(sub)
	return s
}

// Close stops the event pump and ends the event streams.
func (s *Server) Close() {
	s.closeOnce.Do(func() { close(s.done) })
	<-s.pumped
}

// Routes returns the patterns the server serves ("GET /v1/health"...).
func (s *Server) Routes() []string { return append([]string(nil), s.routes...) }

// handlerFunc is a route's handler: an error is answered as a problem.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

func (s *Server) handle(pattern string, h handlerFunc) {
	s.routes = append(s.routes, pattern)
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			writeError(w, err)
		}
	})
}

// ServeHTTP checks the token, then routes; a request no route takes is
// answered with a problem too.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.opts.Token != "" && !s.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="atelier"`)
		writeProblem(w, newProblem(http.StatusUnauthorized, client.CodeUnauthorized, "a bearer token is required"))
		return
	}
	h, pattern := s.mux.Handler(r)
	if pattern != "" {
		s.mux.ServeHTTP(w, r) // which sets the path values
		return
	}
	// The mux's own 404 or 405: keep its status and Allow header.
	c := &capture{header: http.Header{}}
	h.ServeHTTP(c, r)
	if c.status == http.StatusMethodNotAllowed {
		w.Header().Set("Allow", c.header.Get("Allow"))
		writeProblem(w, newProblem(c.status, client.CodeMethodNotAllowed, r.Method+" is not allowed on "+r.URL.Path))
		return
	}
	writeProblem(w, newProblem(http.StatusNotFound, client.CodeNotFound, "no route "+r.Method+" "+r.URL.Path))
}

func (s *Server) authorized(r *http.Request) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(s.opts.Token)) == 1
}

// capture records what the mux's fallback handler answers.
type capture struct {
	header http.Header
	status int
}

func (c *capture) Header() http.Header { return c.header }
func (c *capture) WriteHeader(status int) {
	if c.status == 0 {
		c.status = status
	}
}
func (c *capture) Write(b []byte) (int, error) {
	c.WriteHeader(http.StatusOK)
	return len(b), nil
}

var labelPattern = regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`)

// headerLabel is the default client label: the Atelier-Client header when
// it is a short lower-case word, "api" otherwise.
func headerLabel(r *http.Request) string {
	if v := r.Header.Get("Atelier-Client"); labelPattern.MatchString(v) {
		return v
	}
	return "api"
}

// routeAll registers every route. The OpenAPI document (openapi.go) lists
// the same; TestOpenAPIMatchesRoutes checks it.
func (s *Server) routeAll() {
	s.handle("GET /openapi.json", s.openAPI)
	s.handle("GET /v1/health", s.health)
	s.handle("GET /v1/version", s.version)

	s.handle("GET /v1/sessions", s.listSessions)
	s.handle("POST /v1/sessions", s.createSession)
	s.handle("GET /v1/sessions/{id}", s.getSession)
	for _, a := range plainActions {
		s.handle("POST /v1/sessions/{id}/"+a, s.control(a))
	}
	s.handle("POST /v1/sessions/{id}/send", s.input(false))
	s.handle("POST /v1/sessions/{id}/steer", s.input(true))
	s.handle("POST /v1/sessions/{id}/model", s.setModel)
	s.handle("POST /v1/sessions/{id}/approval", s.setApproval)
	s.handle("POST /v1/sessions/{id}/fork", s.fork)

	s.handle("GET /v1/sessions/{id}/queue", s.queue)
	s.handle("DELETE /v1/sessions/{id}/queue/{item}", s.unqueue)
	s.handle("POST /v1/sessions/{id}/queue/{item}/move", s.moveQueued)
	s.handle("GET /v1/sessions/{id}/keys", s.keys)
	s.handle("DELETE /v1/sessions/{id}/keys/{key}", s.forgetKey)
	s.handle("GET /v1/interactions", s.interactions)
	s.handle("POST /v1/sessions/{id}/interactions/{iid}", s.respond)
	s.handle("GET /v1/sessions/{id}/messages", s.messages)
	s.handle("POST /v1/instances/{instance}/exec", s.exec)
	s.handle("GET /v1/events", s.events)
}

func (s *Server) health(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, http.StatusOK, client.Health{OK: true, Version: s.opts.Version, PID: os.Getpid(), Workspace: s.eng.Workspace()})
	return nil
}

func (s *Server) version(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, http.StatusOK, client.Version{Version: s.opts.Version, API: APIVersion})
	return nil
}
