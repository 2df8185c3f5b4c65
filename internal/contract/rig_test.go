package contract

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/api"
	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/attach"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/host"
	"github.com/atelier-studio/atelier/internal/enginetest"
	"github.com/atelier-studio/atelier/trigger/state"
	"github.com/atelier-studio/atelier/workflow"
)

// version is the build the served API says it is.
const version = "contract"

// token is the TCP side's bearer token.
const token = "c0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ff"

// side is one way to reach an engine: in process, or through its API.
type side struct {
	name string
	// open makes a fresh engine on ws and returns the surface to it.
	open func(t *testing.T, ws string, seen *routes) attach.Engine
}

var sides = []side{
	{"engine", func(t *testing.T, ws string, _ *routes) attach.Engine { return attach.Local(openEngine(t, ws)) }},
	{"socket", serveSocket},
	{"tcp", serveTCP},
}

// openEngine opens an engine on ws with the demo agent paced fast.
func openEngine(t *testing.T, ws string) *core.Engine {
	t.Helper()
	return enginetest.Open(t, ws, core.Options{}) // with its history: the history rows read it
}

// beside is what a host runs beside its engine, served with its API: the
// workflow runner and the triggers (nil: none).
type beside struct {
	wf       *workflow.Runner
	triggers func() ([]state.Trigger, error)
}

// serveAPI serves the engine's API on l as the host does (its callers
// vetted by process, the TCP listener behind the token guard with
// --allow-settings), recording the routes requests reach.
func serveAPI(t *testing.T, eng *core.Engine, b beside, l net.Listener, tcp bool, seen *routes) {
	t.Helper()
	srv := api.NewServer(eng, api.Options{Version: version, SpawnedCaller: host.SpawnedCaller, User: host.CallerUser,
		Workflows: b.wf, Triggers: b.triggers})
	h := seen.record(srv)
	if tcp {
		h = api.Remote(h, api.RemoteOptions{Token: token, Hosts: []string{"127.0.0.1"}, AllowSettings: true})
	}
	t.Cleanup(srv.Close) // after the HTTP server's, which Serve registers next
	enginetest.Serve(t, l, &http.Server{Handler: h, ConnContext: host.ConnContext, ReadHeaderTimeout: 5 * time.Second})
}

func serveSocket(t *testing.T, ws string, seen *routes) attach.Engine {
	t.Helper()
	return remote(t, ws, socketClient(t, openEngine(t, ws), beside{}, seen))
}

// socketClient serves eng's API on a unix socket and returns a client of it.
func socketClient(t *testing.T, eng *core.Engine, b beside, seen *routes) *client.Client {
	t.Helper()
	dir, err := os.MkdirTemp("", "ct") // a socket path is limited to 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			t.Error(err)
		}
	})
	sock := filepath.Join(dir, "s")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	serveAPI(t, eng, b, l, false, seen)
	c, err := client.New(sock, client.Options{Label: "contract"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func serveTCP(t *testing.T, ws string, seen *routes) attach.Engine {
	t.Helper()
	return remote(t, ws, tcpClient(t, openEngine(t, ws), beside{}, seen))
}

// tcpClient serves eng's API on loopback TCP behind the token guard and
// returns a client of it holding the token.
func tcpClient(t *testing.T, eng *core.Engine, b beside, seen *routes) *client.Client {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serveAPI(t, eng, b, l, true, seen)
	c, err := client.New("http://"+l.Addr().String(), client.Options{Token: token, Label: "contract"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func remote(t *testing.T, ws string, c *client.Client) attach.Engine {
	t.Helper()
	r := attach.NewRemote(attach.RemoteOptions{Workspace: ws, Client: c})
	t.Cleanup(r.Close)
	return r
}

// routes records the API's routes that requests reached.
type routes struct {
	mu   sync.Mutex
	hit  map[string]bool
	all  []string
	once sync.Once
}

func (r *routes) record(srv *api.Server) http.Handler {
	r.once.Do(func() { r.all = srv.Routes() })
	mux := http.NewServeMux()
	for _, p := range srv.Routes() {
		mux.HandleFunc(p, func(http.ResponseWriter, *http.Request) {})
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if _, p := mux.Handler(req); p != "" {
			r.mu.Lock()
			r.hit[p] = true
			r.mu.Unlock()
		}
		srv.ServeHTTP(w, req)
	})
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}
