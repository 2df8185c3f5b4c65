package attach

import (
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/api"
	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/internal/enginetest"
)

// tcpToken is the bearer token of the TCP rig.
const tcpToken = "feedfacefeedfacefeedfacefeedfacefeedfacefeedfacefeedfacefeedface"

// overTCP is a real engine (with its history) served on a loopback TCP
// port behind the token guard, as `atelier serve --listen` serves it: the
// workspace stands for another machine's.
type overTCP struct {
	ws  string
	eng *core.Engine
	url string
}

func serveTCP(t *testing.T, ws string) *overTCP {
	t.Helper()
	eng := enginetest.Open(t, ws, core.Options{})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := api.NewServer(eng, api.Options{Version: "test"})
	t.Cleanup(srv.Close) // after the HTTP server's (Serve), before the engine's
	enginetest.Serve(t, l, &http.Server{Handler: api.Remote(srv, api.RemoteOptions{Token: tcpToken, Hosts: []string{"127.0.0.1"}}),
		ReadHeaderTimeout: 5 * time.Second})
	return &overTCP{ws: ws, eng: eng, url: "http://" + l.Addr().String()}
}

// remote attaches as `atelier attach URL` does: no history opened here,
// and a workspace path that does not exist on this side.
func (o *overTCP) remote(t *testing.T) *Remote {
	t.Helper()
	c, err := client.New(o.url, client.Options{Token: tcpToken, Label: "studio"})
	if err != nil {
		t.Fatal(err)
	}
	r := NewRemote(RemoteOptions{Workspace: "/nonexistent/other-machine", Client: c})
	t.Cleanup(r.Close)
	return r
}
