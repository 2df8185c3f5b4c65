package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/internal/poll"
	"github.com/atelier-studio/atelier/internal/teststate"
	"github.com/atelier-studio/atelier/sessions"
)

// The tests of this file run the real atelier binary, as a user or a script
// would, on a workspace of their own: they guard what the command line
// promises (output, exit codes, what runs and what does not) whatever runs
// the engine behind it. ATELIER_CLI_TEST_BINARY runs them against another
// build (an older one, to see them fail).

// built is the binary of this tree, built once per test process.
var built struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	selfBinary = func() (string, error) { return "", errors.New("a test binary does not host engines") }
	code := teststate.Run(m) // a private state directory for the workspace secrets
	if built.dir != "" {
		if err := os.RemoveAll(built.dir); err != nil {
			fmt.Fprintln(os.Stderr, "remove the test binary:", err)
		}
	}
	os.Exit(code)
}

// atelierBinary builds the module's main package once and returns the
// binary's path.
func atelierBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the atelier binary")
	}
	if p := os.Getenv("ATELIER_CLI_TEST_BINARY"); p != "" {
		return p
	}
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "atelier-cli-test-")
		if built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "atelier")
		out, err := exec.Command("go", "build", "-o", built.path, "..").CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

// quickAgent is the user configuration of every sandbox: the demo agent
// without the tools its script needs, so each turn is one streamed
// sentence that repeats the prompt ("You said: ..."), about a second.
const quickAgent = `default_agent = "quick"

[agents.quick]
harness = "demo"
tools = ["read_file"]
`

// sandbox is one workspace with a home, configuration and temporary folder
// of its own; the binary runs in the workspace.
type sandbox struct {
	t      *testing.T
	bin    string
	ws     string
	env    []string
	config string // the user's config.toml
}

func newSandbox(t *testing.T) *sandbox {
	t.Helper()
	bin := atelierBinary(t)
	home, ws, tmp := t.TempDir(), t.TempDir(), t.TempDir()
	cfg := filepath.Join(home, ".config")
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name == "HOME" || name == "TMPDIR" || strings.HasPrefix(name, "XDG_") || strings.HasPrefix(name, "ATELIER_") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+home, "XDG_CONFIG_HOME="+cfg, "XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME="+filepath.Join(home, ".local", "state"), "XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "TMPDIR="+tmp)
	b := &sandbox{t: t, bin: bin, ws: ws, env: env, config: filepath.Join(cfg, "atelier", "config.toml")}
	b.configure(quickAgent)
	// A command that finds no host starts one, detached: it goes with the
	// sandbox, before its folders.
	t.Cleanup(b.stopHost)
	return b
}

// stopHost stops the sandbox's engine host, if one runs (a test may have
// stopped it, killed it, or made its runtime directory unreachable).
func (b *sandbox) stopHost() {
	if b.hostPID() == 0 {
		return
	}
	cmd := exec.Command(b.bin, "serve", "--stop", b.ws)
	cmd.Env = b.env
	if out, err := cmd.CombinedOutput(); err != nil {
		b.t.Errorf("atelier serve --stop: %v\n%s", err, out)
	}
}

// killHost kills the sandbox's host as a crash would (SIGKILL) and waits
// until its lock is free.
func (b *sandbox) killHost() {
	b.t.Helper()
	pid := b.hostPID()
	if pid == 0 {
		b.t.Fatal("no host to kill")
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		b.t.Fatal(err)
	}
	poll.Until(b.t, "the killed host's lock to be free", func() bool { return b.hostPID() == 0 })
}

// hostPID is the process that hosts the sandbox's workspace, or 0.
func (b *sandbox) hostPID() int {
	cmd := exec.Command(b.bin, "serve", "--status", "--json", b.ws)
	cmd.Env = b.env
	out, err := cmd.Output()
	if err != nil {
		return 0
	}
	var st struct {
		Running bool `json:"running"`
		PID     int  `json:"pid"`
	}
	if json.Unmarshal(out, &st) != nil || !st.Running {
		return 0
	}
	return st.PID
}

// configure writes the user's configuration.
func (b *sandbox) configure(toml string) {
	b.t.Helper()
	writeFile(b.t, b.config, toml)
}

// commandTimeout bounds every command: a command that hangs fails its test
// instead of the whole run.
const commandTimeout = 45 * time.Second

