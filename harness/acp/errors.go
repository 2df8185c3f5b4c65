package acp

import "errors"

// Errors a turn may end with, for callers to branch on with errors.Is.
var (
	// ErrProtocol means the agent wrote something that is not a JSON-RPC
	// message, or broke the protocol's rules.
	ErrProtocol = errors.New("acp protocol error")
	// ErrExited means the agent process ended while the adapter needed it.
	ErrExited = errors.New("acp agent exited")
	// ErrNoCommand means the settings name no agent command.
	ErrNoCommand = errors.New("no acp agent command")
	// ErrRefused means the agent refused the prompt (stop reason refusal).
	ErrRefused = errors.New("the agent refused")
	// ErrNoTurn refuses an agent's request that comes between turns.
	ErrNoTurn = errors.New("no turn is running")
	// ErrUnknownTerminal answers a terminal request for an id never given.
	ErrUnknownTerminal = errors.New("unknown terminal")
)
