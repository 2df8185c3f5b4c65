package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/atelier-studio/atelier/engine"
	"github.com/atelier-studio/atelier/internal/testreq"
	"github.com/atelier-studio/atelier/sessions"
)

// The tests of this file are the command line's part of the
// hostile-workspace suite (issue 15): what an agent, a file name or a
// workspace's files can make the command line print or do, run against
// the real binary.

// hostile is what a hostile answer or file name carries: a window title
// (whose payload has a space, so the demo streams it in two deltas), a
// clipboard write (OSC 52), a screen clear, and the 8-bit (C1) form of CSI.
const hostile = "\x1b]0;pwned title\x07 \x1b]52;c;aGVsbG8=\x07 \x1b[2J \u009b31m"

// evilName is a file name with a window title in it; shown safely it is
// evil.txt.
const evilName = "evil\x1b]0;pwned\x07.txt"

// assertSafe fails when text printed in text mode holds anything a
// terminal acts on.
func assertSafe(t *testing.T, what, text string) {
	t.Helper()
	if !utf8.ValidString(text) {
		t.Errorf("%s: invalid UTF-8 printed:\n%q", what, text)
	}
	for i, r := range text {
		switch {
		case r == '\n' || r == '\t':
		case r == '\r' && strings.HasPrefix(text[i:], "\r\n"):
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
			t.Errorf("%s: control %U reached the terminal at byte %d:\n%q", what, r, i, text)
			return
		}
	}
}

// assertDropped fails when the payload of a hostile sequence was printed:
// a sequence is dropped whole, also one cut between two streamed deltas.
// (Text that another layer already cleaned, such as a history commit's
// summary, may keep it as plain characters.)
func assertDropped(t *testing.T, what, text string) {
	t.Helper()
	for _, payload := range []string{"pwned", "aGVsbG8"} {
		if strings.Contains(text, payload) {
			t.Errorf("%s: the payload %q of an escape sequence was printed:\n%q", what, payload, text)
		}
	}
}

// runWith runs the binary with stdin and a deadline of its own; a command
// still running at the deadline fails the test.
func (b *sandbox) runWith(stdin io.Reader, timeout time.Duration, args ...string) result {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, b.bin, args...)
	cmd.Dir, cmd.Env, cmd.Stdin = b.ws, b.env, stdin
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	r := result{0, out.String(), errb.String()}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		b.t.Fatalf("atelier %s: still running after %s: killed\nstdout:\n%s\nstderr:\n%s",
			strings.Join(args, " "), timeout, r.out, r.err)
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		b.t.Fatalf("atelier %s: %v", strings.Join(args, " "), err)
	}
	return r
}

// onlySession returns the id of the sandbox's only session.
func (b *sandbox) onlySession() string {
	b.t.Helper()
	r := b.run("sessions", "--all", "--json").want(b.t, ExitOK)
	var rows []sessionRow
	if err := json.Unmarshal([]byte(r.out), &rows); err != nil || len(rows) != 1 {
		b.t.Fatalf("sessions --json (%v):\n%s", err, r.out)
	}
	return rows[0].ID
}

