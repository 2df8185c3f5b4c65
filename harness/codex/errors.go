package codex

import (
	"errors"
	"fmt"
)

// Errors a turn may end with, for callers to branch on with errors.Is.
var (
	// ErrProtocol means the CLI wrote something that breaks the app-server
	// protocol: a line that is not a JSON-RPC message, or an answer that
	// does not decode.
	ErrProtocol = errors.New("codex protocol error")
	// ErrExited means the CLI process ended while the adapter needed it.
	ErrExited = errors.New("codex app-server exited")
	// ErrRPC means the CLI answered a request with a JSON-RPC error.
	ErrRPC = errors.New("codex request failed")
	// ErrTurnFailed means Codex ended the turn as failed (the model API
	// refused, the stream broke after its retries).
	ErrTurnFailed = errors.New("codex turn failed")
	// ErrNoTurn is returned by Steer when the session has no turn running.
	ErrNoTurn = errors.New("no codex turn running")
	// ErrNoCommand means the settings name no program to run.
	ErrNoCommand = errors.New("no codex command")
	// ErrNotLoggedIn means the model API refused Codex's login or key
	// (401 Unauthorized). The error says how to fix it (LoginHint).
	ErrNotLoggedIn = errors.New("codex is not logged in")
)

// LoginHint says how to give Codex a login, for errors and for `atelier
// agents`.
const LoginHint = "run `codex login` once, or export OPENAI_API_KEY where Atelier starts, " +
	"or name the key's variable with api_key_env in the agent's configuration"

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("%d %s", e.Code, e.Message) }
