package api

import (
	"net/http"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/config"
)

// routeSignals registers the firing of named events (see
// signalsOperations for the document). /v1/events is the live stream.
func (s *Server) routeSignals() {
	s.handle("POST /v1/signals/{name}", s.signal)
}

// signalsOperations documents the signals route in the OpenAPI document.
func signalsOperations() []operation {
	return []operation{
		{method: "POST", path: "/v1/signals/{name}", summary: "Fire a named event: every session parked on it (the wait tool's event) wakes, with the data as the tool's result", body: client.SignalRequest{}, status: 200, resp: client.SignalResult{}},
	}
}

func (s *Server) signal(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("name")
	// What the wait tool's agents and scripts write, never a path or a
	// space: config's rule, the same for triggers and the studio.
	if !config.ValidEventName(name) {
		return badRequest(config.EventNameRule)
	}
	var req client.SignalRequest
	if err := decode(w, r, &req); err != nil {
		return err
	}
	data := ""
	if len(req.Data) > 0 && string(req.Data) != "null" {
		data = string(req.Data)
	}
	writeJSON(w, http.StatusOK, client.SignalResult{Woken: s.eng.FireEvent(name, data)})
	return nil
}
