package api

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/trigger/state"
	"github.com/atelier-studio/atelier/workflow"
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
	// User says who ran the client a request comes from (the audit log's
	// sessions.Control.User): host.CallerUser reads the unix socket's
	// credentials, or names the TCP peer. Nil records the host's own
	// user.
	User func(*http.Request) string
	// Token, when set, is required of every request as a bearer token
	// (TCP listeners; the unix socket is owner-only and needs none).
	Token string
	// SpawnedCaller, when set, says whether the process that sent r was
	// started by the host (a session's agent or command, or a process
	// descended from one). Such a caller cannot answer interactions or
	// change a policy: an agent must not approve itself. An error refuses
	// the request too (the check fails closed). The unix socket's host sets
	// it from the caller's credentials (SO_PEERCRED).
	SpawnedCaller func(r *http.Request) (bool, error)
	// Heartbeat is how often an idle event stream gets a comment, so
	// proxies and clients see it alive (default 15 s).
	Heartbeat time.Duration
	// RingSize is how many events the server keeps for streams that fall
	// behind or reconnect (default 4096).
	RingSize int
	// Notify is the host's notification channels; nil lists none.
	Notify Notifications
	// Workflows is the host's workflow runner; nil runs none (the
	// workflow routes answer workflows_off).
	Workflows *workflow.Runner
	// Triggers lists the host's triggers with their last firing and next
	// due time (GET /v1/triggers); nil lists none.
	Triggers func() ([]state.Trigger, error)
	// Config is the configuration the host uses (GET /v1/config); nil
	// answers that the host does not report it.
	Config func() client.HostConfig
	// CopyWarnSize is the size over which a client asks before making a
	// copy instance ([instances] warn_size); 0 is core.DefaultWarnSize.
	CopyWarnSize int64
}

// Engine is what the API serves: the engine's roles (core/roles.go),
// nothing of its parts. The server decodes a request, calls one of these
// and encodes the answer; the rules are the engine's.
type Engine interface {
	core.SessionReader
	core.LiveView
	core.SessionAdmin
	core.WorkspaceFiles
	core.HostTerminals
	core.Commands
	core.Callers
}

var _ Engine = (*core.Engine)(nil)

// Server is the engine's HTTP API. It is an http.Handler; Close stops its
// event pump (it also stops by itself when the engine closes).
type Server struct {
	eng    Engine
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
func NewServer(eng Engine, opts Options) *Server {
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
	if s.opts.SpawnedCaller != nil && approverRoutes[pattern] {
		if err := s.vetApprover(r, pattern); err != nil {
			writeError(w, err)
			return
		}
	}
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
// caller is the engine's Caller for the client and user of r.
func (s *Server) caller(r *http.Request) core.Caller {
	user := ""
	if s.opts.User != nil {
		user = s.opts.User(r)
	}
	return s.eng.AsUser(s.opts.Client(r), user)
}

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
	s.handle(routeCreate, s.createSession)
	s.handle("GET /v1/sessions/{id}", s.getSession)
	for _, a := range plainActions {
		s.handle("POST /v1/sessions/{id}/"+a, s.control(a))
	}
	s.handle("POST /v1/sessions/{id}/send", s.input(false))
	s.handle("POST /v1/sessions/{id}/steer", s.input(true))
	s.handle(routeModel, s.setModel)
	s.handle(routeApproval, s.setApproval)
	s.handle("POST /v1/sessions/{id}/fork", s.fork)

	s.handle("GET /v1/sessions/{id}/queue", s.queue)
	s.handle("DELETE /v1/sessions/{id}/queue/{item}", s.unqueue)
	s.handle("POST /v1/sessions/{id}/queue/{item}/move", s.moveQueued)
	s.handle("POST /v1/sessions/{id}/queue/{item}/edit", s.editQueued)
	s.handle("GET /v1/sessions/{id}/keys", s.keys)
	s.handle("DELETE /v1/sessions/{id}/keys/{key}", s.forgetKey)
	s.handle("GET /v1/interactions", s.interactions)
	s.handle("GET /v1/actions", s.actions)
	s.handle(routeInteraction, s.respond)
	s.handle("GET /v1/sessions/{id}/messages", s.messages)
	s.handle("POST /v1/instances/{instance}/exec", s.exec)
	s.handle("GET /v1/events", s.events)

	s.routeGrants()
	s.routeContext()
	s.routeSignals()
	s.routeWorkflows()
	s.routeTriggers()
	s.routeConfig()
	s.routeFiles()
	s.routeInstances()
	s.routeHistory()
	s.routeTerminals()
	s.routeNotify()
	s.routeMarks()
}

func (s *Server) health(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, http.StatusOK, client.Health{OK: true, Version: s.opts.Version, PID: os.Getpid(), Workspace: s.eng.Workspace()})
	return nil
}

