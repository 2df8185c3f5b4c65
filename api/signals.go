package api

import (
	"net/http"
	"regexp"

	"github.com/atelier-studio/atelier/api/client"
)

// eventName is what a named event may be called: what the wait tool's
// agents and scripts write, never a path or a space.
var eventName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$`)

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
	if !eventName.MatchString(name) {
		return badRequest("an event name is letters, digits and _ . : - (at most 128), starting with a letter or digit")
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
