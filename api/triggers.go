package api

import (
	"net/http"

	"github.com/atelier-studio/atelier/trigger/state"
)

// routeTriggers registers the triggers' route (see triggersOperations):
// what the host's triggers are and how they fared, so a studio attached
// from anywhere lists them as the host runs them.
func (s *Server) routeTriggers() {
	s.handle("GET /v1/triggers", s.listTriggers)
}

// triggersOperations documents the triggers' route.
func triggersOperations() []operation {
	return []operation{
		{method: "GET", path: "/v1/triggers", summary: "The workspace's triggers as its host runs them: each with its last firing and, for a schedule, when it is next due", status: 200, resp: []state.Trigger{}},
	}
}

func (s *Server) listTriggers(w http.ResponseWriter, r *http.Request) error {
	all := []state.Trigger{}
	if s.opts.Triggers != nil {
		got, err := s.opts.Triggers()
		if err != nil {
			return err
		}
		all = append(all, got...)
	}
	writeJSON(w, http.StatusOK, all)
	return nil
}
