package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/engine"
	"github.com/atelier-studio/atelier/internal/poll"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/trigger"
)

// The tests of this file change the configuration under a running host
// (a detached `atelier serve` of the real binary) and check that it
// applies the change without a restart, or keeps what it had and says
// why.

// hostNotices follows the host's engine notices from now on.
func hostNotices(t *testing.T, socket string) <-chan string {
	t.Helper()
	c, err := client.New(socket, client.Options{Label: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	st, err := c.Events(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan string, 64)
	go func() {
		for ev := range st.C {
			if ev.Kind == engine.EvNotice && ev.SessionID == "" {
				out <- ev.Text
			}
		}
	}()
	return out
}

// awaitNotice waits for a notice containing each of want.
func awaitNotice(t *testing.T, notices <-chan string, want ...string) string {
	t.Helper()
	deadline := time.After(20 * time.Second)
	var seen []string
	for {
		select {
		case n := <-notices:
			seen = append(seen, n)
			all := true
			for _, w := range want {
				all = all && strings.Contains(n, w)
			}
			if all {
				return n
			}
		case <-deadline:
			t.Fatalf("no notice with %q in 20 s; saw %q", want, seen)
		}
	}
}

// TestBinaryHostArmsTriggerTrustedWhileRunning: a trigger written into
// .atelier.toml and trusted while the host runs arms without a restart:
// the host lists it, says so, and it fires on its event; `atelier config`
// says the host uses what the files say.
func TestBinaryHostArmsTriggerTrustedWhileRunning(t *testing.T) {
	b := newServeSandbox(t)
	st := b.detach()
	notices := hostNotices(t, st.Socket)

	writeFile(t, filepath.Join(b.ws, ".atelier.toml"), `[[triggers]]
name = "deployed"
on_event = "deploy"
agent = "quick"
prompt = "check the deploy"
`)
	b.run("trust", "--yes").want(t, ExitOK)
	awaitNotice(t, notices, "configuration reloaded", "trigger deployed armed")

	c, err := client.New(st.Socket, client.Options{Label: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := c.Triggers(context.Background())
	if err != nil || len(ts) != 1 || ts[0].Name != "deployed" {
		t.Fatalf("the host's triggers: %+v, %v", ts, err)
	}
	b.run("events", "fire", "deploy").want(t, ExitOK)
	poll.Until(t, "the trigger's session to start", func() bool { return len(firings(t, b.ws, "deployed", trigger.StateStarted)) == 1 })
	if now := b.hostStatus(); now.PID != st.PID {
		t.Fatalf("the host was restarted: process %d, then %d", st.PID, now.PID)
	}

	r := b.run("config").want(t, ExitOK)
	if !strings.Contains(r.out, "the running host (process ") || !strings.Contains(r.out, "it uses what the files say") ||
		!strings.Contains(r.out, "triggers.deployed") {
		t.Fatalf("atelier config:\n%s", r.out)
	}

	// A schedule arms too, but the host's idle exit was decided as it
	// started: the notice says so rather than promise a host that stays.
	writeFile(t, filepath.Join(b.ws, ".atelier.toml"), `[[triggers]]
name = "nightly"
schedule = "@every 1h"
agent = "quick"
prompt = "tidy"
`)
	b.run("trust", "--yes").want(t, ExitOK)
	awaitNotice(t, notices, "trigger nightly armed", "trigger deployed disarmed", "keeps the host up only once it restarts")
}

// TestBinaryHostKeepsConfigOnInvalidChange: a configuration that fails to
// load is refused with a notice naming the key; the host keeps working
// with the one it had (its agent still runs), and `atelier config` says
// so. A change the host cannot apply live is named as waiting for a
// restart. A workspace file changed after it was trusted is not applied,
// and the notice says to trust it.
func TestBinaryHostKeepsConfigOnInvalidChange(t *testing.T) {
	b := newServeSandbox(t)
	b.configure(quickAgent + `
[agents.x]
harness = "demo"
tools = ["read_file"]
`)
	st := b.detach()
	notices := hostNotices(t, st.Socket)

	b.configure(quickAgent + `
[agents.x]
harness = "demo"
tools = ["read_file"]
execution = "nowhere"
`)
	awaitNotice(t, notices, "kept the previous configuration: agents.x.execution: ")
	// A client of this build refuses to run with the broken file; the
	// host, asked directly, still runs agent x as it had it.
	c, err := client.New(st.Socket, client.Options{Label: "test"})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := c.Create(context.Background(), client.CreateRequest{Agent: "x", Instructions: "still here", AutoStart: true})
	if err != nil {
		t.Fatalf("the host refused a session of agent x: %v", err)
	}
	poll.Until(t, "agent x's session to end", func() bool {
		got, err := c.Session(context.Background(), sess.ID)
		return err == nil && got.Status == sessions.Ended
	})
	r := b.run("config").want(t, ExitUsage)
	if !strings.Contains(r.err, "agents.x.execution") || !strings.Contains(r.err, "it keeps the configuration it had") {
		t.Fatalf("atelier config with a broken file:\nstdout:\n%s\nstderr:\n%s", r.out, r.err)
	}

	// A live change and one that waits for a restart.
	b.configure(quickAgent + `
[agents.x]
harness = "demo"
tools = ["read_file"]
approval = "auto"

[engine]
workers = 2
`)
	awaitNotice(t, notices, "agents.x.approval from each session's next turn", "engine.workers applies when the host restarts")
	r = b.run("config").want(t, ExitOK)
	if !strings.Contains(r.out, "the host has not applied:\n  engine.workers: applies when the host restarts") || strings.Contains(r.out, "agents.x.approval") && strings.Contains(r.out, "(the host uses") {
		t.Fatalf("atelier config after a change:\n%s", r.out)
	}

	// A trusted workspace file edited, not trusted again.
	ws := filepath.Join(b.ws, ".atelier.toml")
	writeFile(t, ws, "[agents.x]\nmodel = \"m1\"\n")
	b.run("trust", "--yes").want(t, ExitOK)
	awaitNotice(t, notices, "agents.x.model from each session's next turn")
	writeFile(t, ws, "[agents.x]\nmodel = \"m2\"\n")
	awaitNotice(t, notices, "kept the previous configuration:", "changed since it was trusted", "atelier trust")
	r = b.run("config").want(t, ExitOK)
	if !strings.Contains(r.out, "atelier trust") {
		t.Fatalf("atelier config after an untrusted change:\n%s", r.out)
	}
}
