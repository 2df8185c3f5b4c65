package core

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/sessions"
)

// auditLine is a line of turns.jsonl as a reader of the file sees it.
type auditLine struct {
	Turn   int    `json:"turn"`
	Kind   string `json:"kind"`
	Reason string `json:"reason"`
	Host   *struct {
		PID    int    `json:"pid"`
		Engine string `json:"engine"`
	} `json:"host"`
	Data struct {
		From *struct {
			PID    int    `json:"pid"`
			Engine string `json:"engine"`
		} `json:"from"`
		Step        int      `json:"step"`
		Call        string   `json:"call"`
		Interaction string   `json:"interaction"`
		Dropped     []string `json:"dropped"`
	} `json:"data"`
}

// readAudit reads a session's turns.jsonl and fails the test on a line
// written twice.
func readAudit(t *testing.T, ws, id string) []auditLine {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ws, sessions.StateDir, "sessions", id, sessions.TurnsFile))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var out []auditLine
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		if seen[string(line)] {
			t.Errorf("turns.jsonl has this line twice: %s", line)
		}
		seen[string(line)] = true
		var a auditLine
		if err := json.Unmarshal(line, &a); err != nil {
			t.Fatalf("turns.jsonl line %s: %v", line, err)
		}
		out = append(out, a)
	}
	return out
}

// ofKind returns the audit lines of one kind.
func ofKind(lines []auditLine, kind string) []auditLine {
	var out []auditLine
	for _, l := range lines {
		if l.Kind == kind {
			out = append(out, l)
		}
	}
	return out
}

// TestChildCutTurn is the child of TestRecoverAfterKill9 (run only as a
// child): its session's turn reaches the point ATELIER_CUT_AT names, it
// says "ready" with the session's id, and it waits to be killed.
func TestChildCutTurn(t *testing.T) {
	ws, at := os.Getenv("ATELIER_CUT_WS"), os.Getenv("ATELIER_CUT_AT")
	if ws == "" {
		t.Skip("helper process for TestRecoverAfterKill9")
	}
	var m *scripted.Model
	switch at {
	case "output":
		// The step's reply is opened, and the model sends nothing.
		m = &scripted.Model{Script: []scripted.Step{{Gate: make(chan struct{})}}}
	case "approval":
		m = &scripted.Model{Script: []scripted.Step{{Text: "listing",
			Calls: []harness.ToolCall{toolCall("c1", "exec", map[string]any{"command": "echo ran >> ran.txt"})}}}}
	case "slot":
		childWaitingForSlot(t, ws)
		return
	default:
		t.Fatalf("ATELIER_CUT_AT=%q", at)
	}
	r := openRig(t, ws, MapResolver{"a": m})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Approval: PolicyAsk, Instructions: "go"}).ID
	switch at {
	case "output":
		r.until("the reply opened", func(ev Event) bool {
			return ev.Kind == EvMessage && ev.Message.Role == sessions.Assistant
		})
	case "approval":
		r.interaction(id, sessions.Approval)
		r.sub2(id, sessions.Parked)
		for len(ofKind(readAudit(t, ws, id), "yield")) == 0 {
			time.Sleep(5 * time.Millisecond)
		}
	}
	if _, err := os.Stdout.WriteString("ready " + id + "\n"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Minute)
}

