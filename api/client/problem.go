package client

import (
	"errors"
	"fmt"
)

// Problem is an error the server reported, decoded from its RFC 9457
// problem details. Code is stable: branch on it (or use errors.Is with
// one of the sentinel problems below).
type Problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail,omitempty"`
	Code   string `json:"code"`
	// Files names the files a refusal is about (an instance's conflicting
	// or unapplied files); Sessions the sessions (an instance in use).
	Files    []string `json:"files,omitempty"`
	Sessions []string `json:"sessions,omitempty"`
}

func (p *Problem) Error() string {
	if p.Detail != "" {
		return fmt.Sprintf("%s (%d %s)", p.Detail, p.Status, p.Code)
	}
	return fmt.Sprintf("%s (%d %s)", p.Title, p.Status, p.Code)
}

// Is matches another Problem by code, so errors.Is(err, ErrUnknownSession)
// works on what a call returns.
func (p *Problem) Is(target error) bool {
	var t *Problem
	if !errors.As(target, &t) {
		return false
	}
	return t.Code == p.Code
}

// Codes of the problems the server reports.
const (
	CodeBadRequest         = "bad_request"
	CodeBodyTooLarge       = "body_too_large"
	CodeUnauthorized       = "unauthorized"
	CodeNotFound           = "not_found"
	CodeMethodNotAllowed   = "method_not_allowed"
	CodeUnknownSession     = "unknown_session"
	CodeAmbiguousSession   = "ambiguous_session"
	CodeUnknownAgent       = "unknown_agent"
	CodeUnknownInstance    = "unknown_instance"
	CodeUnknownInteraction = "unknown_interaction"
	CodeAlreadyResolved    = "already_resolved"
	CodeNotQueued          = "not_queued"
	CodeNotEditable        = "not_editable"
	CodeUnknownKey         = "unknown_key"
	CodeKeyConflict        = "key_conflict"
	CodeOutputSchema       = "output_schema"
	CodeKeyNotUncertain    = "key_not_uncertain"
	CodeTransitionRefused  = "transition_refused"
	CodeReadOnlyState      = "read_only_state"
	CodeReadOnlySession    = "read_only_session"
	CodeNotSupported       = "not_supported"
	CodeEngineClosed       = "engine_closed"
	CodeEngineError        = "engine_error"
)

// Sentinel problems for errors.Is.
var (
	ErrUnknownSession     = &Problem{Code: CodeUnknownSession}
	ErrUnknownInteraction = &Problem{Code: CodeUnknownInteraction}
	ErrAlreadyResolved    = &Problem{Code: CodeAlreadyResolved}
	ErrNotQueued          = &Problem{Code: CodeNotQueued}
	ErrNotEditable        = &Problem{Code: CodeNotEditable}
	ErrUnknownKey         = &Problem{Code: CodeUnknownKey}
	ErrKeyConflict        = &Problem{Code: CodeKeyConflict}
	ErrTransitionRefused  = &Problem{Code: CodeTransitionRefused}
	ErrReadOnlyState      = &Problem{Code: CodeReadOnlyState}
)
