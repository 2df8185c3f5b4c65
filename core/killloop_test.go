package core

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/sessions"
)

// TestChildStreamer is the child of TestKill9AtManyPoints (run only as a
// child): a demo session streams, runs commands and writes files, while
// the child steers it every few milliseconds and prints each steer the
// engine acknowledged.
func TestChildStreamer(t *testing.T) {
	ws := os.Getenv("ATELIER_STREAMER_WS")
	if ws == "" {
		t.Skip("helper process for TestKill9AtManyPoints")
	}
	demo := &harness.Demo{Pace: 200 * time.Microsecond, Wait: 20 * time.Millisecond}
	e, err := Open(ws, Options{Agents: DemoResolver{Demo: demo}})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := e.Create(CreateOptions{Agent: "demo", AutoStart: true, Approval: PolicyAuto, Mode: sessions.Continuous, Instructions: "go"})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("session %s\n", rec.ID)
	_, sub := e.Subscribe()
	go func() {
		for range sub.Ready() {
			for _, ev := range sub.Drain() {
				if ev.Kind == EvInteraction && ev.Interaction.Kind == sessions.Question && !ev.Interaction.Resolved {
					// Only keeps the session streaming until the kill; an
					// answer refused (the question already gone) is fine.
					_ = e.As("").Answer(rec.ID, ev.Interaction.ID, Answer{By: "child"})
				}
			}
		}
	}()
	for i := 0; ; i++ {
		text := fmt.Sprintf("steer-%d", i)
		if _, err := e.As("").Steer(rec.ID, text); err == nil {
			fmt.Printf("acked %s\n", text)
		}
		time.Sleep(3 * time.Millisecond)
	}
}

// TestKill9AtManyPoints kills a real child engine with SIGKILL at random
// moments of a streaming session, again and again, and reopens the
// workspace each time: every steer the child saw acknowledged is there
// exactly once (delivered or still queued), no message is duplicated, and
// no tool call is left without a result.
func TestKill9AtManyPoints(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	rounds := 8
	if testing.Short() {
		rounds = 3
	}
	for round := 0; round < rounds; round++ {
		ws := t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run=^TestChildStreamer$")
		cmd.Env = append(os.Environ(), "ATELIER_STREAMER_WS="+ws)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		out, _ := cmd.StdoutPipe()
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string, 1024)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		id := ""
		acked := map[string]bool{}
		deadline := time.After(time.Duration(20+rng.IntN(400)) * time.Millisecond)
		giveUp := time.After(20 * time.Second)
		killAt := false
	read:
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					break read
				}
				if f := strings.Fields(l); len(f) == 2 {
					switch f[0] {
					case "session":
						id = f[1]
						if killAt {
							break read
						}
					case "acked":
						acked[f[1]] = true
					}
				}
			case <-deadline:
				if id != "" {
					break read
				}
				killAt = true // kill as soon as the session exists
			case <-giveUp:
				// Failing anyway: the kill is cleanup, and Wait reports the
				// SIGKILL.
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				_ = cmd.Wait()
				t.Fatalf("round %d: the child printed no session within 20s; stderr:\n%s", round, stderr.String())
			}
		}
		// The child may have exited on its own already (then the transcript
		// below tells); Wait after a kill -9 reports the signal.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		for l := range lines { // what was printed before the kill counts too
			if f := strings.Fields(l); len(f) == 2 && f[0] == "acked" {
				acked[f[1]] = true
			}
		}
		if id == "" {
			t.Fatalf("round %d: the child never created its session", round)
		}

		e, err := Open(ws, Options{Passive: true})
		if err != nil {
			t.Fatal(err)
		}
		e.mu.Lock()
		e.live[id].recoverLocked() // what a running engine does at open, without running the turn
		e.mu.Unlock()
		msgs, _, err := e.Transcript(id)
		if err != nil {
			t.Fatal(err)
		}
		queue, _ := e.Queue(id)
		seen := map[string]int{}
		ids := map[string]bool{}
		for _, m := range msgs {
			if ids[m.ID] {
				t.Fatalf("round %d: message %s twice in the transcript", round, m.ID)
			}
			ids[m.ID] = true
			if m.Role == sessions.User {
				seen[m.Text()]++
			}
			for _, p := range m.Parts {
				if p.Tool == nil {
					continue
				}
				// A call may wait on its open interaction (an approval, a
				// question, a timer): the resumed turn picks it up.
				e.mu.Lock()
				waits := e.live[id].hasOpenCall(p.Tool.ID)
				e.mu.Unlock()
				if !p.Tool.State.Finished() && !waits {
					t.Fatalf("round %d: dangling tool call %+v", round, p.Tool)
				}
			}
		}
		for _, c := range queue {
			seen[c.Text]++
		}
		for s := range acked {
			if seen[s] != 1 {
				t.Fatalf("round %d: acknowledged %s found %d times (transcript %d messages, queue %d)", round, s, seen[s], len(msgs), len(queue))
			}
		}
		t.Logf("round %d: killed after %d acknowledged steers, %d messages", round, len(acked), len(msgs))
		if err := e.Close(); err != nil {
			t.Fatalf("round %d: close: %v", round, err)
		}
	}
}
