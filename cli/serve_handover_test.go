package cli

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/atelier-studio/atelier/internal/poll"
)

// openStudio runs the real studio on the sandbox's workspace, on a pty,
// until the test ends, and returns once the host it starts answers.
func (b *sandbox) openStudio() {
	b.t.Helper()
	cmd := exec.Command(b.bin, b.ws)
	cmd.Dir, cmd.Env = b.ws, append(append([]string{}, b.env...), "TERM=xterm-256color")
	master, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		b.t.Skipf("no pty: %v", err)
	}
	go func() {
		// The studio's frames, until the pty closes: a read error then, by
		// design, with nobody to report it to.
		_, _ = io.Copy(io.Discard, master)
	}()
	b.t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGKILL) // the studio this test started
		_ = cmd.Wait()                          // killed: its error says so
		if err := master.Close(); err != nil {
			b.t.Error(err)
		}
	})
	poll.Until(b.t, "the studio's host", func() bool { return b.hostPID() != 0 })
}

// TestServeListenWithAStudioOpen: with a studio open (which started a
// plain host), `serve --listen` refuses before it makes or prints a
// token, saying to use --restart; `serve --restart --listen` hands the
// workspace over quickly, and the studio does not take it back with a
// plain host of its own.
func TestServeListenWithAStudioOpen(t *testing.T) {
	t.Parallel()
	b := newServeSandbox(t)
	b.openStudio()
	first := b.hostStatus()
	addr := loopbackAddr(t)

	r := b.run("serve", "--listen", addr).want(t, ExitFailed)
	if !strings.Contains(r.err, "already hosted by process") || !strings.Contains(r.err, "`atelier serve --restart --listen "+addr+"`") ||
		strings.Contains(r.err, "token") {
		t.Errorf("serve --listen with a host running says:\n%s", r.err)
	}
	if _, err := os.Lstat(filepath.Join(filepath.Dir(b.config), "token")); !errors.Is(err, os.ErrNotExist) {
		t.Error("the refused serve --listen made a token")
	}
	if st := b.hostStatus(); st.PID != first.PID {
		t.Fatalf("the refusal changed the host: %+v, want pid %d", st, first.PID)
	}

	began := time.Now()
	r = b.run("serve", "--restart", "--listen", addr).want(t, ExitOK)
	took := time.Since(began)
	if m := tokenLine.FindStringSubmatch(r.err); m == nil {
		t.Errorf("serve --restart --listen printed no token:\n%s", r.err)
	}
	if took > 15*time.Second {
		t.Errorf("serve --restart --listen took %s", took)
	}
	t.Logf("serve --restart --listen with a studio open took %s", took)
	// The studio reattaches to the successor; it never starts its own.
	time.Sleep(time.Second)
	st := b.run("serve", "--status").want(t, ExitOK)
	second := b.hostStatus()
	if second.PID == first.PID || !strings.Contains(st.out, "listening on TCP: "+addr) {
		t.Fatalf("after the hand-over (first host %d):\n%s", first.PID, st.out)
	}
}