// TestBinaryUntrustedTextIsSafe: an agent's answer, the session title made
// from the prompt, and a file name carrying escape sequences reach neither
// stdout nor stderr as sequences, in any command that prints them as text;
// --json escapes them and gives the text back exactly; `sessions exec`
// prints the operator's own command's output as it is. (Before: all of it
// printed raw.)
func TestBinaryUntrustedTextIsSafe(t *testing.T) {
	t.Parallel()
	b := newSandbox(t)
	writeFile(t, filepath.Join(b.ws, evilName), "a file with a hostile name\n")
	writeFile(t, filepath.Join(b.ws, "colour.txt"), "hello \x1b[31mred\x1b[0m\n")
	prompt := "hello " + hostile + " there"

	run := b.run("run", prompt).want(t, ExitOK)
	assertSafe(t, "run (stdout)", run.out)
	assertSafe(t, "run (stderr)", run.err)
	assertDropped(t, "run", run.out+run.err)
	if !strings.Contains(run.out, "You said: hello") || !strings.Contains(run.out, "there") {
		t.Errorf("run printed:\n%q", run.out)
	}
	id := b.onlySession()

	for _, args := range [][]string{
		{"sessions"},
		{"sessions", "show", id},
		{"sessions", "history", "--files"},
		{"sessions", "history", id},
		{"sessions", "diff", id, "1", "--stat"},
		{"actions"},
	} {
		r := b.run(args...).want(t, ExitOK)
		what := strings.Join(args, " ")
		assertSafe(t, what+" (stdout)", r.out)
		assertSafe(t, what+" (stderr)", r.err)
	}
	show := b.run("sessions", "show", id)
	if !strings.Contains(show.out, "You said: hello") {
		t.Errorf("sessions show lost the text:\n%s", show.out)
	}
	assertDropped(t, "sessions show", show.out)
	if r := b.run("sessions", "history", "--files"); !strings.Contains(r.out, "evil.txt") {
		t.Errorf("history --files does not show the file:\n%s", r.out)
	}
	blame := b.run("sessions", "blame", evilName).want(t, ExitOK)
	assertSafe(t, "blame", blame.out+blame.err)
	if !strings.Contains(blame.out, "evil.txt") {
		t.Errorf("blame printed:\n%s", blame.out)
	}
	// An error quoting what the operator typed (or pasted).
	bad := b.run("sessions", "show", "\x1b]0;pwned\x07").want(t, ExitUsage)
	assertSafe(t, "an error", bad.out+bad.err)

	// --json keeps the text exactly, escaped.
	js := b.run("sessions", "show", id, "--json").want(t, ExitOK)
	if strings.ContainsAny(js.out, "\x1b\x07\u009b") {
		t.Errorf("show --json printed a raw control character:\n%q", js.out)
	}
	var d sessionDetail
	if err := json.Unmarshal([]byte(js.out), &d); err != nil || len(d.Messages) == 0 || d.Messages[0].Text() != prompt {
		t.Errorf("show --json does not give the prompt back (%v):\n%s", err, js.out)
	}
	stream := b.run("run", "--json", "c1 \u009b2J \x7f").want(t, ExitOK)
	if strings.ContainsAny(stream.out, "\x1b\u009b\x7f") {
		t.Errorf("run --json printed a raw control character:\n%q", stream.out)
	}
	for _, line := range strings.Split(strings.TrimSpace(stream.out), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("run --json line is not JSON: %q", line)
		}
	}

	// A diff written into a pipe is a patch: byte for byte.
	var log []commitRow
	if err := json.Unmarshal([]byte(b.run("sessions", "history", "--json").want(t, ExitOK).out), &log); err != nil || len(log) == 0 {
		t.Fatalf("sessions history --json: %v", err)
	}
	snapshot := log[len(log)-1].Hash
	if diff := b.run("sessions", "diff", snapshot).want(t, ExitOK); !strings.Contains(diff.out, "+hello \x1b[31mred\x1b[0m\n") {
		t.Errorf("sessions diff into a pipe changed the patch:\n%q", diff.out)
	}

	// The operator's own command: colours go out as they are.
	created := b.create()
	exe := b.run("sessions", "exec", created, "--", "printf", `\033[31mred\033[0m\n`).want(t, ExitOK)
	if exe.out != "\x1b[31mred\x1b[0m\n" {
		t.Errorf("sessions exec printed %q, want the command's output as it is", exe.out)
	}
}

