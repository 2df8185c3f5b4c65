package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeNotifySend puts a notify-send first on PATH that appends its
// arguments, one per line, to a file, with an empty line after each run;
// it returns the file.
func fakeNotifySend(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	rec := filepath.Join(t.TempDir(), "notify-send.args")
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\" >> " + rec + "; done\necho >> " + rec + "\n"
	if err := os.WriteFile(filepath.Join(bin, "notify-send"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return rec
}

// recorder is a command that writes its stdin to a file of its own per run.
func recorder(t *testing.T) (argv []string, dir string) {
	t.Helper()
	dir = t.TempDir()
	script := filepath.Join(t.TempDir(), "hook.sh")
	body := "#!/bin/sh\ncat > \"" + dir + "/event.$$.json\"\necho \"got it\"\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return []string{script}, dir
}

func events(t *testing.T, dir string) []Event {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "event.*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out []Event
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var ev Event
		if err := json.Unmarshal(b, &ev); err != nil {
			t.Fatalf("%s: %v: %q", f, err, b)
		}
		out = append(out, ev)
	}
	return out
}

// logs collects a notifier's log lines.
type logs struct {
	mu    sync.Mutex
	lines []string
}

func (l *logs) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logs) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

var sample = Event{Kind: KindApproval, Workspace: "/home/me/app", SessionID: "s1", Title: "fix-tests",
	InteractionID: "i1", Summary: "go test ./...", Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Act: Act("/home/me/app")}

// TestCommandGetsTheEventOnStdin: the command reads the event's JSON, and
// what it says goes to the log.
func TestCommandGetsTheEventOnStdin(t *testing.T) {
	argv, dir := recorder(t)
	var l logs
	n := New(Options{Settings: Settings{Command: argv, Events: []string{KindApproval}}, Logf: l.logf})
	if !n.Wants(KindApproval) || n.Wants(KindStuck) {
		t.Errorf("Wants: approval %v, stuck %v", n.Wants(KindApproval), n.Wants(KindStuck))
	}
	if !n.Post(sample) {
		t.Fatal("Post refused the event")
	}
	n.Close()
	got := events(t, dir)
	if len(got) != 1 || got[0] != sample {
		t.Fatalf("the command read %+v, want %+v", got, sample)
	}
	if !strings.Contains(l.text(), "got it") || !strings.Contains(l.text(), "through the command channel") {
		t.Errorf("the log: %s", l.text())
	}
}

// TestDesktopNotifySend: the desktop channel runs notify-send with a
// title and a body that say what waits and how to act; text that looks
// like an option or holds escape sequences stays text.
func TestDesktopNotifySend(t *testing.T) {
	rec := fakeNotifySend(t)
	n := New(Options{Settings: Settings{Desktop: "auto", Events: []string{KindStuck}},
		Getenv: env(map[string]string{"DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1/bus"})})
	ev := sample
	ev.Kind, ev.Summary = KindStuck, "--version \x1b]0;pwned\x07 no progress"
	ev.Summary = Summary(ev.Summary)
	n.Post(ev)
	n.Close()
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Split(strings.TrimSuffix(string(b), "\n\n"), "\n")
	want := []string{"--app-name=Atelier", "--urgency=critical", "--", "Atelier: a session is stuck in app",
		"fix-tests:", "--version ]0;pwned no progress", "→ atelier /home/me/app"}
	if strings.Join(args, "|") != strings.Join(want, "|") {
		t.Errorf("notify-send got\n%q\nwant\n%q", args, want)
	}
	if strings.ContainsRune(string(b), 0x1b) {
		t.Error("an escape sequence reached notify-send")
	}
}