// proc is one run of the binary.
type proc struct {
	cmd      *exec.Cmd
	args     []string
	ctx      context.Context
	out, err bytes.Buffer
	cancel   context.CancelFunc
	done     bool
}

// start runs the binary in the background; the test's cleanup kills it if
// it is still running.
func (b *sandbox) start(args ...string) *proc {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	p := &proc{args: args, ctx: ctx, cancel: cancel}
	p.cmd = exec.CommandContext(ctx, b.bin, args...)
	p.cmd.Dir, p.cmd.Env = b.ws, b.env
	p.cmd.Stdin = strings.NewReader("")
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.err
	p.cmd.WaitDelay = 5 * time.Second
	if err := p.cmd.Start(); err != nil {
		cancel()
		b.t.Fatalf("atelier %s: %v", strings.Join(args, " "), err)
	}
	b.t.Cleanup(func() {
		if p.done {
			return
		}
		cancel() // kills it
		var ee *exec.ExitError
		if err := p.cmd.Wait(); err != nil && !errors.As(err, &ee) {
			b.t.Logf("atelier %s: %v", strings.Join(args, " "), err)
		}
	})
	return p
}

// wait waits for the run to end and returns what it printed; the exit
// code is -1 when a signal ended it.
func (p *proc) wait(t *testing.T) result {
	t.Helper()
	defer p.cancel()
	err := p.cmd.Wait()
	p.done = true
	r := result{0, p.out.String(), p.err.String()}
	var ee *exec.ExitError
	switch {
	case p.ctx.Err() != nil:
		t.Fatalf("atelier %s: still running after %s: killed\nstdout:\n%s\nstderr:\n%s",
			strings.Join(p.args, " "), commandTimeout, r.out, r.err)
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("atelier %s: %v", strings.Join(p.args, " "), err)
	}
	return r
}

// run runs the binary to its end.
func (b *sandbox) run(args ...string) result {
	b.t.Helper()
	return b.start(args...).wait(b.t)
}

// create makes a session that does not start by itself and returns its id.
func (b *sandbox) create(extra ...string) string {
	b.t.Helper()
	r := b.run(append(append([]string{"sessions", "create", "--no-start"}, extra...), "a task")...).want(b.t, ExitOK)
	return strings.TrimSpace(r.out)
}

// keys lists a session's keys through `sessions keys --json`.
func (b *sandbox) keys(id string) map[string]KeyInfo {
	b.t.Helper()
	r := b.run("sessions", "keys", id, "--json").want(b.t, ExitOK)
	var list []KeyInfo
	if err := json.Unmarshal([]byte(r.out), &list); err != nil {
		b.t.Fatalf("sessions keys --json: %v\n%s", err, r.out)
	}
	out := map[string]KeyInfo{}
	for _, k := range list {
		out[k.Key] = k
	}
	return out
}

// record reads a session's record through `sessions --json`.
func (b *sandbox) record(id string) sessionRow {
	b.t.Helper()
	r := b.run("sessions", "--all", "--json").want(b.t, ExitOK)
	var rows []sessionRow
	if err := json.Unmarshal([]byte(r.out), &rows); err != nil {
		b.t.Fatalf("sessions --json: %v\n%s", err, r.out)
	}
	for _, row := range rows {
		if row.ID == id {
			return row
		}
	}
	b.t.Fatalf("no session %s in:\n%s", id, r.out)
	return sessionRow{}
}

// promptResult decodes the result a done key recorded.
func promptResult(t *testing.T, k KeyInfo) core.PromptResult {
	t.Helper()
	var res core.PromptResult
	if err := json.Unmarshal(k.Result, &res); err != nil {
		t.Fatalf("key %s result %q: %v", k.Key, k.Result, err)
	}
	return res
}

// longPrompt makes a turn of the quick agent last a few seconds (60 words
// streamed back at the demo's pace), long enough to act on it mid-turn.
var longPrompt = strings.TrimSpace(strings.Repeat("a ", 60))

// startedKey runs `send --key KEY --wait` in the background and returns
// once the key's turn runs.
func (b *sandbox) startedKey(id, key, text string) *proc {
	b.t.Helper()
	p := b.start("sessions", "send", id, "--key", key, "--wait", text)
	poll.Until(b.t, "key "+key+" started", func() bool {
		return b.keys(id)[key].State == sessions.KeyStarted
	})
	return p
}

