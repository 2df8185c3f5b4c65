package claude

import (
	"errors"
	"fmt"
	"strings"
)

// Errors callers branch on; the adapter wraps them with what it was doing.
var (
	// ErrNotFound means the claude binary could not be started where the
	// session runs (not installed, not on PATH, or missing from the image).
	ErrNotFound = errors.New("claude CLI not found")
	// ErrExited means the CLI process ended when it should not have.
	ErrExited = errors.New("claude CLI exited")
	// ErrProtocol means the CLI printed something that is not its
	// stream-json protocol, or broke the protocol's rules.
	ErrProtocol = errors.New("claude protocol error")
	// ErrHandshake means the CLI did not answer its initialize request.
	ErrHandshake = errors.New("claude did not complete its handshake")
	// ErrAPI means the model API failed and the CLI gave up (after its
	// own retries).
	ErrAPI = errors.New("model API error")
	// ErrTurnFailed means the CLI ended the turn with an error of its own.
	ErrTurnFailed = errors.New("claude turn failed")
	// ErrNoTurn is returned by Steer when the session has no turn in
	// flight: the text should be sent as the next turn's input instead.
	ErrNoTurn = errors.New("no claude turn in flight")
	// ErrEmptyInput refuses a turn with nothing to say.
	ErrEmptyInput = errors.New("empty turn input")
	// ErrBadSettings marks settings the adapter cannot run with.
	ErrBadSettings = errors.New("bad claude settings")
	// ErrNotLoggedIn means the CLI has no valid login or key: it said
	// "Not logged in" or "Invalid API key", or the API refused the key.
	// The error says how to fix it (LoginHint).
	ErrNotLoggedIn = errors.New("claude is not logged in")
)

// LoginHint says how to give Claude Code a login, for errors and for
// `atelier agents`.
const LoginHint = "run `claude /login` once, or export ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) " +
	"where Atelier starts, or name the key's variable with api_key_env in the agent's configuration"

// notLoggedIn marks err as a missing or refused login and says how to fix
// it.
func notLoggedIn(err error) error {
	return fmt.Errorf("%w: %w; %s", ErrNotLoggedIn, err, LoginHint)
}

// loginText reports whether the CLI's message is one of those it gives
// without a valid login: "Not logged in · Please run /login", "Invalid API
// key · Fix external API key" (Claude Code 2.1).
func loginText(s string) bool {
	return strings.Contains(s, "Not logged in") || strings.Contains(s, "Invalid API key") ||
		strings.Contains(s, "Please run /login")
}

// ProcessError is a failure of the CLI process, with the tail of what it
// wrote on stderr (the last few KiB), which usually says why.
type ProcessError struct {
	// Msg says what failed, and how the process ended when it did.
	Msg string
	// Stderr is the last few KiB the CLI wrote on stderr.
	Stderr string
	err    error
}

// Error implements error, with the stderr tail on the lines after the
// message.
func (e *ProcessError) Error() string {
	if e.Stderr == "" {
		return e.Msg + " (no stderr output)"
	}
	return e.Msg + "\nclaude stderr:\n" + e.Stderr
}

// Unwrap lets errors.Is find the sentinel.
func (e *ProcessError) Unwrap() error { return e.err }