func (s *Server) version(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, http.StatusOK, client.Version{Version: s.opts.Version, API: APIVersion})
	return nil
}

// Routes the listeners' guards look at, as registered in routeAll.
const (
	routeCreate      = "POST /v1/sessions"
	routeModel       = "POST /v1/sessions/{id}/model"
	routeApproval    = "POST /v1/sessions/{id}/approval"
	routeInteraction = "POST /v1/sessions/{id}/interactions/{iid}"
)

// approverRoutes answer an interaction or set a policy: a process the host
// started may not call them (a create only when it sets a policy).
var approverRoutes = map[string]bool{routeInteraction: true, routeApproval: true, routeCreate: true, routeRevoke: true}

// settingsRoutes change an agent, a model or a policy: a TCP client of a
// host without --allow-settings may not call them (a create only when it
// sets one).
var settingsRoutes = []string{routeCreate, routeModel, routeApproval, routeRevoke}

// policyFields are the fields of a create that choose how much a session
// may do without asking.
var policyFields = []string{"approval", "access", "execution", "image"}

// settingsFields are the fields of a create that choose an agent, a model
// or a policy.
var settingsFields = append([]string{"agent", "model"}, policyFields...)

// vetApprover refuses a request to an approver route from a process the
// host started.
func (s *Server) vetApprover(r *http.Request, pattern string) error {
	if pattern == routeCreate {
		set, err := setsAny(r, policyFields)
		if err != nil || !set {
			return err
		}
	}
	if why := s.hostStarted(r, "cannot answer interactions or change policies"); why != "" {
		return &problemError{status: http.StatusForbidden, code: codeAgentCannotApprove, detail: why}
	}
	return nil
}

// hostStarted is the approver's rule, for the approver routes and the
// protected paths alike: it says why r's sender may not act as the
// operator (a process the host started may not do what, nor one whose
// process cannot be told), or "" when it may. Call it with SpawnedCaller
// set.
func (s *Server) hostStarted(r *http.Request, what string) string {
	spawned, err := s.opts.SpawnedCaller(r)
	switch {
	case err != nil:
		return "cannot tell which process sent this, so it is refused: " + err.Error()
	case spawned:
		return "a process started by the host (a session's agent or command) " + what
	}
	return ""
}

// setsAny reports whether the JSON object in r's body sets one of fields
// to a value other than "" or null. It leaves the body for the handler to
// read again; a body that is not a JSON object is left for the handler to
// refuse.
func setsAny(r *http.Request, fields []string) (bool, error) {
	if r.Body == nil {
		return false, nil
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, MaxBody+1))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(b), r.Body), r.Body}
	if err != nil {
		return false, fmt.Errorf("read the request body: %w", err)
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(b, &obj) != nil {
		return false, nil
	}
	for _, f := range fields {
		if v, ok := obj[f]; ok && string(v) != `""` && string(v) != "null" {
			return true, nil
		}
	}
	return false, nil
}

