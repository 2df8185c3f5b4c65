package cli

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/sessions"
)

// onTerminal runs a command whose stdin is a real terminal (a pty) on which
// the operator has typed input.
func onTerminal(t *testing.T, input string, args ...string) result {
	t.Helper()
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
	go func() {
		// The terminal's echo, until the pty closes: that end is a read
		// error by design, with nobody left to report it to.
		_, _ = io.Copy(io.Discard, master)
	}()
	if _, err := master.Write([]byte(input)); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	s := &streams{in: slave, out: &out, err: &errb, env: env{getenv: os.Getenv},
		demo: &harness.Demo{Wait: 20 * time.Millisecond}}
	return result{execute(s, args), out.String(), errb.String()}
}

// TestApproveAskOnATerminal: run --approve ask prompts on the terminal and
// takes the operator's answers: a denial, an allow for the session, a
// question's default.
func TestApproveAskOnATerminal(t *testing.T) {
	isolate(t)
	ws := t.TempDir()
	r := onTerminal(t, "n\n\ns\n", "run", "-w", ws, "write a hello note").want(t, ExitOK)
	for _, want := range []string{"wants to exec ls -la. Allow?", "wants to write_file atelier-demo.md", "asks: Which greeting"} {
		if !strings.Contains(r.err, want) {
			t.Errorf("the terminal was not asked %q:\n%s", want, r.err)
		}
	}
	if !strings.Contains(r.out, "exec") || !strings.Contains(r.out, "→ denied") {
		t.Errorf("the denial does not show:\n%s", r.out)
	}
	id := readSessions(ws)[0].ID
	g := cli(t, "sessions", "grants", id, "-w", ws).want(t, ExitOK)
	if strings.TrimSpace(g.out) != "write_file\tevery write_file call" {
		t.Errorf("grants after [s]ession: %q", g.out)
	}
}

// TestApprovePrefixOnATerminal: a command's prompt offers the commands
// starting with its leading words; p takes them, and the grant is of them.
func TestApprovePrefixOnATerminal(t *testing.T) {
	isolate(t)
	ws := t.TempDir()
	r := onTerminal(t, "p\n\ns\n", "run", "-w", ws, "write a hello note").want(t, ExitOK)
	if !strings.Contains(r.err, "wants to exec ls -la. Allow? [y]es once / [s]ession: this command / [p]refix: commands starting with `ls` / [n]o") {
		t.Errorf("the prompt does not offer the prefix:\n%s", r.err)
	}
	id := readSessions(ws)[0].ID
	g := cli(t, "sessions", "grants", id, "-w", ws).want(t, ExitOK)
	if got := strings.Split(strings.TrimSpace(g.out), "\n"); len(got) != 2 || got[0] != "exec:ls:*\tcommands starting with `ls`" {
		t.Errorf("grants after [p]refix: %q", g.out)
	}
}

// TestCancelAsksOnATerminal: cancel asks first on a terminal; no leaves the
// session alone.
func TestCancelAsksOnATerminal(t *testing.T) {
	isolate(t)
	ws := t.TempDir()
	rec := jsonOut[sessions.Session](t, cli(t, "sessions", "create", "-w", ws, "--no-start", "--json", "a task"))
	r := onTerminal(t, "n\n", "sessions", "cancel", rec.ID, "-w", ws).want(t, ExitFailed)
	if !strings.Contains(r.err, "cannot be undone") || record(t, ws, rec.ID).Status != sessions.Created {
		t.Fatalf("cancel answered no: %s, %s", r.err, record(t, ws, rec.ID).Status)
	}
	onTerminal(t, "y\n", "sessions", "cancel", rec.ID, "-w", ws).want(t, ExitOK)
	if got := record(t, ws, rec.ID); got.Status != sessions.Ended {
		t.Fatalf("cancel answered yes: %s", got.Status)
	}
}
