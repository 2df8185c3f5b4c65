package host

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/internal/poll"
	"github.com/atelier-studio/atelier/sessions"
)

// demoEngine opens a workspace's engine with the demo agent at the given
// pace (its steps stream word by word, so a kill can land before a step's
// first word, mid-stream or while the turn waits on the operator).
func demoEngine(ws string, pace time.Duration) (*core.Engine, error) {
	demo := &harness.Demo{Pace: pace, Wait: 50 * time.Millisecond}
	return core.Open(ws, core.Options{NoHistory: true, Agents: core.DemoResolver{Demo: demo}})
}

// answerOpen answers every open interaction of a session: approvals
// allowed once, questions with their default. An answer refused because
// the interaction just closed is fine (the caller only keeps the turn
// going); any other refusal is returned.
func answerOpen(e *core.Engine, id string) error {
	for _, o := range e.Snapshot().Interactions {
		if o.SessionID != id {
			continue
		}
		a := core.Answer{By: "test"}
		if o.Kind == sessions.Approval {
			a.Decision = sessions.AllowOnce
		}
		err := e.As("").Answer(id, o.ID, a)
		if err != nil && !errors.Is(err, core.ErrResolved) && !errors.Is(err, core.ErrUnknownInteraction) {
			return fmt.Errorf("answer %s %s of session %s: %w", o.Kind, o.ID, id, err)
		}
	}
	return nil
}

// TestChildDemoHost is the child of TestKill9MidTurnRecovers (run only as
// a child): a real host on the workspace whose engine runs a demo session,
// answering its approvals and question after a moment, until it is killed.
func TestChildDemoHost(t *testing.T) {
	ws := os.Getenv("ATELIER_DEMOHOST_WS")
	if ws == "" {
		t.Skip("helper process for TestKill9MidTurnRecovers")
	}
	// The session is made once the host serves, its records written: the
	// test reads the dead host's record.
	opened, ready := make(chan *core.Engine, 1), make(chan struct{})
	go func() {
		<-ready
		e := <-opened
		rec, err := e.Create(core.CreateOptions{Agent: "demo", AutoStart: true, Instructions: "write a note"})
		if err != nil {
			fmt.Printf("create: %v\n", err)
			return
		}
		fmt.Printf("session %s\n", rec.ID)
		for {
			time.Sleep(60 * time.Millisecond) // the turn waits a while on each
			if err := answerOpen(e, rec.ID); err != nil {
				fmt.Printf("%v\n", err) // the parent shows the child's output
			}
		}
	}()
	err := Run(context.Background(), Options{Workspace: ws, IdleExit: -1, Ready: func(Record) { close(ready) },
		Open: func(ws string) (*core.Engine, error) {
			e, err := demoEngine(ws, 8*time.Millisecond)
			if err == nil {
				opened <- e
			}
			return e, err
		}})
	t.Fatalf("the host returned: %v", err)
}

// TestKill9MidTurnRecovers kills a real host (SIGKILL) at a random moment
// of its demo session's turn, and has the next host recover it and finish
// the turn. Then nothing is lost or run twice, and the audit log says
// what happened once: the turn's start once, one recover line naming the
// dead host (its pid, as its host record gives it) and the step resumed,
// no line twice; and the transcript keeps no empty reply. The kill lands
// anywhere (before a step's first word, mid-stream, while the turn waits
// on an approval or the question), so run it many times (-count).
func TestKill9MidTurnRecovers(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", shortDir(t))
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 31))
	rounds := 3
	if testing.Short() {
		rounds = 1
	}
	for round := range rounds {
		// The demo's turn lasts about a second here; a kill
		// that comes after its end is tried again sooner.
		killAfter := time.Duration(rng.IntN(1000)) * time.Millisecond
		t.Run(fmt.Sprintf("round%d", round), func(t *testing.T) {
			for {
				st := killAndRecover(t, killAfter)
				switch st {
				case sessions.Running:
					return
				case sessions.Ended:
					killAfter /= 2
				default: // killed before the turn started
					killAfter += 20 * time.Millisecond
				}
				t.Logf("the kill found the session %s: again, killed after %s", st, killAfter)
			}
		})
	}
}