// TestBinaryRepeatedKeyDone: a key whose turn is done prints the recorded
// reply and status, with or without --wait, and runs no new turn; --wait
// exits at once with the code of the first run; the same key with another
// text is refused (exit 2). (Before: a repeated key with --wait hung.)
func TestBinaryRepeatedKeyDone(t *testing.T) {
	t.Parallel()
	b := newSandbox(t)
	id := b.create("--mode", "continuous")
	first := b.run("sessions", "send", id, "--key", "k1", "--wait", "hello there").want(t, ExitOK)
	const reply = "You said: hello there."
	if !strings.Contains(first.out, reply) {
		t.Fatalf("the first send printed:\n%s", first.out)
	}
	turns := b.record(id).Turns

	again := b.run("sessions", "send", id, "--key", "k1", "--wait", "hello there").want(t, ExitOK)
	if !strings.Contains(again.out, reply) || !strings.Contains(again.err, "nothing was sent again") ||
		!strings.Contains(again.err, "WAITING (awaiting_input)") {
		t.Errorf("the repeated send --wait printed:\nstdout:\n%s\nstderr:\n%s", again.out, again.err)
	}
	short := b.run("sessions", "send", id, "--key", "k1", "hello there").want(t, ExitOK)
	if !strings.Contains(short.out, reply) {
		t.Errorf("the repeated send printed:\nstdout:\n%s\nstderr:\n%s", short.out, short.err)
	}
	js := b.run("sessions", "send", id, "--key", "k1", "--wait", "--json", "hello there").want(t, ExitOK)
	var ev JSONEvent
	if err := json.Unmarshal([]byte(lastLine(js.out)), &ev); err != nil || ev.Type != "key" || ev.Key == nil ||
		ev.Key.State != sessions.KeyDone || !strings.Contains(ev.Text, reply) || ev.Status != sessions.Waiting {
		t.Errorf("the repeated send --json ends with %+v (%v):\n%s", ev, err, js.out)
	}

	conflict := b.run("sessions", "send", id, "--key", "k1", "something else").want(t, ExitUsage)
	if !strings.Contains(conflict.err, "k1") {
		t.Errorf("the conflict says %q", conflict.err)
	}
	if got := b.record(id).Turns; got != turns {
		t.Errorf("%d turns after the repeats, want %d: a repeated key ran again", got, turns)
	}
	k := b.keys(id)["k1"]
	if res := promptResult(t, k); k.State != sessions.KeyDone || res.Outcome != "complete" || !strings.Contains(res.Text, reply) {
		t.Errorf("sessions keys: k1 %s, %+v", k.State, res)
	}
	list := b.run("sessions", "keys", id).want(t, ExitOK)
	if !strings.Contains(list.out, "k1") || !strings.Contains(list.out, "done") || !strings.Contains(list.out, "complete") {
		t.Errorf("sessions keys as text:\n%s", list.out)
	}
}

// TestBinaryRepeatedKeyQueued: a keyed prompt recorded for a session nobody
// runs yet is its key's item. Sending the key again names it; with --wait
// the command starts the session, waits for that item's turn and prints its
// result; the prompt runs once. Another text with the key is a conflict.
// (Before: --wait refused the CREATED session with exit 2, and the engine
// that took the session over ran the keyed prompt twice.)
func TestBinaryRepeatedKeyQueued(t *testing.T) {
	t.Parallel()
	b := newSandbox(t)
	id := b.create("--mode", "continuous")
	b.run("sessions", "send", id, "--key", "k1", "hello").want(t, ExitOK)
	again := b.run("sessions", "send", id, "--key", "k1", "hello").want(t, ExitOK)
	if !strings.Contains(again.out, "already") {
		t.Errorf("the repeated send printed %q", again.out)
	}
	if r := b.run("sessions", "send", id, "--key", "k1", "another text"); r.code != ExitUsage {
		t.Errorf("the key with another text exited %d, want %d (a conflict): %q", r.code, ExitUsage, r.out+r.err)
	}

	r := b.run("sessions", "send", id, "--key", "k1", "--wait", "hello").want(t, ExitOK)
	if !strings.Contains(r.out, "You said: hello.") || !strings.Contains(r.err, "nothing was sent again") {
		t.Errorf("send --wait of the queued key printed:\nstdout:\n%s\nstderr:\n%s", r.out, r.err)
	}
	if got := b.record(id).Turns; got != 2 {
		t.Errorf("%d turns, want 2 (the task, then the keyed prompt once)", got)
	}
	if k := b.keys(id)["k1"]; k.State != sessions.KeyDone || k.Turn != 2 {
		t.Errorf("key k1 after its turn: %s, turn %d, %s", k.State, k.Turn, k.Result)
	}
}