// TestRecoverAfterKill9: an engine killed (SIGKILL) mid-turn, with its
// step's reply opened and nothing in it, or parked on an approval (which
// the operator answers before the resumed turn reaches it again, or
// after), is recovered by the next one; once the turn has finished, the
// audit log has the turn's start once, one recover line naming the dead
// process and the step resumed, the approval's yield and resume once each
// and no line twice, and the transcript has no empty reply.
func TestRecoverAfterKill9(t *testing.T) {
	for _, tc := range []struct {
		name, at string
		waits    bool // the answer comes once the resumed turn waits on it
	}{{"output", "output", false}, {"approval", "approval", false}, {"approval-waiting", "approval", true}} {
		at := tc.at
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^TestChildCutTurn$", "-test.v")
			cmd.Env = append(os.Environ(), "ATELIER_CUT_WS="+ws, "ATELIER_CUT_AT="+at)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			id, seen := "", ""
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				seen += sc.Text() + "\n"
				if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "ready" {
					id = f[1]
					break
				}
			}
			// Wait reports the SIGKILL: the kill is the point.
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			_ = cmd.Wait()
			if id == "" {
				t.Fatalf("the child never got ready:\n%s", seen)
			}
			dead := cmd.Process.Pid

			m := &scripted.Model{Script: []scripted.Step{{Text: "resumed"}}}
			r := openRig(t, ws, MapResolver{"a": m})
			if at == "approval" {
				var it sessions.Interaction
				for _, o := range r.e.Snapshot().Interactions {
					if o.SessionID == id && o.Kind == sessions.Approval {
						it = o.Interaction
					}
				}
				if it.ID == "" {
					t.Fatal("the approval is not open after the restart")
				}
				if tc.waits {
					r.waitTaken(id, it.ID)
				}
				if err := r.e.As("").Answer(id, it.ID, Answer{Decision: sessions.AllowOnce, By: "test"}); err != nil {
					t.Fatal(err)
				}
			}
			r.status(id, sessions.Ended)

			lines := readAudit(t, ws, id)
			starts, recovers := ofKind(lines, "start"), ofKind(lines, "recover")
			if len(starts) != 1 || len(recovers) != 1 || len(ofKind(lines, "complete")) != 1 {
				t.Fatalf("want one start, one recover, one complete; turns.jsonl: %+v", lines)
			}
			rc := recovers[0]
			switch {
			case starts[0].Host == nil || starts[0].Host.PID != dead:
				t.Errorf("the start line names %+v, want the child's pid %d", starts[0].Host, dead)
			case rc.Reason != "crash" || rc.Data.From == nil || rc.Data.From.PID != dead || rc.Data.From.Engine != starts[0].Host.Engine:
				t.Errorf("the recover line says %+v from %+v, want a crash of pid %d (engine %s)", rc, rc.Data.From, dead, starts[0].Host.Engine)
			case rc.Host == nil || rc.Host.PID != os.Getpid() || rc.Host.Engine == starts[0].Host.Engine:
				t.Errorf("the recover line names %+v as the engine that resumed, want this process %d", rc.Host, os.Getpid())
			case rc.Data.Step != 0:
				t.Errorf("the recover line resumes step %d, want 0", rc.Data.Step)
			}

			msgs, _, err := r.e.store.Log(id).Messages()
			if err != nil {
				t.Fatal(err)
			}
			for _, msg := range msgs {
				if msg.Role == sessions.Assistant && len(msg.Parts) == 0 {
					t.Errorf("empty reply %s left in the transcript: %+v", msg.ID, msgs)
				}
			}
			if last := msgs[len(msgs)-1]; last.Text() != "resumed" {
				t.Errorf("the transcript ends with %+v, want the resumed reply", last)
			}

			switch at {
			case "output":
				if len(rc.Data.Dropped) != 1 {
					t.Errorf("the recover line drops %v, want the cut reply", rc.Data.Dropped)
				}
			case "approval":
				yields := ofKind(lines, "yield")
				if len(yields) != 1 || len(ofKind(lines, "resume")) != 1 {
					t.Errorf("want the approval's yield and resume once each: %+v", lines)
				}
				if rc.Data.Call != "c1" || rc.Data.Interaction == "" {
					t.Errorf("the recover line names call %q, interaction %q: want c1 and its approval", rc.Data.Call, rc.Data.Interaction)
				}
				if b, err := os.ReadFile(filepath.Join(ws, "ran.txt")); err != nil || string(b) != "ran\n" {
					t.Errorf("the approved command ran %q (%v), want once", b, err)
				}
			}
		})
	}
}

// waitTaken waits until a turn waits on an open interaction.
func (r *rig) waitTaken(id, itID string) {
	r.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		r.e.mu.Lock()
		w := r.e.live[id].open[itID]
		taken := false
		if w != nil {
			select {
			case <-w.taken:
				taken = true
			default:
			}
		}
		r.e.mu.Unlock()
		if taken {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("no turn waits on interaction %s", itID)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestQuitHandOverIsOneRecover: an engine that quits while its turn waits
// on an approval hands the turn over (a yield without a reason); the next
// engine's audit lines for it are one recover line ("quit", naming the
// first engine) and the approval's resume, never a second start or yield.
func TestQuitHandOverIsOneRecover(t *testing.T) {
	ws := t.TempDir()
	m := &scripted.Model{Script: []scripted.Step{{Text: "listing",
		Calls: []harness.ToolCall{toolCall("c1", "exec", map[string]any{"command": "echo ran >> ran.txt"})}}}}
	r := openRig(t, ws, MapResolver{"a": m})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Approval: PolicyAsk, Instructions: "go"}).ID
	it := r.interaction(id, sessions.Approval)
	first := r.e.owner
	if err := r.e.Close(); err != nil {
		t.Fatal(err)
	}

	r = openRig(t, ws, MapResolver{"a": &scripted.Model{Script: []scripted.Step{{Text: "resumed"}}}})
	r.waitTaken(id, it.ID)
	if err := r.e.As("").Answer(id, it.ID, Answer{Decision: sessions.AllowOnce, By: "test"}); err != nil {
		t.Fatal(err)
	}
	r.status(id, sessions.Ended)
	lines := readAudit(t, ws, id)
	var kinds []string
	for _, l := range lines {
		kinds = append(kinds, l.Kind+"/"+l.Reason)
	}
	want := "start/ yield/approval yield/ recover/quit resume/approval complete/end"
	if got := strings.Join(kinds, " "); got != want {
		t.Fatalf("turns.jsonl: %s, want %s", got, want)
	}
	rc := ofKind(lines, "recover")[0]
	if rc.Data.From == nil || rc.Data.From.Engine != first || rc.Host == nil || rc.Host.Engine != r.e.owner || rc.Data.Call != "c1" {
		t.Errorf("the recover line: from %+v, host %+v, call %q; want engine %s, then %s, call c1", rc.Data.From, rc.Host, rc.Data.Call, first, r.e.owner)
	}
}