// killAndRecover is one round of TestKill9MidTurnRecovers. It returns the
// status the kill left the session in: only a RUNNING one is recovered
// and checked.
func killAndRecover(t *testing.T, killAfter time.Duration) sessions.Status {
	ws := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildDemoHost$")
	cmd.Env = append(os.Environ(), "ATELIER_DEMOHOST_WS="+ws)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Ends a child left by a failure below; after the kill it is gone, and
	// Wait reports the SIGKILL.
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	id, printed := "", ""
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		printed += sc.Text() + "\n"
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "session" {
			id = f[1]
			break
		}
	}
	if id == "" {
		t.Fatalf("the child host made no session:\n%s%s", printed, stderr.String())
	}
	time.Sleep(killAfter)
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait() // reports the SIGKILL just sent
	dead, err := readRecord(engineFile(ws))
	if err != nil || dead.PID != cmd.Process.Pid {
		t.Fatalf("the dead host's record: %+v, %v; want pid %d", dead, err, cmd.Process.Pid)
	}
	st, err := sessions.Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	before, err := st.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	if before.Session.Status != sessions.Running {
		return before.Session.Status
	}

	var e *core.Engine
	h := runHost(t, Options{Workspace: ws, IdleExit: -1, Open: func(ws string) (*core.Engine, error) {
		var err error
		e, err = demoEngine(ws, 0)
		return e, err
	}})
	poll.Until(t, "the recovered turn to end", func() bool {
		if err := answerOpen(e, id); err != nil {
			t.Error(err)
		}
		rec, err := e.Session(id)
		return err == nil && rec.Status == sessions.Ended
	})
	if rec, _ := e.Session(id); rec.EndReason != sessions.Completed {
		t.Errorf("the session ended %s (%s), want completed", rec.EndReason, rec.Error)
	}
	h.cancel()
	if err := h.wait(t, 30*time.Second); err != nil {
		t.Fatalf("the recovering host: %v", err)
	}

	msgs, _, err := st.Log(id).Messages()
	if err != nil {
		t.Fatal(err)
	}
	assistant := checkTranscript(t, msgs)
	resumedNotes := 0
	for _, m := range msgs {
		if m.Role == sessions.Notice && strings.HasPrefix(m.Text(), "↻ resumed: the engine that ran it stopped mid-turn") {
			resumedNotes++
		}
	}
	if resumedNotes != 1 {
		t.Errorf("%d notices say where the turn resumed, want 1", resumedNotes)
	}
	rc := checkAudit(t, ws, id, dead.PID)
	if rc.Data.Step > assistant {
		t.Errorf("the recover line resumes step %d of a turn with %d replies", rc.Data.Step, assistant)
	}
	t.Logf("killed after %s: resumed at step %d (call %q), dropped %v", killAfter, rc.Data.Step, rc.Data.Call, rc.Data.Dropped)
	return sessions.Running
}

// checkTranscript fails on an empty reply, a message twice or a tool call
// run twice, and returns how many replies the transcript has.
func checkTranscript(t *testing.T, msgs []sessions.Message) int {
	t.Helper()
	ids, calls, replies := map[string]bool{}, map[string]bool{}, 0
	for _, m := range msgs {
		if ids[m.ID] {
			t.Errorf("message %s twice", m.ID)
		}
		ids[m.ID] = true
		if m.Role != sessions.Assistant {
			continue
		}
		replies++
		empty := true
		for _, p := range m.Parts {
			if p.Tool != nil {
				if calls[p.Tool.ID] {
					t.Errorf("tool call %s twice", p.Tool.ID)
				}
				calls[p.Tool.ID] = true
			}
			if p.Tool != nil || p.Text != "" {
				empty = false
			}
		}
		if empty {
			t.Errorf("empty reply %s kept in the transcript: %+v", m.ID, m)
		}
	}
	return replies
}

// recoverLine is a recover line of turns.jsonl, as a reader of the file
// sees it.
type recoverLine struct {
	Kind string `json:"kind"`
	Host *struct {
		PID int `json:"pid"`
	} `json:"host"`
	Data struct {
		From *struct {
			PID int `json:"pid"`
		} `json:"from"`
		Step    int      `json:"step"`
		Call    string   `json:"call"`
		Dropped []string `json:"dropped"`
	} `json:"data"`
}

// checkAudit fails unless the session's audit log has no line twice, one
// start, and one recover line naming the dead host and this process as
// the one that resumed; it returns the recover line.
func checkAudit(t *testing.T, ws, id string, dead int) recoverLine {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ws, sessions.StateDir, "sessions", id, sessions.TurnsFile))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	kinds := map[string]int{}
	var rc recoverLine
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		if seen[string(line)] {
			t.Errorf("turns.jsonl has this line twice: %s", line)
		}
		seen[string(line)] = true
		var l recoverLine
		if err := json.Unmarshal(line, &l); err != nil {
			t.Fatalf("turns.jsonl line %s: %v", line, err)
		}
		kinds[l.Kind]++
		if l.Kind == "recover" {
			rc = l
		}
	}
	if kinds["start"] != 1 || kinds["recover"] != 1 || kinds["complete"] != 1 {
		t.Errorf("turns.jsonl has %v, want one start, one recover, one complete:\n%s", kinds, b)
	}
	if rc.Data.From == nil || rc.Data.From.PID != dead || rc.Host == nil || rc.Host.PID != os.Getpid() {
		t.Errorf("the recover line names %+v as the dead host and %+v as the next, want pids %d and %d:\n%s",
			rc.Data.From, rc.Host, dead, os.Getpid(), b)
	}
	return rc
}