// TestBinaryRepeatedKeyRunning: while another process runs a keyed turn,
// the same key names the running item, and with --wait waits for the turn
// and prints its reply; nothing runs twice. (Before: the follower never saw
// the key's result the owner recorded.)
func TestBinaryRepeatedKeyRunning(t *testing.T) {
	t.Parallel()
	b := newSandbox(t)
	id := b.create("--mode", "continuous")
	owner := b.startedKey(id, "k1", longPrompt)

	r := b.run("sessions", "send", id, "--key", "k1", longPrompt).want(t, ExitOK)
	if !strings.Contains(r.out, "already started") {
		t.Errorf("the repeated send while the turn runs printed %q", r.out)
	}
	r = b.run("sessions", "send", id, "--key", "k1", "--wait", longPrompt).want(t, ExitOK)
	if !strings.Contains(r.out, "You said: a a a") {
		t.Errorf("send --wait of the running key printed:\nstdout:\n%s\nstderr:\n%s", r.out, r.err)
	}
	owner.wait(t).want(t, ExitOK)
	if got := b.record(id).Turns; got != 2 {
		t.Errorf("%d turns, want 2", got)
	}
}

// TestBinaryRepeatedKeyAfterCrash: a process killed mid-turn leaves its
// key started; the same key names that turn, and with --wait the next
// process picks the turn up, waits for it and prints its reply, without
// sending the prompt again.
func TestBinaryRepeatedKeyAfterCrash(t *testing.T) {
	t.Parallel()
	b := newSandbox(t)
	id := b.create("--mode", "continuous")
	p := b.startedKey(id, "k1", longPrompt)
	// The crash: the command following the turn, then the host running it
	// (in that order: a client that loses its host starts another).
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if r := p.wait(t); r.code != -1 {
		t.Fatalf("the send to kill ended by itself first (exit %d): the turn was too short\n%s", r.code, r.err)
	}
	b.killHost()
	r := b.run("sessions", "send", id, "--key", "k1", longPrompt).want(t, ExitOK)
	if !strings.Contains(r.out, "already started (turn 2") {
		t.Errorf("the repeated send printed %q", r.out)
	}
	r = b.run("sessions", "send", id, "--key", "k1", "--wait", longPrompt).want(t, ExitOK)
	if !strings.Contains(r.out, "You said: a a a") || !strings.Contains(r.err, "nothing was sent again") {
		t.Errorf("send --wait of the started key printed:\nstdout:\n%s\nstderr:\n%s", r.out, r.err)
	}
	if got := b.record(id).Turns; got != 2 {
		t.Errorf("%d turns, want 2: the prompt was sent again", got)
	}
	if k := b.keys(id)["k1"]; k.State != sessions.KeyDone || k.Turn != 2 {
		t.Errorf("key k1: %s, turn %d", k.State, k.Turn)
	}
}

// TestBinaryUncertainKey: a process killed mid-turn leaves its key
// started; when the next process cannot resume that turn (its agent is no
// longer configured), the key is uncertain: sending it again is refused
// (exit 1) with the way out, `sessions keys` lists it, and `--forget`
// frees it (only an uncertain key, only a known one).
func TestBinaryUncertainKey(t *testing.T) {
	t.Parallel()
	b := newSandbox(t)
	b.configure(quickAgent + "\n[agents.gone]\nharness = \"demo\"\ntools = [\"read_file\"]\n")
	id := b.create("--mode", "continuous", "--agent", "gone")
	p := b.startedKey(id, "k1", longPrompt)
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if r := p.wait(t); r.code != -1 {
		t.Fatalf("the send to kill ended by itself first (exit %d): the turn was too short\n%s", r.code, r.err)
	}
	b.killHost() // the crash: the client, then the host running the turn
	b.configure(quickAgent)

	// The next process that runs the session recovers it: the turn cannot
	// resume, so the key is uncertain, and nothing is sent again.
	r := b.run("sessions", "send", id, "--key", "k1", "--wait", longPrompt).want(t, ExitFailed)
	for _, want := range []string{"uncertain", "sessions keys " + id + " --forget k1"} {
		if !strings.Contains(r.err, want) {
			t.Errorf("the uncertain key's error lacks %q:\n%s", want, r.err)
		}
	}
	b.run("sessions", "send", id, "--key", "k1", longPrompt).want(t, ExitFailed)
	list := b.run("sessions", "keys", id).want(t, ExitOK)
	if !strings.Contains(list.out, "uncertain") {
		t.Errorf("sessions keys:\n%s", list.out)
	}

	b.run("sessions", "keys", id, "--forget", "nosuchkey").want(t, ExitUsage)
	r = b.run("sessions", "keys", id, "--forget", "k1").want(t, ExitOK)
	if !strings.Contains(r.out, "k1") {
		t.Errorf("--forget printed %q", r.out)
	}
	if _, ok := b.keys(id)["k1"]; ok {
		t.Errorf("k1 is still listed after --forget")
	}
	b.run("sessions", "keys", id, "--forget", "k1").want(t, ExitUsage)
	r = b.run("sessions", "send", id, "--key", "k1", "after the check").want(t, ExitOK)
	if strings.Contains(r.out, "already") {
		t.Errorf("a forgotten key is free again, but send said %q", r.out)
	}
}

