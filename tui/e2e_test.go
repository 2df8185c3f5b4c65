package tui

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/internal/testreq"
)

// moduleRoot is the folder of go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}

// buildStudio builds the real binary, the module's main package.
func buildStudio(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "atelier")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = moduleRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the atelier binary: %v\n%s", err, out)
	}
	return bin
}

// tmux drives one private tmux server.
type tmux struct {
	t      *testing.T
	bin    string
	socket string
}

func (x *tmux) run(args ...string) string {
	x.t.Helper()
	out, err := exec.Command(x.bin, append([]string{"-L", x.socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		x.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// killServer ends the test's tmux server. It may be gone already with its
// last session, and kill-server then fails with "no server running": either
// way it is gone, so the error says nothing.
func (x *tmux) killServer() {
	_ = exec.Command(x.bin, "-L", x.socket, "kill-server").Run()
}

func (x *tmux) screen() string { return x.run("capture-pane", "-p", "-t", "studio") }

func (x *tmux) waitFor(what string, cond func(string) bool) string {
	x.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := x.screen()
		if cond(s) {
			return s
		}
		if time.Now().After(deadline) {
			x.t.Fatalf("timed out waiting for %s; screen:\n%s", what, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (x *tmux) keys(keys ...string) { x.run(append([]string{"send-keys", "-t", "studio"}, keys...)...) }

// newE2E starts a private tmux server at 120x40 with a plain shell, builds
// the binary and makes a workspace whose engine host (if a studio starts
// one) is stopped with the test.
func newE2E(t *testing.T, name string) (x *tmux, bin, ws string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	tm := testreq.Binary(t, "tmux", "tmux")
	bin = buildStudio(t)
	ws = t.TempDir()
	stopHost(t, bin, ws)
	x = &tmux{t: t, bin: tm, socket: fmt.Sprintf("atelier-e2e-%s-%d", name, os.Getpid())}
	x.run("new-session", "-d", "-s", "studio", "-x", "120", "-y", "40", "sh")
	t.Cleanup(x.killServer)
	x.keys("PS1='$ '; export PS1; export SHELL=/bin/sh", "Enter")
	return x, bin, ws
}

// stopHost stops the workspace's engine host the studio started, at the
// end of the test (a host that already stopped is no error).
func stopHost(t *testing.T, bin, ws string) {
	t.Cleanup(func() {
		if out, err := exec.Command(bin, "serve", "--stop", ws).CombinedOutput(); err != nil {
			t.Errorf("atelier serve --stop: %v\n%s", err, out)
		}
	})
}

// finishWithoutStudio answers, through the command line, what the demo
// session asks until it ends: the host runs it with no studio open.
func finishWithoutStudio(t *testing.T, bin, ws string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		out, err := exec.Command(bin, "sessions", "-w", ws, "--json").Output()
		if err != nil {
			t.Fatalf("atelier sessions: %v", err)
		}
		if strings.Contains(string(out), `"ENDED"`) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the session did not end without a studio:\n%s", out)
		}
		for _, it := range pendingActions(t, bin, ws) {
			var args []string
			switch it.Kind {
			case "approval":
				args = []string{"sessions", "approve", it.Interaction.ID, "-w", ws}
			case "question":
				args = []string{"sessions", "answer", it.Interaction.ID, "hello", "-w", ws}
			default:
				continue
			}
			if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
				t.Fatalf("atelier %v: %v\n%s", args, err, out)
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// typeLine types a line into the terminal that has the keys and waits
// for want on the screen, which it returns.
func (x *tmux) typeLine(line, want string) string {
	x.t.Helper()
	x.keys("-l", line)
	x.keys("Enter")
	return x.waitFor(want, func(s string) bool { return strings.Contains(s, want) })
}

// open types a command line that opens the studio and waits for it.
func (x *tmux) open(cmdline string) {
	x.t.Helper()
	x.keys(cmdline, "Enter")
	x.waitFor("the studio", func(s string) bool { return strings.Contains(s, "Sessions") && strings.Contains(s, "Files") })
}

// action is one item of `atelier actions --json`.
type action struct {
	Kind        string `json:"kind"`
	Interaction struct {
		ID string `json:"id"`
	} `json:"interaction"`
}

// pendingActions lists what waits on the operator in the workspace.
func pendingActions(t *testing.T, bin, ws string) []action {
	t.Helper()
	out, err := exec.Command(bin, "actions", "-w", ws, "--json").Output()
	if err != nil {
		t.Fatalf("atelier actions: %v", err)
	}
	var items []action
	if err := json.Unmarshal(out, &items); err != nil {
		t.Fatalf("atelier actions --json: %v\n%s", err, out)
	}
	return items
}

// startDemo opens the new-session form and starts a demo session.
func (x *tmux) startDemo(title string) {
	x.t.Helper()
	x.keys("n")
	x.waitFor("the form", func(s string) bool { return strings.Contains(s, "New session") })
	x.keys("-l", title)
	x.keys("Tab")
	x.keys("-l", "say hi")
	x.keys("Enter")
	s := x.waitFor("streamed text", func(s string) bool { return strings.Contains(s, "Here is my plan") })
	if !strings.Contains(s, title) {
		x.t.Errorf("the session's title should show:\n%s", s)
	}
	x.waitFor("the approval", func(s string) bool { return strings.Contains(s, "$ ls -la") })
}

// reopenEnded opens the studio again and checks it shows the session
// ended, with the end of its transcript.
func (x *tmux) reopenEnded(bin, ws, title string) {
	x.t.Helper()
	x.keys(bin+" "+ws, "Enter")
	x.waitFor("the ended session", func(s string) bool { return strings.Contains(s, "✓ "+title) && strings.Contains(s, "done") })
	x.keys("Enter")
	x.waitFor("the whole transcript", func(s string) bool {
		return strings.Contains(s, "the whole demo.") && strings.Contains(s, "ENDED")
	})
	x.keys("q")
	x.waitFor("the shell again", func(s string) bool { return !strings.Contains(s, "Action required") })
}

// TestStudioEndToEnd runs the real binary in tmux at 120x40, attached to
// the workspace's host (the default): it starts a demo session from the
// form, quits mid-turn (no question: the session runs on in the host,
// and the terminal says so), the session finishes while no studio is
// open, and a new studio shows it ended with its whole transcript.
func TestStudioEndToEnd(t *testing.T) {
	x, bin, ws := newE2E(t, "studio")
	x.keys(bin+" "+ws, "Enter")

	x.waitFor("the studio", func(s string) bool {
		return strings.Contains(s, "Sessions") && strings.Contains(s, "Action required") && strings.Contains(s, "Files")
	})
	x.startDemo("e2e run")

	x.keys("q")
	x.waitFor("the shell with what runs on", func(s string) bool {
		return !strings.Contains(s, "Action required") && strings.Contains(s, "1 session keeps running")
	})
	if alt := strings.TrimSpace(x.run("display-message", "-p", "-t", "studio", "#{alternate_on}")); alt != "0" {
		t.Errorf("the alternate screen is still on after quitting (%q)", alt)
	}
	x.keys("echo restored-$((40+2))", "Enter")
	x.waitFor("a working shell", func(s string) bool { return strings.Contains(s, "restored-42") })

	finishWithoutStudio(t, bin, ws)
	x.reopenEnded(bin, ws, "e2e run")
}

// TestStudioOutlivesItsHost kills the engine host (kill -9) under an
// attached studio parked on an approval: the studio starts a new host,
// which recovers the session from the store; the studio resyncs on it and
// follows the session on as the approval is answered.
func TestStudioOutlivesItsHost(t *testing.T) {
	x, bin, ws := newE2E(t, "kill")
	x.open(bin + " " + ws)
	x.startDemo("survivor")

	first := hostPID(t, bin, ws)
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for pid := 0; pid == 0 || pid == first; pid = hostPID(t, bin, ws) {
		if time.Now().After(deadline) {
			t.Fatalf("no new host after the first (pid %d) was killed; screen:\n%s", first, x.screen())
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The new host's snapshot: the session is still parked on its approval.
	x.waitFor("the session recovered", func(s string) bool {
		return strings.Contains(s, "survivor") && strings.Contains(s, "$ ls -la") && strings.Contains(s, "1 need you")
	})
	// Answered from the command line, through the new host: the studio
	// follows the new host's stream to the demo's question.
	items := pendingActions(t, bin, ws)
	if len(items) != 1 {
		t.Fatalf("after the recovery %d actions wait, want the approval: %+v", len(items), items)
	}
	if out, err := exec.Command(bin, "sessions", "approve", items[0].Interaction.ID, "-w", ws).CombinedOutput(); err != nil {
		t.Fatalf("approve: %v\n%s", err, out)
	}
	x.waitFor("the question", func(s string) bool {
		return strings.Contains(s, "exec ✓ done") && strings.Contains(s, "Which greeting")
	})
}

// hostPID is the process that hosts the workspace now, or 0.
func hostPID(t *testing.T, bin, ws string) int {
	t.Helper()
	out, err := exec.Command(bin, "serve", "--status", "--json", ws).Output()
	if err != nil {
		t.Fatalf("atelier serve --status: %v", err)
	}
	var st struct {
		Running bool `json:"running"`
		PID     int  `json:"pid"`
	}
	if err := json.Unmarshal(out, &st); err != nil {
		t.Fatalf("atelier serve --status --json: %v\n%s", err, out)
	}
	if !st.Running {
		return 0
	}
	return st.PID
}

// TestStudioInProcessHandOver runs the real binary with --in-process: it
// hosts the engine itself, so quitting while a session runs asks; handing
// the session over starts a detached host that finishes it, and the next
// studio (attached) shows it ended with its whole transcript.
func TestStudioInProcessHandOver(t *testing.T) {
	x, bin, ws := newE2E(t, "inproc")
	x.open(bin + " --in-process " + ws)
	// The in-process studio serves the socket: a command is its client.
	if out, err := exec.Command(bin, "serve", "--status", ws).CombinedOutput(); err != nil || !strings.Contains(string(out), "runs in process") {
		t.Fatalf("the in-process studio should host the workspace: %v\n%s", err, out)
	}
	x.startDemo("handed over")

	x.keys("q")
	x.waitFor("the quit question", func(s string) bool {
		return strings.Contains(s, "1 session is running") && strings.Contains(s, "hand them over")
	})
	x.keys("h")
	x.waitFor("the shell with the hand-over", func(s string) bool {
		return !strings.Contains(s, "Action required") && strings.Contains(s, "handed the running sessions to a detached host")
	})
	finishWithoutStudio(t, bin, ws)
	x.reopenEnded(bin, ws, "handed over")
}

// TestTerminalTabEndToEnd runs the real binary in tmux, opens a terminal
// tab, types a command through the studio into the shell, sees the tab
// follow the shell's title, gives the keys back with ctrl+] and quits.
func TestTerminalTabEndToEnd(t *testing.T) {
	x, bin, ws := newE2E(t, "term")
	x.open(bin + " " + ws)

	x.keys("T")
	x.waitFor("the terminal tab with the keys", func(s string) bool { return strings.Contains(s, "keys → terminal") })
	s := x.typeLine("echo typed-$((6*7)) in $(basename $PWD)", "typed-42 in "+filepath.Base(ws))
	if !strings.Contains(s, "$ shell") {
		t.Errorf("the tab should be labelled with the shell before it sets a title:\n%s", s)
	}
	x.keys("-l", `printf '\033]0;e2e-title\007'`)
	x.keys("Enter")
	x.waitFor("the title in the tab", func(s string) bool { return strings.Contains(s, "$ e2e-title") })
	// q goes to the shell while the terminal has the keys...
	x.keys("q")
	time.Sleep(300 * time.Millisecond)
	if s := x.screen(); !strings.Contains(s, "Sessions") {
		t.Fatalf("q quit the studio while the terminal had the keys:\n%s", s)
	}
	// ...and to the studio after ctrl+]. (backspace the q first)
	x.keys("BSpace", "C-]")
	x.waitFor("the keys back", func(s string) bool { return !strings.Contains(s, "keys →") })
	x.keys("q")
	x.waitFor("the shell again", func(s string) bool { return !strings.Contains(s, "Sessions") && strings.Contains(s, "$ ") })
}

// TestTerminalTabOutlivesTheStudio: attached, a terminal tab is a shell
// the host owns. Quitting the studio leaves it running and says so; the
// next studio opens its tab again, scrollback replayed, and it is the same
// shell (a variable set before the quit is still set).
func TestTerminalTabOutlivesTheStudio(t *testing.T) {
	x, bin, ws := newE2E(t, "keptterm")
	x.open(bin + " " + ws)
	x.keys("T")
	x.waitFor("the terminal tab with the keys", func(s string) bool { return strings.Contains(s, "keys → terminal") })
	x.typeLine("KEPT=still-$((6*7)); echo before-$((1+1))", "before-2")
	x.keys("C-]")
	x.waitFor("the keys back", func(s string) bool { return !strings.Contains(s, "keys →") })
	x.keys("q")
	x.waitFor("the quit note", func(s string) bool {
		return !strings.Contains(s, "Sessions") && strings.Contains(s, "1 terminal keeps running")
	})

	x.open(bin + " " + ws)
	x.waitFor("the kept terminal's tab", func(s string) bool { return strings.Contains(strings.SplitN(s, "\n", 2)[0], "shell") })
	x.keys(">")
	x.waitFor("its scrollback", func(s string) bool { return strings.Contains(s, "before-2") })
	x.keys("Tab", "Tab") // sessions, files, then the tab, which takes the keys
	x.waitFor("the keys in the tab", func(s string) bool { return strings.Contains(s, "keys →") })
	x.typeLine("echo got-$KEPT", "got-still-42")
	x.keys("C-]")
	x.waitFor("the keys back", func(s string) bool { return !strings.Contains(s, "keys →") })
	// Closing the tab ends the shell: nothing is kept the next time.
	x.keys("C-w")
	x.keys("q")
	x.waitFor("the shell again", func(s string) bool { return !strings.Contains(s, "Sessions") && strings.Contains(s, "$ ") })
	if s := x.screen(); strings.Contains(s, "2 terminal") {
		t.Fatalf("a closed tab was kept:\n%s", s)
	}
}

// TestDestroyEndToEnd runs the real binary in tmux, destroys the
// workspace's state from the settings tab by typing the folder's name,
// and sees the studio quit and say why on the terminal.
func TestDestroyEndToEnd(t *testing.T) {
	x, bin, ws := newE2E(t, "destroy")
	x.open(bin + " " + ws)
	if _, err := os.Stat(filepath.Join(ws, ".state")); err != nil {
		t.Fatalf("the studio's engine keeps its state in .state/: %v", err)
	}
	x.keys(",")
	x.waitFor("the settings", func(s string) bool { return strings.Contains(s, "Run log") })
	x.keys("D")
	x.waitFor("the typed confirmation", func(s string) bool { return strings.Contains(s, "Destroy the workspace's state") })
	x.keys("-l", filepath.Base(ws))
	x.keys("Enter")
	s := x.waitFor("the shell with the reason", func(s string) bool {
		return !strings.Contains(s, "Sessions") && strings.Contains(s, "because you destroyed the state")
	})
	if !strings.Contains(s, "$ ") {
		t.Errorf("the shell should be back:\n%s", s)
	}
	if _, err := os.Stat(filepath.Join(ws, ".state")); !os.IsNotExist(err) {
		t.Fatalf(".state/ should be gone: %v", err)
	}
}
