package acp

import (
	"context"
	"io"
	"testing"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/internal/agenttest"
	"github.com/atelier-studio/atelier/terminal"
)

// snapshot is what h saw: approvals, files read and written, commands.
func snapshot(h *agenttest.Host) (approvals []harness.ApprovalRequest, reads, writes []string, execs []terminal.ExecRequest) {
	return h.Approvals(), h.Reads(), h.Writes(), h.Execs()
}

func allow(context.Context, harness.ApprovalRequest) (harness.ApprovalAnswer, error) {
	return harness.ApprovalAnswer{Allowed: true}, nil
}

func deny(context.Context, harness.ApprovalRequest) (harness.ApprovalAnswer, error) {
	return harness.ApprovalAnswer{Message: "not that file"}, nil
}

// closeSession ends a session's process; an error fails the test.
func closeSession(t testing.TB, a *Agent, id string) {
	t.Helper()
	if err := a.CloseSession(id); err != nil {
		t.Errorf("close session %s: %v", id, err)
	}
}

// mustClose closes c (an environment, an engine); an error fails the test.
func mustClose(t testing.TB, c io.Closer) {
	t.Helper()
	if err := c.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
}

// put writes b as the fake CLI would. A failure means the adapter stopped
// reading, which each test checks through what the adapter did instead.
func put(w io.Writer, b []byte) { _, _ = w.Write(b) }
