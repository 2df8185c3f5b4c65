package client

import (
	"errors"
	"fmt"

	"github.com/atelier-studio/atelier/engine"
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
// works on what a call returns, and the engine's sentinel its code stands
// for (engine.Problems), so errors.Is(err, engine.ErrUnknownSession) is
// the same test on the engine's answer and on the host's.
func (p *Problem) Is(target error) bool {
	var t *Problem
	if errors.As(target, &t) {
		return t.Code == p.Code
	}
	for _, m := range engine.Problems {
		if m.Code == p.Code && target == m.Err {
			return true
		}
	}
	return false
}

// Codes of the problems the server reports; the engine's own errors' are
// the engine package's (engine.Problems).
const (
	CodeBadRequest           = "bad_request"
	CodeBodyTooLarge         = "body_too_large"
	CodeUnauthorized         = "unauthorized"
	CodeNotFound             = "not_found"
	CodeMethodNotAllowed     = "method_not_allowed"
	CodeUnknownSession       = engine.CodeUnknownSession
	CodeAmbiguousSession     = engine.CodeAmbiguousSession
	CodeUnknownAgent         = engine.CodeUnknownAgent
	CodeUnknownInstance      = "unknown_instance"
	CodeUnknownInteraction   = engine.CodeUnknownInteraction
	CodeAlreadyResolved      = engine.CodeAlreadyResolved
	CodeNotQueued            = engine.CodeNotQueued
	CodeNotEditable          = engine.CodeNotEditable
	CodeUnknownKey           = engine.CodeUnknownKey
	CodeKeyConflict          = engine.CodeKeyConflict
	CodeOutputSchema         = engine.CodeOutputSchema
	CodeBadAnswer            = engine.CodeBadAnswer
	CodeTextTooLarge         = engine.CodeTextTooLarge
	CodeExecutionUnavailable = engine.CodeExecutionUnavailable
	CodeKeyNotUncertain      = "key_not_uncertain"
	CodeTransitionRefused    = engine.CodeTransitionRefused
	CodeReadOnlyState        = engine.CodeReadOnlyState
	CodeReadOnlySession      = engine.CodeReadOnlySession
	CodeNotSupported         = "not_supported"
	CodeEngineClosed         = engine.CodeEngineClosed
	CodeEngineError          = "engine_error"
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