// TestBinaryUncertainExecKey: an exec whose host was killed while its
// command ran is uncertain once the session is recovered; the same key is
// refused with the way out, and runs again once forgotten. A key that is
// not uncertain cannot be forgotten.
func TestBinaryUncertainExecKey(t *testing.T) {
	t.Parallel()
	b := newSandbox(t)
	id := b.create("--mode", "continuous")
	// The command sleeps the first time (its pid in a file, to end it),
	// and prints "ran" once the file "again" exists.
	script := "test -e again && { echo ran; exit 0; }; echo $$ > sleeper.pid; exec sleep 60"
	p := b.start("sessions", "exec", id, "--key", "e1", "--", "sh", "-c", script)
	pidFile := filepath.Join(b.ws, "sleeper.pid")
	poll.Until(t, "the command to run", func() bool {
		_, err := os.Stat(pidFile)
		return err == nil && b.keys(id)["e1"].State == sessions.KeyStarted
	})
	// The crash: the host running the command (before its client: a
	// client that leaves first interrupts the command, which is recorded).
	b.killHost()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p.wait(t)
	var pid int
	poll.Until(t, "the sleeper's pid", func() bool {
		data, err := os.ReadFile(pidFile)
		_, serr := fmt.Sscan(string(data), &pid)
		return err == nil && serr == nil
	})
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		t.Fatal(err)
	}
	// The next host recovers the session: e1 is uncertain.
	b.run("sessions", "start", id, "--wait").want(t, ExitOK)
	writeFile(t, filepath.Join(b.ws, "again"), "")
	r := b.run("sessions", "exec", id, "--key", "e1", "--", "sh", "-c", script).want(t, ExitFailed)
	if !strings.Contains(r.err, "sessions keys "+id+" --forget e1") {
		t.Errorf("the uncertain exec key says:\n%s", r.err)
	}
	b.run("sessions", "keys", id, "--forget", "e1").want(t, ExitOK)
	r = b.run("sessions", "exec", id, "--key", "e1", "--", "sh", "-c", script).want(t, ExitOK)
	if r.out != "ran\n" {
		t.Errorf("the exec after --forget printed %q", r.out)
	}
	b.run("sessions", "keys", id, "--forget", "e1").want(t, ExitUsage) // done, not uncertain
}

// TestBinaryRepeatedKeyCancelled: a keyed turn cancelled by --timeout
// (exit 3) records that outcome; the same key again prints it and, with
// --wait, exits 3 again, although the session has ended. (Before: the
// ENDED session refused the send with exit 2.)
func TestBinaryRepeatedKeyCancelled(t *testing.T) {
	t.Parallel()
	b := newSandbox(t)
	id := b.create("--mode", "continuous")
	b.run("sessions", "start", id, "--wait").want(t, ExitOK)
	b.run("sessions", "send", id, "--key", "k1", "--wait", "--timeout", "300ms", longPrompt).want(t, ExitCancelled)
	k := b.keys(id)["k1"]
	if res := promptResult(t, k); k.State != sessions.KeyDone || res.Outcome != "cancel" || res.EndReason != sessions.Cancelled {
		t.Fatalf("key k1 after the cancel: %s, %+v", k.State, res)
	}
	r := b.run("sessions", "send", id, "--key", "k1", "--wait", longPrompt).want(t, ExitCancelled)
	if !strings.Contains(r.err, "ENDED (cancelled)") || !strings.Contains(r.err, "nothing was sent again") {
		t.Errorf("the repeated key printed:\n%s", r.err)
	}
	b.run("sessions", "send", id, "--key", "k1", longPrompt).want(t, ExitOK)
}

