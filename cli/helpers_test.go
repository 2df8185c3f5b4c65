package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/sessions"
)

// result is what one in-process command produced.
type result struct {
	code     int
	out, err string
}

// isolate points the user configuration at an empty temporary folder, so
// no test reads the machine's own.
func isolate(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	return dir
}

// cli runs a command through Main, as the binary does.
func cli(t *testing.T, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, strings.NewReader(""), &out, &errb)
	return result{code, out.String(), errb.String()}
}

// fast runs a command with the demo agent at full speed (no pause between
// words, a short timer), so a whole demo run takes a moment.
func fast(t *testing.T, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	s := &streams{in: strings.NewReader(""), out: &out, err: &errb, env: env{getenv: os.Getenv},
		demo: &harness.Demo{Wait: 20 * time.Millisecond}}
	code := execute(s, args)
	return result{code, out.String(), errb.String()}
}

func (r result) want(t *testing.T, code int) result {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.out, r.err)
	}
	return r
}

// demoRun runs the fast demo to completion on ws and returns the id of its
// session.
func demoRun(t *testing.T, ws string, extra ...string) string {
	t.Helper()
	args := append([]string{"run", "-w", ws, "--approve", "auto", "--json"}, extra...)
	r := fast(t, append(args, "write a hello note")...).want(t, ExitOK)
	return createdID(t, r.out)
}

// createdID finds the session id in a --json event stream.
func createdID(t *testing.T, stream string) string {
	t.Helper()
	for _, line := range strings.Split(stream, "\n") {
		var ev JSONEvent
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "session_created" {
			return ev.SessionID
		}
	}
	t.Fatalf("no session_created event in:\n%s", stream)
	return ""
}

// record reads a session's record from the store, as another process would.
func record(t *testing.T, ws, id string) sessions.Session {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ws, sessions.StateDir, "sessions", id, "session.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec sessions.Session
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
