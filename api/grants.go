package api

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/sessions"
)

// routeRevoke withdraws a session grant: a policy change, so a process the
// host started may not call it (an agent must not widen or narrow its own
// leash through the API).
const routeRevoke = "POST /v1/sessions/{id}/grants/revoke"

// routeGrants registers the grants routes (see grantsOperations for the document).
func (s *Server) routeGrants() {
	s.handle("GET /v1/sessions/{id}/grants", s.grants)
	s.handle(routeRevoke, s.revoke)
	s.handle("GET /v1/sessions/{id}/repairs", s.repairs)
}

// grantsOperations documents the grants routes in the OpenAPI document.
func grantsOperations() []operation {
	return []operation{
		{method: "GET", path: "/v1/sessions/{id}/grants", summary: "A session's \"allow for this session\" grants, in lexical order", status: 200, resp: []string{}},
		{method: "POST", path: "/v1/sessions/{id}/grants/revoke", summary: "Revoke a grant: the next such call asks again (refused to processes the host started)", body: client.RevokeRequest{}, status: 204,
			problems: append(codes(client.CodeUnknownGrant), writeProblems...)},
		{method: "GET", path: "/v1/sessions/{id}/repairs", summary: "What opening a session's files repaired (torn or corrupt lines)", status: 200, resp: []sessions.Repair{}},
	}
}

func (s *Server) grants(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	gs, err := s.sortedGrants(id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, gs)
	return nil
}

// sortedGrants is the engine's grants of a session in a stable order (the
// engine keeps them in a set), never nil so it encodes as [].
func (s *Server) sortedGrants(id string) ([]string, error) {
	gs, err := s.eng.Grants(id)
	if err != nil {
		return nil, err
	}
	if gs == nil {
		gs = []string{}
	}
	slices.Sort(gs)
	return gs, nil
}

// revoke withdraws a grant. The engine does not type the refusal of a
// grant the session does not hold, and it may record the control before
// refusing it: look first, so an unknown grant is a 404 that changes
// nothing.
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	var req client.RevokeRequest
	if err := decode(w, r, &req); err != nil {
		return err
	}
	if req.Grant == "" {
		return badRequest("grant: required (GET /v1/sessions/{id}/grants lists them)")
	}
	gs, err := s.sortedGrants(id)
	if err != nil {
		return err
	}
	if _, held := slices.BinarySearch(gs, req.Grant); !held {
		return unknownGrant(id, req.Grant)
	}
	if err := s.caller(r).Revoke(id, req.Grant); err != nil {
		// Revoked by another request between the look and the revoke.
		if now, lerr := s.sortedGrants(id); lerr == nil && !slices.Contains(now, req.Grant) {
			return unknownGrant(id, req.Grant)
		}
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func unknownGrant(id, grant string) error {
	return &problemError{status: http.StatusNotFound, code: client.CodeUnknownGrant,
		detail: fmt.Sprintf("session %s has no grant %q", id, grant)}
}

// repairs answers what opening a session's files repaired. The engine
// keeps repairs by full id: the session is resolved first, so a prefix
// works and an unknown session is a 404, not an empty list.
func (s *Server) repairs(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	rec, err := s.eng.Session(id)
	if err != nil {
		return err
	}
	out := s.eng.Repairs(rec.ID)
	if out == nil {
		out = []sessions.Repair{}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
