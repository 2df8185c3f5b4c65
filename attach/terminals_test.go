package attach

import (
	"testing"
	"time"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/terminal"
)

// TestShellWaitsForAStartingHost: a terminal asked for before the host
// listens (the studio starts it in the background) opens once it does,
// instead of failing.
func TestShellWaitsForAStartingHost(t *testing.T) {
	ws, sock := t.TempDir(), socketPath(t)
	r := NewRemote(RemoteOptions{Workspace: ws, Client: newClient(t, sock)})
	defer r.Close()
	type opened struct {
		p   terminal.PTY
		err error
	}
	done := make(chan opened, 1)
	go func() {
		p, err := r.Shell(ctxFor(t, 20*time.Second), "", "shell", terminal.Size{Cols: 80, Rows: 24}, []string{"sh", "-c", "echo up; sleep 5"})
		done <- opened{p, err}
	}()
	time.Sleep(400 * time.Millisecond)
	select {
	case o := <-done:
		t.Fatalf("the shell returned before any host listened: %v", o.err)
	default:
	}
	host := serve(t, ws, sock)
	t.Cleanup(func() { host.stop(t) })
	o := <-done
	if o.err != nil {
		t.Fatalf("the shell did not open once the host listened: %v", o.err)
	}
	if err := o.p.Close(); err != nil {
		t.Error(err)
	}
}

// TestCreateWaitsForAStartingHost: a session created before the host
// listens (a quick operator in a studio whose host still starts) is made
// once it does, instead of failing with an error that fades.
func TestCreateWaitsForAStartingHost(t *testing.T) {
	ws, sock := t.TempDir(), socketPath(t)
	r := NewRemote(RemoteOptions{Workspace: ws, Client: newClient(t, sock)})
	defer r.Close()
	type created struct {
		rec sessions.Session
		err error
	}
	done := make(chan created, 1)
	go func() {
		rec, err := r.Create(core.CreateOptions{Title: "early", Instructions: "x"})
		done <- created{rec, err}
	}()
	time.Sleep(400 * time.Millisecond)
	select {
	case c := <-done:
		t.Fatalf("the create returned before any host listened: %+v %v", c.rec, c.err)
	default:
	}
	host := serve(t, ws, sock)
	t.Cleanup(func() { host.stop(t) })
	c := <-done
	if c.err != nil || c.rec.Title != "early" {
		t.Fatalf("the create did not go through once the host listened: %+v %v", c.rec, c.err)
	}
}