// TestDesktopAuto: "auto" uses notify-send only where a desktop session
// is; "on" says why it cannot; "off" lists nothing.
func TestDesktopAuto(t *testing.T) {
	rec := fakeNotifySend(t)
	headless := New(Options{Settings: Settings{Desktop: "auto", Events: []string{KindApproval}}, Getenv: env(nil)})
	st := headless.Status()
	if len(st.Channels) != 1 || st.Channels[0].Ready || !strings.Contains(st.Channels[0].Note, "no desktop session") {
		t.Errorf("auto without a desktop: %+v", st)
	}
	headless.Post(sample)
	headless.Close()
	if _, err := os.Stat(rec); !os.IsNotExist(err) {
		t.Errorf("notify-send ran without a desktop session (%v)", err)
	}

	var l logs
	on := New(Options{Settings: Settings{Desktop: "on", Events: []string{KindApproval}}, Getenv: env(nil), Logf: l.logf})
	on.Post(sample)
	on.Close()
	if !strings.Contains(l.text(), "desktop channel failed") {
		t.Errorf(`desktop = "on" without a desktop session did not say so: %s`, l.text())
	}

	off := New(Options{Settings: Settings{Desktop: "off", Events: []string{KindApproval}}})
	defer off.Close()
	if st := off.Status(); len(st.Channels) != 0 || off.Wants(KindApproval) {
		t.Errorf("off: %+v", st)
	}
}

// TestTestReportsEachChannel: a test goes through every channel at once and
// says how each fared.
func TestTestReportsEachChannel(t *testing.T) {
	rec := fakeNotifySend(t)
	argv, dir := recorder(t)
	n := New(Options{Settings: Settings{Command: argv, Desktop: "auto", Events: nil},
		Getenv: env(map[string]string{"DISPLAY": ":0"})})
	defer n.Close()
	rs := n.Test(context.Background(), Event{Workspace: "/w", Act: Act("/w")})
	if len(rs) != 2 || rs[0] != (Result{Channel: "desktop"}) || rs[1] != (Result{Channel: "command"}) {
		t.Fatalf("results %+v", rs)
	}
	if got := events(t, dir); len(got) != 1 || got[0].Kind != KindTest || got[0].Summary == "" {
		t.Errorf("the command read %+v", got)
	}
	if b, err := os.ReadFile(rec); err != nil || !strings.Contains(string(b), "test notification") {
		t.Errorf("notify-send: %q, %v", b, err)
	}

	broken := New(Options{Settings: Settings{Command: []string{"/nonexistent/hook"}}})
	defer broken.Close()
	rs = broken.Test(context.Background(), Event{})
	if len(rs) != 1 || !strings.Contains(rs[0].Error, "/nonexistent/hook") {
		t.Errorf("a missing program: %+v", rs)
	}
}

// TestSlowCommandTimesOut: a command that does not finish is cut at the
// timeout, and the notifier goes on with the next event.
func TestSlowCommandTimesOut(t *testing.T) {
	script := filepath.Join(t.TempDir(), "slow.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nsleep 30\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var l logs
	n := New(Options{Settings: Settings{Command: []string{script}, Events: []string{KindApproval}, Timeout: 200 * time.Millisecond}, Logf: l.logf})
	start := time.Now()
	n.Post(sample)
	n.Post(sample)
	n.Close()
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("two timed-out runs took %s", d)
	}
	if !strings.Contains(l.text(), "did not finish within 200ms") {
		t.Errorf("the log: %s", l.text())
	}
}

// TestPostNeverBlocks: a full queue drops events (said in the log) and
// Post returns at once.
func TestPostNeverBlocks(t *testing.T) {
	script := filepath.Join(t.TempDir(), "slow.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nsleep 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var l logs
	n := New(Options{Settings: Settings{Command: []string{script}, Events: []string{KindApproval}}, Logf: l.logf,
		CloseGrace: 1500 * time.Millisecond})
	start := time.Now()
	dropped := 0
	for range QueueSize + 5 {
		if !n.Post(sample) {
			dropped++
		}
	}
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("posting took %s", d)
	}
	if dropped < 4 {
		t.Errorf("%d of %d events dropped", dropped, QueueSize+5)
	}
	n.Close()
	if !strings.Contains(l.text(), "already waiting") || !strings.Contains(l.text(), "not sent") {
		t.Errorf("the log: %s", l.text())
	}
	if n.Post(sample) {
		t.Error("a closed notifier took an event")
	}
}

func TestAct(t *testing.T) {
	for in, want := range map[string]string{"/home/me/app": "atelier /home/me/app", "/tmp/my app": "atelier '/tmp/my app'",
		"/x/it's": `atelier '/x/it'\''s'`} {
		if got := Act(in); got != want {
			t.Errorf("Act(%q) = %s, want %s", in, got, want)
		}
	}
}
