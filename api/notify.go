package api

import (
	"context"
	"net/http"

	"github.com/atelier-studio/atelier/notify"
)

// Notifications are the host's notification channels (a *notify.Notifier):
// what the settings tab lists and tests.
type Notifications interface {
	// Status lists the channels.
	Status() notify.Status
	// Test sends a test event through every channel and says how each fared.
	Test(ctx context.Context, ev notify.Event) []notify.Result
}

// routeNotify registers the notification routes (see notifyOperations).
func (s *Server) routeNotify() {
	s.handle("GET /v1/notify", s.notifyStatus)
	s.handle("POST /v1/notify/test", s.notifyTest)
}

// notifyOperations documents the notification routes.
func notifyOperations() []operation {
	return []operation{
		{method: "GET", path: "/v1/notify", summary: "The host's notification channels ([notify]) and whether each is ready", status: 200, resp: notify.Status{}},
		{method: "POST", path: "/v1/notify/test", summary: "Send a test notification through every channel now; how each fared", status: 200, resp: []notify.Result{}},
	}
}

func (s *Server) notifyStatus(w http.ResponseWriter, _ *http.Request) error {
	st := notify.Status{Events: []string{}, Channels: []notify.Channel{}}
	if s.opts.Notify != nil {
		st = s.opts.Notify.Status()
	}
	writeJSON(w, http.StatusOK, st)
	return nil
}

// notifyTest waits for the channels (each bounded by its timeout) or for
// the client to go away.
func (s *Server) notifyTest(w http.ResponseWriter, r *http.Request) error {
	rs := []notify.Result{}
	if s.opts.Notify != nil {
		ws := s.eng.Workspace()
		rs = s.opts.Notify.Test(r.Context(), notify.Event{Workspace: ws, Act: notify.Act(ws)})
	}
	writeJSON(w, http.StatusOK, rs)
	return nil
}