// RemoteOptions configure the guard of a TCP listener (Remote).
type RemoteOptions struct {
	// Token is required of every request as a bearer token, compared in
	// constant time. Required: Remote refuses everything without one.
	Token string
	// Hosts are the names the Host header may give (without a port;
	// "[::1]" and "::1" are one name). A request naming another host is
	// refused with 421: a page of another site that a DNS rebinding points
	// at this listener carries its own name.
	Hosts []string
	// CORSOrigin, when set, is the one origin that browsers may call from:
	// its preflights are answered and its responses carry the CORS
	// headers. No other origin gets any.
	CORSOrigin string
	// AllowSettings lets TCP clients change agents, models and policies
	// (set the model or the approval policy, create with an agent, model
	// or policy of their choosing). Off, those are refused with 403
	// settings_not_allowed.
	AllowSettings bool
}

// Remote guards next for a TCP listener: it checks the Host header, answers
// CORS for the configured origin only, requires the bearer token and keeps
// settings from TCP clients unless allowed. The unix socket needs none of
// this: it is owner-only.
func Remote(next http.Handler, o RemoteOptions) http.Handler {
	g := &remote{next: next, opts: o, hosts: map[string]bool{}, settings: http.NewServeMux()}
	for _, h := range o.Hosts {
		g.hosts[hostName(h)] = true
	}
	for _, p := range settingsRoutes {
		g.settings.HandleFunc(p, func(http.ResponseWriter, *http.Request) {})
	}
	return g
}

// remote is the guard Remote returns.
type remote struct {
	next     http.Handler
	opts     RemoteOptions
	hosts    map[string]bool
	settings *http.ServeMux // the routes that change settings
}

// corsMethods and corsHeaders are what a browser of the allowed origin may
// send (If-Match and If-None-Match guard file writes); corsExpose are the
// response headers its scripts may read (a read's ETag is what a guarded
// write sends back).
const (
	corsMethods = "GET, POST, PUT, DELETE"
	corsHeaders = "Authorization, Content-Type, Last-Event-ID, Atelier-Client, If-Match, If-None-Match"
	corsExpose  = "ETag, Atelier-Path, Atelier-Binary, Atelier-Skipped, Content-Disposition, Location"
)

func (g *remote) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !g.hosts[hostName(r.Host)] {
		writeProblem(w, newProblem(http.StatusMisdirectedRequest, codeMisdirectedHost,
			"this host does not answer to "+strconv.Quote(r.Host)+" (see --allow-host)"))
		return
	}
	if origin := r.Header.Get("Origin"); g.opts.CORSOrigin != "" && origin == g.opts.CORSOrigin {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", origin)
		h.Set("Access-Control-Expose-Headers", corsExpose)
		h.Add("Vary", "Origin")
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			h.Set("Access-Control-Allow-Methods", corsMethods)
			h.Set("Access-Control-Allow-Headers", corsHeaders)
			h.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if g.opts.Token == "" || !ok || subtle.ConstantTimeCompare([]byte(got), []byte(g.opts.Token)) != 1 {
		w.Header().Set("WWW-Authenticate", `Bearer realm="atelier"`)
		writeProblem(w, newProblem(http.StatusUnauthorized, client.CodeUnauthorized, "a bearer token is required"))
		return
	}
	if !g.opts.AllowSettings {
		if err := g.vetSettings(r); err != nil {
			writeError(w, err)
			return
		}
		// The file routes check it too: a protected path holds policies.
		r = r.WithContext(context.WithValue(r.Context(), settingsBarredKey{}, true))
	}
	g.next.ServeHTTP(w, r)
}

// settingsBarredKey marks, in a request's context, a TCP client that may
// not change settings (Remote without AllowSettings).
type settingsBarredKey struct{}

// vetSettings refuses a request that changes an agent, a model or a
// policy.
func (g *remote) vetSettings(r *http.Request) error {
	_, pattern := g.settings.Handler(r)
	if pattern == "" {
		return nil
	}
	if pattern == routeCreate {
		set, err := setsAny(r, settingsFields)
		if err != nil || !set {
			return err
		}
	}
	return &problemError{status: http.StatusForbidden, code: codeSettingsNotAllowed,
		detail: "TCP clients cannot choose agents, models or policies on this host (start it with --allow-settings)"}
}

// hostName is the host of a Host header or a name, without its port or
// brackets, lower-case, without a trailing dot.
func hostName(h string) string {
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	return strings.TrimSuffix(strings.ToLower(h), ".")
}