// childWaitingForSlot is TestChildCutTurn at "slot": with one worker, a
// first session's turn holds it, streaming, and a second one's turn waits
// for it (RUNNING, its start not logged); it says "ready" with both ids.
func childWaitingForSlot(t *testing.T, ws string) {
	e, err := Open(ws, Options{Agents: MapResolver{"a": &scripted.Model{Script: []scripted.Step{
		{Text: "working", Gate: make(chan struct{})}, {Text: "never reached"}}}}, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, sub := e.Subscribe()
	r := &rig{t: t, ws: ws, e: e, sub: sub}
	a := r.create(CreateOptions{Agent: "a", AutoStart: true, Approval: PolicyAuto, Instructions: "go"}).ID
	r.streaming(a)
	b := r.create(CreateOptions{Agent: "a", AutoStart: true, Approval: PolicyAuto, Instructions: "go"}).ID
	r.status(b, sessions.Running)
	if _, err := os.Stdout.WriteString("ready " + a + " " + b + "\n"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Minute)
}

// TestRecoverBeforeStart: a turn whose engine was killed while it waited
// for a worker had no start line yet; the next engine's recover line names
// the dead engine all the same (from the workspace's lease), and the turn
// then logs its one start.
func TestRecoverBeforeStart(t *testing.T) {
	ws := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildCutTurn$", "-test.v")
	cmd.Env = append(os.Environ(), "ATELIER_CUT_WS="+ws, "ATELIER_CUT_AT=slot")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var ids []string
	seen := ""
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		seen += sc.Text() + "\n"
		if f := strings.Fields(sc.Text()); len(f) == 3 && f[0] == "ready" {
			ids = f[1:]
			break
		}
	}
	// Wait reports the SIGKILL: the kill is the point.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Wait()
	if ids == nil {
		t.Fatalf("the child never got ready:\n%s", seen)
	}
	r := openRig(t, ws, MapResolver{"a": &scripted.Model{}})
	r.status(ids[0], sessions.Ended)
	r.status(ids[1], sessions.Ended)
	first := ofKind(readAudit(t, ws, ids[0]), "start")
	lines := readAudit(t, ws, ids[1])
	var kinds []string
	for _, l := range lines {
		kinds = append(kinds, l.Kind+"/"+l.Reason)
	}
	if got, want := strings.Join(kinds, " "), "recover/crash start/ complete/end"; got != want {
		t.Fatalf("the waiting session's turns.jsonl: %s, want %s", got, want)
	}
	rc := lines[0]
	if len(first) != 1 || first[0].Host == nil || rc.Data.From == nil ||
		rc.Data.From.PID != cmd.Process.Pid || rc.Data.From.Engine != first[0].Host.Engine || rc.Data.Step != 0 {
		t.Errorf("the recover line names %+v, want the dead engine (pid %d) that started %+v", rc.Data.From, cmd.Process.Pid, first)
	}
}

// TestQuitBeforeFirstOutput: an engine that quits while its step's reply
// is opened and empty leaves no empty reply behind; the next engine's
// resumed step answers in a message of its own.
func TestQuitBeforeFirstOutput(t *testing.T) {
	ws := t.TempDir()
	r := openRig(t, ws, MapResolver{"a": &scripted.Model{Script: []scripted.Step{{Gate: make(chan struct{})}}}})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Approval: PolicyAuto, Instructions: "go"}).ID
	r.until("the reply opened", func(ev Event) bool {
		return ev.Kind == EvMessage && ev.Message.Role == sessions.Assistant
	})
	if err := r.e.Close(); err != nil {
		t.Fatal(err)
	}
	r = openRig(t, ws, MapResolver{"a": &scripted.Model{Script: []scripted.Step{{Text: "resumed"}}}})
	r.status(id, sessions.Ended)
	msgs, _, err := r.e.store.Log(id).Messages()
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, m := range msgs {
		roles = append(roles, string(m.Role)+":"+m.Text())
	}
	// No empty reply is kept; the transcript says where the turn resumed
	// and why, so the agent's next words answer no unseen prompt.
	resumed := "notice:↻ resumed: it was handed over when the studio running it quit; the agent goes on where it left off, asked to continue, with no new prompt"
	if got, want := strings.Join(roles, " "), "user:go "+resumed+" assistant:resumed"; got != want {
		t.Fatalf("transcript %s, want %s", got, want)
	}
}
