package config

import (
	"errors"
	"fmt"
	"strings"
)

// Kind says what is wrong in a Problem, for callers and tests that branch on
// it rather than on message text.
type Kind string

// The kinds of Problem.
const (
	KindSyntax  Kind = "syntax"      // the file is not valid TOML
	KindUnknown Kind = "unknown-key" // a key Atelier does not know
	KindType    Kind = "type"        // a value of the wrong TOML type
	KindValue   Kind = "value"       // a value of the right type but not allowed
	KindSecret  Kind = "secret"      // a secret value written in a config file
	KindRead    Kind = "read"        // the file could not be read
)

// Problem is one thing wrong in one config file, with where it is. Line and
// Col are 1-based; zero means unknown.
type Problem struct {
	File string
	Line int
	Col  int
	Key  string // the dotted key, "agents.local.approval"; empty for syntax errors
	Kind Kind
	Msg  string
}

// Error formats the problem the way compilers do, so editors can jump to it:
// "/path/.atelier.toml:12:3: agents.local.approval: must be one of ...".
func (p Problem) Error() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d", p.Line)
		if p.Col > 0 {
			fmt.Fprintf(&b, ":%d", p.Col)
		}
	}
	b.WriteString(": ")
	if p.Key != "" {
		b.WriteString(p.Key)
		b.WriteString(": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// Error is what Load returns when the configuration is wrong: every problem
// found in every file read, not just the first, so the user fixes them all
// in one pass. Problems are ordered by file, then position.
type Error struct {
	Problems []Problem
}

// NewError returns the Error of problems found outside Load (by a caller
// that checks more than Load can), ordered as Load orders its own: by
// file, in the order files appear, then by position.
func NewError(ps []Problem) *Error {
	ps = append([]Problem(nil), ps...)
	sortProblems(ps)
	return &Error{Problems: ps}
}

// Error joins the problems, one per line.
func (e *Error) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

// Has reports whether some problem is of kind k.
func (e *Error) Has(k Kind) bool {
	for _, p := range e.Problems {
		if p.Kind == k {
			return true
		}
	}
	return false
}

// Sentinel errors for the calls callers branch on.
var (
	// ErrNoWorkspaceFile: the workspace has no .atelier.toml to trust.
	ErrNoWorkspaceFile = errors.New("no workspace config file")
	// ErrDigestMismatch: the workspace file changed between showing it to the
	// operator and trusting it.
	ErrDigestMismatch = errors.New("workspace config changed since it was shown")
	// ErrNoConfigDir: neither XDG_CONFIG_HOME nor HOME locates the user's
	// config directory.
	ErrNoConfigDir = errors.New("cannot locate the user config directory: set XDG_CONFIG_HOME or HOME")
	// ErrEnvUnset: an environment variable the configuration names is unset.
	ErrEnvUnset = errors.New("environment variable not set")
	// ErrNoAPIKeyEnv: an agent of a remote server other than the official
	// API names no api_key_env.
	ErrNoAPIKeyEnv = errors.New("no api_key_env")
)

// problems collects the problems of one file.
type problems struct {
	file string
	pos  positions
	list []Problem
}

// at adds a problem located at the key path segs (shown as key).
func (ps *problems) at(kind Kind, key string, segs []string, format string, args ...any) {
	where := ps.pos.lookup(segs...)
	ps.list = append(ps.list, Problem{
		File: ps.file, Line: where.Line, Col: where.Col,
		Key: key, Kind: kind, Msg: fmt.Sprintf(format, args...),
	})
}
