package cli

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/internal/poll"
)

// lockedBuffer is a buffer a command writes while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestWorkflowPromptWithdrawsWhenAnsweredElsewhere: a run's terminal prompt
// whose approval the operator answered elsewhere (the studio, here the
// command line through the host) withdraws, says by whom, and the run
// goes on; the line typed next answers the next prompt. Before, the prompt
// stayed up, and answering it suspended the run with a stale message.
func TestWorkflowPromptWithdrawsWhenAnsweredElsewhere(t *testing.T) {
	cfg := isolate(t)
	ws := t.TempDir()
	userWorkflow(t, cfg, "implement", strings.ReplaceAll(implementWorkflow, "AGENT", "demo"))
	master, slave, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer func() {
		for _, f := range []*os.File{slave, master} {
			if err := f.Close(); err != nil {
				t.Error(err)
			}
		}
	}()
	go func() { _, _ = io.Copy(io.Discard, master) }() // the echo, until the pty closes
	var out, errb lockedBuffer
	s := &streams{in: slave, out: &out, err: &errb, env: env{getenv: os.Getenv},
		demo: &harness.Demo{Wait: 20 * time.Millisecond}}
	done := make(chan int, 1)
	go func() {
		done <- execute(s, []string{"workflow", "run", "-w", ws, "implement", "--input", `{"requestId":"t1","request":"write a note"}`})
	}()
	poll.Until(t, "the exec's prompt", func() bool { return strings.Contains(errb.String(), "wants to exec ls -la. Allow?") })
	items := jsonOut[[]core.ActionItem](t, cli(t, "actions", "-w", ws, "--json").want(t, ExitOK))
	if len(items) != 1 || items[0].Interaction == nil || items[0].Interaction.Command != "ls -la" {
		t.Fatalf("actions %+v", items)
	}
	cli(t, "sessions", "approve", items[0].Interaction.ID, "-w", ws).want(t, ExitOK)
	poll.Until(t, "the prompt to withdraw", func() bool {
		return strings.Contains(errb.String(), "approval "+items[0].Interaction.ID+" was answered elsewhere (by cli)")
	})
	poll.Until(t, "the question's prompt", func() bool { return strings.Contains(errb.String(), "asks: Which greeting") })
	if _, err := master.Write([]byte("\ny\n")); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != ExitOK {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("the run did not end:\n%s", errb.String())
	}
	if !strings.Contains(out.String(), `"summary"`) {
		t.Errorf("result %q", out.String())
	}
}
