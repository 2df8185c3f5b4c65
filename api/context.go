package api

import (
	"net/http"

	"github.com/atelier-studio/atelier/core"
)

// routeContext registers what a session's agent is given (see
// contextOperations for the document).
func (s *Server) routeContext() {
	s.handle("GET /v1/sessions/{id}/context", s.context)
}

// contextOperations documents the context route in the OpenAPI document.
func contextOperations() []operation {
	return []operation{
		{method: "GET", path: "/v1/sessions/{id}/context", summary: "What the session's agent is given at its next step: instructions, tools with their schemas, model, and the size of the history it is shown", status: 200, resp: core.AgentContext{}},
	}
}

func (s *Server) context(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	c, err := s.eng.Context(id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, c)
	return nil
}