// TestBinaryClose: closing an ENDED session is harmless (exit 0, says so
// with its end reason); closing a CREATED one ends it completed. (Before:
// exit 2 for both.)
func TestBinaryClose(t *testing.T) {
	t.Parallel()
	b := newSandbox(t)
	cancelled := b.create()
	b.run("sessions", "cancel", cancelled, "--yes").want(t, ExitOK)
	r := b.run("sessions", "close", cancelled).want(t, ExitOK)
	if !strings.Contains(r.out, "already ENDED (cancelled)") {
		t.Errorf("close of a cancelled session printed %q", r.out)
	}

	created := b.create()
	b.run("sessions", "close", created).want(t, ExitOK)
	if rec := b.record(created); rec.Status != string(sessions.Ended) || rec.EndReason != string(sessions.Completed) || rec.Turns != 0 {
		t.Errorf("a closed CREATED session: %+v", rec)
	}
	r = b.run("sessions", "close", created).want(t, ExitOK)
	if !strings.Contains(r.out, "already ENDED (completed)") {
		t.Errorf("a second close printed %q", r.out)
	}
}

// TestBinaryResumeCreated: resume starts a CREATED session, with --wait
// here, or recorded for the process that runs it; start still does the
// same. (Before: exit 2.)
func TestBinaryResumeCreated(t *testing.T) {
	t.Parallel()
	b := newSandbox(t)
	id := b.create("--mode", "continuous")
	r := b.run("sessions", "resume", id, "--wait").want(t, ExitOK)
	if !strings.Contains(r.out, "You said: a task.") {
		t.Errorf("resume --wait printed:\n%s", r.out)
	}
	if rec := b.record(id); rec.Status != string(sessions.Waiting) || rec.Turns != 1 {
		t.Errorf("after resume --wait: %+v", rec)
	}

	later := b.create("--mode", "continuous")
	r = b.run("sessions", "resume", later).want(t, ExitOK)
	if !strings.Contains(r.out, "resume "+later) {
		t.Errorf("resume printed %q", r.out)
	}
	// The start resume recorded is the one the next process applies.
	b.run("sessions", "start", later, "--wait").want(t, ExitOK)
	if rec := b.record(later); rec.Status != string(sessions.Waiting) || rec.Turns != 1 {
		t.Errorf("after start --wait: %+v", rec)
	}
}

// TestBinaryExec: several words are the argv, run as they are; one word is
// a shell command line; a timeout exits 124. (Before: the words were joined
// and parsed again by a shell, and a timeout exited 1.)
func TestBinaryExec(t *testing.T) {
	t.Parallel()
	b := newSandbox(t)
	id := b.create()
	for _, c := range []struct {
		name string
		args []string
		out  string
		code int
	}{
		{"argv through sh -c", []string{"sh", "-c", "echo one; echo two"}, "one\ntwo\n", 0},
		{"argv with spaces", []string{"printf", "%s|", "a b", "c"}, "a b|c|", 0},
		{"one word is a shell line", []string{"echo a && echo b"}, "a\nb\n", 0},
		{"the command's exit code", []string{"sh", "-c", "exit 7"}, "", 7},
	} {
		r := b.run(append([]string{"sessions", "exec", id, "--"}, c.args...)...).want(t, c.code)
		if r.out != c.out {
			t.Errorf("%s: stdout %q, want %q (stderr %q)", c.name, r.out, c.out, r.err)
		}
	}
	r := b.run("sessions", "exec", id, "--timeout", "200ms", "--", "sleep", "30").want(t, ExitTimedOut)
	if !strings.Contains(r.err, "timed out") {
		t.Errorf("the timeout said %q", r.err)
	}
	r = b.run("sessions", "exec", id, "--timeout", "200ms", "--json", "--", "sleep 30").want(t, ExitTimedOut)
	if res := jsonOut[core.ExecResult](t, r); !res.TimedOut {
		t.Errorf("--json of a timeout: %+v", res)
	}
	b.run("sessions", "exec", id, "--", "").want(t, ExitUsage)
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	var last string
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) != "" {
			last = sc.Text()
		}
	}
	return last
}