// TestBinaryPromptFromStdinOrFile: `run -` reads the prompt from standard
// input and --prompt-file from a file, for run, create and send; a prompt
// of engine.MaxText bytes works, and one over it (10 MB) is refused with
// the limit named, creating nothing. (Before: "-" was the prompt itself,
// there was no --prompt-file, and a 10 MB argument is past the system's
// limit; then a 10 MB task was taken, and every list carried it whole.)
func TestBinaryPromptFromStdinOrFile(t *testing.T) {
	t.Parallel()
	b := newSandbox(t)
	line := strings.Repeat("lorem ipsum dolor sit amet ", 40) + "\n"
	huge := "summarise this\n" + strings.Repeat(line, (10<<20)/len(line))
	r := b.runWith(strings.NewReader(huge), commandTimeout, "run", "-").want(t, ExitUsage)
	if !strings.Contains(r.err, "256 KiB") {
		t.Errorf("a 10 MB prompt was refused without naming the limit:\n%s", r.err)
	}
	if list := b.run("sessions", "--all", "--json").want(t, ExitOK); strings.TrimSpace(list.out) != "[]" {
		t.Fatalf("a refused prompt made a session:\n%s", list.out)
	}

	big := "summarise this\n" + strings.Repeat(line, engine.MaxText/len(line))
	big += strings.Repeat("x", engine.MaxText-len(big))
	r = b.runWith(strings.NewReader(big), commandTimeout, "run", "-").want(t, ExitOK)
	if !strings.Contains(r.out, "You said: summarise this.") {
		t.Fatalf("run - printed:\n%s", r.out)
	}
	id := b.onlySession()
	js := b.run("sessions", "show", id, "--json").want(t, ExitOK)
	var d sessionDetail
	if err := json.Unmarshal([]byte(js.out), &d); err != nil || len(d.Messages) == 0 {
		t.Fatalf("sessions show --json: %v", err)
	}
	if got := d.Messages[0].Text(); got != big || d.Session.Instructions != big {
		t.Errorf("the prompt has %d bytes, the task %d, want %d", len(got), len(d.Session.Instructions), len(big))
	}
	if d.Session.Title != "summarise this" {
		t.Errorf("title %q", d.Session.Title)
	}
	list := b.run("sessions", "--json").want(t, ExitOK)
	var rows []sessionRow
	if err := json.Unmarshal([]byte(list.out), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("sessions --json: %v", err)
	}
	if want, _ := engine.TaskPreview(big); rows[0].Task != want || !rows[0].TaskTruncated || len(list.out) > 4<<10 {
		t.Errorf("sessions --json (%d bytes) lists the task as %d bytes (truncated %v), want its preview", len(list.out), len(rows[0].Task), rows[0].TaskTruncated)
	}

	file := filepath.Join(t.TempDir(), "prompt.md")
	writeFile(t, file, "from a file\nwith a second line\n")
	if r := b.run("run", "--prompt-file", file).want(t, ExitOK); !strings.Contains(r.out, "You said: from a file.") {
		t.Errorf("run --prompt-file printed:\n%s", r.out)
	}
	created := b.runWith(strings.NewReader("a task from stdin\n"), commandTimeout, "sessions", "create", "--no-start", "--mode", "continuous", "-").want(t, ExitOK)
	cid := strings.TrimSpace(created.out)
	if rec := b.record(cid); rec.Title != "a task from stdin" {
		t.Errorf("create - made the title %q", rec.Title)
	}
	send := b.runWith(strings.NewReader("a message from stdin\n"), commandTimeout, "sessions", "send", cid, "--wait", "-").want(t, ExitOK)
	if !strings.Contains(send.out, "You said: a message from stdin.") {
		t.Errorf("send - printed:\n%s", send.out)
	}
	writeFile(t, file, "a message from a file\n")
	if r := b.run("sessions", "send", cid, "--wait", "--prompt-file", file).want(t, ExitOK); !strings.Contains(r.out, "You said: a message from a file.") {
		t.Errorf("send --prompt-file printed:\n%s", r.out)
	}

	for _, args := range [][]string{
		{"run"},
		{"run", "--prompt-file", file, "and words"},
		{"run", "--prompt-file", filepath.Join(t.TempDir(), "missing")},
		{"sessions", "send", cid},
	} {
		b.run(args...).want(t, ExitUsage)
	}
	writeFile(t, file, huge)
	if r := b.run("sessions", "send", cid, "--prompt-file", file).want(t, ExitUsage); !strings.Contains(r.err, "256 KiB") {
		t.Errorf("send --prompt-file of 10 MB:\n%s", r.err)
	}
}

func remountReadOnly(t *testing.T, dir string) {
	t.Helper()
	if err := unix.Mount("tmpfs", dir, "tmpfs", unix.MS_REMOUNT|unix.MS_RDONLY, ""); err != nil {
		t.Fatalf("remount %s read-only: %v", dir, err)
	}
}

