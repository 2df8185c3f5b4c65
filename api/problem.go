package api

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/engine"
)

// problemError is an error with the problem it is reported as.
type problemError struct {
	status int
	code   string
	detail string
	// files and sessions, when set, go with the problem (Problem.Files,
	// Problem.Sessions).
	files    []string
	sessions []string
}

func (p *problemError) Error() string { return p.detail }

// Codes of the refusals of the listeners' guards (server.go). They belong
// with the others in api/client's list; they are here until that package
// is edited next.
const (
	// codeMisdirectedHost: a TCP request whose Host header names no
	// name the host answers to (a DNS rebinding, a wrong URL): 421.
	codeMisdirectedHost = "misdirected_host"
	// codeSettingsNotAllowed: a TCP client changes an agent, a model or a
	// policy on a host started without --allow-settings: 403.
	codeSettingsNotAllowed = "settings_not_allowed"
	// codeAgentCannotApprove: a process the host started (an agent, a
	// command, or one of their descendants) answers an interaction or
	// changes a policy: 403.
	codeAgentCannotApprove = "agent_cannot_approve"
)

// badRequest is a validation failure of the request itself.
func badRequest(detail string) error {
	return &problemError{status: http.StatusBadRequest, code: client.CodeBadRequest, detail: detail}
}

// problemFor turns an error into the problem reported for it. An error the
// engine does not type is reported as engine_error (500).
func problemFor(err error) client.Problem {
	var pe *problemError
	if errors.As(err, &pe) {
		p := newProblem(pe.status, pe.code, pe.detail)
		p.Files, p.Sessions = pe.files, pe.sessions
		return p
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return newProblem(http.StatusRequestEntityTooLarge, client.CodeBodyTooLarge, err.Error())
	}
	if m, ok := engine.ProblemOf(err); ok {
		return newProblem(m.Status, m.Code, err.Error())
	}
	return newProblem(http.StatusInternalServerError, client.CodeEngineError, err.Error())
}

func newProblem(status int, code, detail string) client.Problem {
	return client.Problem{Type: "urn:atelier:problem:" + code, Title: http.StatusText(status),
		Status: status, Detail: detail, Code: code}
}

// writeError answers with the problem for err.
func writeError(w http.ResponseWriter, err error) {
	writeProblem(w, problemFor(err))
}

func writeProblem(w http.ResponseWriter, p client.Problem) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(p.Status)
	// The status is sent; a failed write means the client went away.
	_ = json.NewEncoder(w).Encode(p)
}

// writeJSON answers with v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	// The status is sent; a failed write means the client went away.
	_, _ = w.Write(append(b, '\n'))
}