// TestBinaryListReadOnlyWorkspace: listing needs no write: `sessions` and
// `actions` work on a workspace nobody can write, with or without a state
// folder, and `sessions show` reads a session there. (Before: a workspace
// without a state folder failed: mkdir .state: read-only file system.)
func TestBinaryListReadOnlyWorkspace(t *testing.T) {
	t.Parallel()
	b := newSandbox(t)
	b.ws = testreq.Tmpfs(t, "64m")
	remountReadOnly(t, b.ws)
	empty := b.run("sessions").want(t, ExitOK)
	if !strings.Contains(empty.err, "no sessions yet") {
		t.Errorf("sessions on an empty read-only workspace:\n%s%s", empty.out, empty.err)
	}
	if js := b.run("sessions", "--json").want(t, ExitOK); strings.TrimSpace(js.out) != "[]" {
		t.Errorf("sessions --json printed %q", js.out)
	}
	b.run("actions").want(t, ExitOK)
	if _, err := os.Lstat(filepath.Join(b.ws, sessions.StateDir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a listing made the state folder (%v)", err)
	}

	c := newSandbox(t)
	c.ws = testreq.Tmpfs(t, "64m")
	c.run("run", "hello").want(t, ExitOK)
	id := c.onlySession()
	c.stopHost() // the run started it; its files keep the mount busy
	remountReadOnly(t, c.ws)
	list := c.run("sessions").want(t, ExitOK)
	if !strings.Contains(list.out, id) || !strings.Contains(list.out, "ENDED (completed)") {
		t.Errorf("sessions on a read-only workspace:\n%s%s", list.out, list.err)
	}
	c.run("sessions", "--json").want(t, ExitOK)
	c.run("actions").want(t, ExitOK)
	if show := c.run("sessions", "show", id).want(t, ExitOK); !strings.Contains(show.out, "You said: hello") {
		t.Errorf("sessions show on a read-only workspace:\n%s", show.out)
	}
}

// TestBinaryWaitOnEndedSession: `start --wait` and `resume --wait` on a
// session that has ended say so, with its end reason, and exit at once
// with the code of that end. (Before: a completed one hung forever.)
func TestBinaryWaitOnEndedSession(t *testing.T) {
	t.Parallel()
	b := newSandbox(t)
	done := b.create()
	b.run("sessions", "start", done, "--wait").want(t, ExitOK)
	const quick = 15 * time.Second
	for _, verb := range []string{"start", "resume"} {
		r := b.runWith(nil, quick, "sessions", verb, done, "--wait").want(t, ExitOK)
		if !strings.Contains(r.err, "has already ended (completed)") {
			t.Errorf("%s --wait on a completed session said:\n%s", verb, r.err)
		}
		js := b.runWith(nil, quick, "sessions", verb, done, "--wait", "--json").want(t, ExitOK)
		var ev JSONEvent
		if err := json.Unmarshal([]byte(strings.SplitN(js.out, "\n", 2)[0]), &ev); err != nil || ev.Type != "ended" || !ev.Replayed || ev.Reason != "completed" {
			t.Errorf("%s --wait --json: %+v (%v)\n%s", verb, ev, err, js.out)
		}
	}
	cancelled := b.create()
	b.run("sessions", "cancel", cancelled, "--yes").want(t, ExitOK)
	for _, verb := range []string{"start", "resume"} {
		r := b.runWith(nil, quick, "sessions", verb, cancelled, "--wait").want(t, ExitCancelled)
		if !strings.Contains(r.err, "has already ended (cancelled)") {
			t.Errorf("%s --wait on a cancelled session said:\n%s", verb, r.err)
		}
	}
}

// TestBinaryShowRepairs: `sessions show` reports what reading the
// session's files repaired (a torn last line cut, a corrupt line skipped),
// and --json includes it. (Before: the repairs were never shown.)
func TestBinaryShowRepairs(t *testing.T) {
	t.Parallel()
	b := newSandbox(t)
	b.run("run", "hello").want(t, ExitOK)
	id := b.onlySession()
	log := filepath.Join(b.ws, sessions.StateDir, "sessions", id, sessions.MessagesFile)
	f, err := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("not json at all\n{\"id\":\"m9\",\"rev"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	js := b.run("sessions", "show", id, "--json").want(t, ExitOK)
	var d sessionDetail
	if err := json.Unmarshal([]byte(js.out), &d); err != nil {
		t.Fatal(err)
	}
	var torn, corrupt bool
	for _, r := range d.Repairs {
		torn = torn || (r.File == sessions.MessagesFile && strings.Contains(r.Action, "torn"))
		corrupt = corrupt || (r.File == sessions.MessagesFile && r.Line > 0 && strings.Contains(r.Action, "corrupt"))
	}
	if !torn || !corrupt {
		t.Errorf("show --json repairs: %+v", d.Repairs)
	}
	text := b.run("sessions", "show", id).want(t, ExitOK)
	if !strings.Contains(text.out, "repaired when read") || !strings.Contains(text.out, sessions.MessagesFile+":") ||
		!strings.Contains(text.out, "corrupt line skipped") {
		t.Errorf("sessions show does not report the repairs:\n%s", text.out)
	}
}

// TestBinaryConfigChecks: `atelier config` refuses, with exit 2 and the
// file, line and key, what the studio would refuse: a [keys] override of
// no action, of a key it cannot read, or that collides, and a ui.theme
// file that is not a theme; a byte order mark leaves line numbers right;
// `completion` of an unknown shell is a usage error. (Before: exit 0 for
// all of them, and line 0 after a BOM.)
func TestBinaryConfigChecks(t *testing.T) {
	t.Parallel()
	b := newSandbox(t)
	dir := filepath.Dir(b.config)
	writeFile(t, filepath.Join(dir, "notatheme.toml"), "hello = 1\n")
	writeFile(t, filepath.Join(dir, "mine.toml"), "extends = \"dark\"\naccent = \"#ff0000\"\n")
	cases := []struct {
		name, toml string
		code       int
		says       []string
	}{
		{"unknown action", "[keys]\nnosuch = \"x\"\n", ExitUsage, []string{"config.toml:7:", "keys.nosuch", "no such action"}},
		{"unreadable key", "[keys]\nquit = \"ctrl+ü+x\"\n", ExitUsage, []string{"config.toml:7:", "keys.quit", "not a key"}},
		{"collision in a pane", "[keys]\n\"session.pause\" = \"j\"\n", ExitUsage, []string{"config.toml:7:", "keys.session.pause", "collides"}},
		{"shadowed by a global key", "[keys]\n\"sessions.start\" = \"q\"\n", ExitUsage, []string{"keys.sessions.start", "global"}},
		{"good override", "[keys]\nquit = \"ctrl+q\"\n", ExitOK, []string{"keys.quit"}},
		{"not a theme", "[ui]\ntheme = \"notatheme.toml\"\n", ExitUsage, []string{"config.toml:7:", "ui.theme", "not a theme file"}},
		{"a theme", "[ui]\ntheme = \"mine.toml\"\n", ExitOK, []string{"mine.toml"}},
	}
	for _, c := range cases {
		b.configure(quickAgent + c.toml)
		r := b.run("config").want(t, c.code)
		for _, want := range c.says {
			if !strings.Contains(r.out+r.err, want) {
				t.Errorf("%s: config does not say %q:\n%s%s", c.name, want, r.out, r.err)
			}
		}
	}
	b.configure("\uFEFF[ui]\ntheme = \"nosuch\"\n")
	if r := b.run("config").want(t, ExitUsage); !strings.Contains(r.err, "config.toml:2:1: ui.theme") {
		t.Errorf("after a BOM, config says:\n%s", r.err)
	}
	b.configure(quickAgent)
	for _, args := range [][]string{{"completion", "cobol"}, {"completion"}} {
		r := b.run(args...).want(t, ExitUsage)
		if !strings.Contains(r.err, "bash, zsh, fish or powershell") {
			t.Errorf("%s says:\n%s", strings.Join(args, " "), r.err)
		}
	}
	if r := b.run("completion", "bash").want(t, ExitOK); !strings.Contains(r.out, "atelier") {
		t.Errorf("completion bash printed:\n%s", r.out)
	}
}

// TestBinaryTrustReview: `atelier trust` shows the file (control
// characters as escapes) and its digest before trusting it; with no
// terminal it trusts only with --yes; a changed file is shown as a diff
// from the version trusted before. (Before: it trusted the current bytes
// at once, unseen.)
func TestBinaryTrustReview(t *testing.T) {
	t.Parallel()
	b := newSandbox(t)
	file := filepath.Join(b.ws, ".atelier.toml")
	writeFile(t, file, "default_agent = \"quick\"\n[engine]\nworkers = 3\n")
	// trusted reports whether `config` reads the workspace file: it says
	// trusted, or finds the control characters of the second version.
	trusted := func() bool {
		r := b.run("config")
		return strings.Contains(r.out, "(trusted)") || strings.Contains(r.err, "control characters")
	}

	r := b.run("trust").want(t, ExitUsage)
	if !strings.Contains(r.out, `default_agent = "quick"`) || !strings.Contains(r.out, "workers = 3") ||
		!strings.Contains(r.out, "sha256 ") || !strings.Contains(r.err, "--yes") {
		t.Errorf("trust without a terminal printed:\n%s%s", r.out, r.err)
	}
	if trusted() {
		t.Fatal("trust without a terminal or --yes trusted the file")
	}
	b.run("trust", "--yes").want(t, ExitOK)
	if !trusted() {
		t.Fatal("trust --yes did not trust the file")
	}
	if r := b.run("trust").want(t, ExitOK); !strings.Contains(r.out, "already trusted") {
		t.Errorf("trust of a trusted file printed:\n%s", r.out)
	}

	writeFile(t, file, "default_agent = \"quick\"\n# see \x1b]0;pwned\x07\n[engine]\nworkers = 2\n")
	r = b.run("trust").want(t, ExitUsage)
	for _, want := range []string{"changed since you trusted it", "--- trusted", "+++ now", `+# see \x1b]0;pwned\x07`, "-workers = 3", "+workers = 2"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("trust of a changed file does not show %q:\n%s", want, r.out)
		}
	}
	if strings.ContainsAny(r.out+r.err, "\x1b\x07") {
		t.Errorf("trust printed the file's escape sequences raw:\n%q", r.out)
	}
	if trusted() {
		t.Fatal("a changed file was trusted without --yes")
	}
	b.run("trust", "--yes").want(t, ExitOK)
	if !trusted() {
		t.Fatal("trust --yes did not trust the changed file")
	}
}
