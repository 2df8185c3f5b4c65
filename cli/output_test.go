package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/internal/exemplar"
	"github.com/atelier-studio/atelier/sessions"
)

// reportSchema is an output schema with nested objects, arrays, enums,
// bounds and a pattern: the demo answers with a value built from it.
const reportSchema = `{
  "type": "object",
  "required": ["summary", "risk", "changes"],
  "properties": {
    "summary": {"type": "string", "minLength": 10},
    "risk": {"enum": ["low", "medium", "high"]},
    "changes": {"type": "array", "minItems": 1, "items": {
      "type": "object", "required": ["path", "lines"],
      "properties": {"path": {"type": "string", "pattern": "^[a-z]+\\.go$"}, "lines": {"type": "integer", "minimum": 1}}
    }}
  },
  "additionalProperties": false
}`

// schemaFile writes a schema into a temporary file and returns its path.
func schemaFile(t *testing.T, schema string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "schema.json")
	writeFile(t, p, schema)
	return p
}

// expectedOutput is what the demo answers for schema, compact, as run
// prints it.
func expectedOutput(t *testing.T, schema string) string {
	t.Helper()
	v, err := exemplar.For([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	return compactJSON(t, v) + "\n"
}

func compactJSON(t *testing.T, v []byte) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// sessionCount is the number of sessions the workspace's store holds.
func sessionCount(t *testing.T, ws string) int {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(ws, sessions.StateDir, "sessions"))
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

// TestRunOutput: `run --output` prints the validated JSON alone on stdout
// (the agent's text on stderr), and an output event with --json.
func TestRunOutput(t *testing.T) {
	isolate(t)
	ws := t.TempDir()
	schema := schemaFile(t, reportSchema)
	r := fast(t, "run", "-w", ws, "--output", schema, "summarise the change").want(t, ExitOK)
	if want := expectedOutput(t, reportSchema); r.out != want {
		t.Fatalf("stdout:\n%q\nwant exactly the validated JSON:\n%q\nstderr:\n%s", r.out, want, r.err)
	}
	if !strings.Contains(r.err, "Here is my answer") {
		t.Errorf("the agent's text should be on stderr:\n%s", r.err)
	}

	js := fast(t, "run", "-w", ws, "--json", "--output", schema, "summarise the change").want(t, ExitOK)
	ev, ok := lastEvent(t, js.out, "output")
	if !ok || ev.Output == nil || !ev.Output.Valid || ev.Output.Turn != 1 || string(ev.Output.Value)+"\n" != expectedOutput(t, reportSchema) {
		t.Fatalf("the output event: %+v (found %v)\n%s", ev.Output, ok, js.out)
	}
	rec := record(t, ws, createdID(t, js.out))
	if rec.Output == nil || !rec.Output.Valid || rec.Status != sessions.Ended || rec.EndReason != sessions.Completed {
		t.Fatalf("the session's record: %s %s, output %+v", rec.Status, rec.EndReason, rec.Output)
	}
	// sessions show says it too.
	show := cli(t, "sessions", "show", rec.ID, "-w", ws).want(t, ExitOK)
	if want := "output of turn 1 (matches its schema): " + strings.TrimSpace(expectedOutput(t, reportSchema)); !strings.Contains(show.out, want) {
		t.Errorf("sessions show does not say %q:\n%s", want, show.out)
	}
}

// TestRunOutputExitCodes: a schema that cannot be used exits 2 before any
// session is made; an answer that does not match exits 5 with the
// validation errors, and nothing on stdout.
func TestRunOutputExitCodes(t *testing.T) {
	isolate(t)
	ws := t.TempDir()
	for name, c := range map[string]struct{ schema, want string }{
		"not json":       {`{"type":`, "is not JSON"},
		"not a schema":   {`{"type":"objekt"}`, "unusable output schema"},
		"outside ref":    {`{"$ref":"file:///etc/passwd"}`, "outside the schema"},
		"not an object":  {`["string"]`, "must be a JSON object"},
		"bad constraint": {`{"type":"string","maxLength":-2}`, "maxLength"},
	} {
		t.Run(name, func(t *testing.T) {
			r := fast(t, "run", "-w", ws, "--output", schemaFile(t, c.schema), "go").want(t, ExitUsage)
			if !strings.Contains(r.err, c.want) || r.out != "" {
				t.Errorf("stderr %q, want %q; stdout %q", r.err, c.want, r.out)
			}
		})
	}
	fast(t, "run", "-w", ws, "--output", filepath.Join(t.TempDir(), "missing.json"), "go").want(t, ExitUsage)
	if n := sessionCount(t, ws); n != 0 {
		t.Fatalf("%d sessions made with unusable schemas", n)
	}

	// A schema the demo's answer cannot match: exit 5 with the errors.
	r := fast(t, "run", "-w", ws, "--output", schemaFile(t, `{"type":"object","not":{"type":"object"}}`), "go").want(t, ExitOutput)
	if r.out != "" || !strings.Contains(r.err, "does not match the output schema") || !strings.Contains(r.err, "at the root: 'not' failed") {
		t.Fatalf("stdout %q\nstderr:\n%s", r.out, r.err)
	}
	// No JSON at all (the demo cannot build a value): exit 5 too.
	r = fast(t, "run", "-w", ws, "--json", "--output", schemaFile(t, `{"type":"integer","minimum":3,"maximum":2}`), "go").want(t, ExitOutput)
	if ev, ok := lastEvent(t, r.out, "output"); !ok || ev.Output.Valid || !strings.Contains(strings.Join(ev.Output.Errors, " "), "no JSON value") {
		t.Fatalf("the output event: %+v\n%s", ev.Output, r.out)
	}
	if ev, ok := lastEvent(t, r.out, "ended"); !ok || ev.Reason != string(sessions.Failed) {
		t.Fatalf("the ended event: %+v", ev)
	}
}

// TestSendOutput: `sessions send --output --wait` on a continuous session
// prints the prompt's validated JSON; a repeated key prints the recorded
// one; an answer that does not match exits 5 and the session waits on.
func TestSendOutput(t *testing.T) {
	isolate(t)
	ws := t.TempDir()
	id := createdID(t, fast(t, "run", "-w", ws, "--json", "--mode", "continuous", "--agent", "demo", "--approve", "auto", "hello").want(t, ExitOK).out)
	schema := schemaFile(t, `{"type":"object","required":["ok","tags"],"properties":{"ok":{"const":true},"tags":{"type":"array","minItems":2,"uniqueItems":true,"items":{"type":"string"}}}}`)
	want := `{"ok":true,"tags":["example","example-2"]}` + "\n"
	r := fast(t, "sessions", "send", "-w", ws, id, "--key", "r1", "--output", schema, "--wait", "tag it").want(t, ExitOK)
	if r.out != want {
		t.Fatalf("stdout %q, want %q\nstderr:\n%s", r.out, want, r.err)
	}
	again := fast(t, "sessions", "send", "-w", ws, id, "--key", "r1", "--output", schema, "--wait", "tag it").want(t, ExitOK)
	if again.out != want || !strings.Contains(again.err, "nothing was sent again") {
		t.Fatalf("the repeated key: stdout %q\nstderr:\n%s", again.out, again.err)
	}
	fast(t, "sessions", "send", "-w", ws, id, "--key", "r1", "--output", schemaFile(t, `{"type":"string"}`), "tag it").want(t, ExitUsage)
	fast(t, "sessions", "send", "-w", ws, id, "--steer", "--output", schema, "x").want(t, ExitUsage)
	fast(t, "sessions", "send", "-w", ws, id, "--output", schemaFile(t, `{"type":7}`), "--wait", "x").want(t, ExitUsage)

	bad := fast(t, "sessions", "send", "-w", ws, id, "--output", schemaFile(t, `{"not":{}}`), "--wait", "--json", "x").want(t, ExitOutput)
	if ev, ok := lastEvent(t, bad.out, "output"); !ok || ev.Output.Valid || len(ev.Output.Errors) == 0 {
		t.Fatalf("the output event of a failed check: %+v\n%s", ev.Output, bad.out)
	}
	if rec := record(t, ws, id); rec.Status != sessions.Waiting {
		t.Fatalf("a continuous session after a failed check is %s, want WAITING", rec.Status)
	}
}

// TestBinaryOutput: structured output through the real binary and the
// workspace's engine host it starts: `run --output` prints exactly the
// validated JSON and exits 0, 2 for a schema that cannot be used (no
// session made), 5 for an answer that does not match; `sessions send
// --output --wait` likewise for a prompt queued behind a task.
func TestBinaryOutput(t *testing.T) {
	t.Parallel()
	b := newSandbox(t)
	schema := schemaFile(t, reportSchema)
	want := expectedOutput(t, reportSchema)
	r := b.run("run", "--output", schema, "summarise the change").want(t, ExitOK)
	if r.out != want {
		t.Fatalf("stdout %q, want exactly %q\nstderr:\n%s", r.out, want, r.err)
	}
	before := sessionCount(t, b.ws)
	bad := b.run("run", "--output", schemaFile(t, `{"type":"objekt"}`), "x").want(t, ExitUsage)
	if bad.out != "" || !strings.Contains(bad.err, "unusable output schema") {
		t.Fatalf("an unusable schema: stdout %q\nstderr:\n%s", bad.out, bad.err)
	}
	if n := sessionCount(t, b.ws); n != before {
		t.Fatalf("an unusable schema made a session (%d, then %d)", before, n)
	}
	fail := b.run("run", "--output", schemaFile(t, `{"not":{}}`), "x").want(t, ExitOutput)
	if fail.out != "" || !strings.Contains(fail.err, "does not match the output schema") {
		t.Fatalf("an answer that does not match: stdout %q\nstderr:\n%s", fail.out, fail.err)
	}

	id := b.create("--mode", "continuous")
	sent := b.run("sessions", "send", id, "--key", "report", "--output", schema, "--wait", "now the report").want(t, ExitOK)
	if sent.out != want {
		t.Fatalf("send --output --wait: stdout %q, want %q\nstderr:\n%s", sent.out, want, sent.err)
	}
	k := b.keys(id)["report"]
	// (`sessions keys --json` indents the value with the rest.)
	if res := promptResult(t, k); res.Output == nil || !res.Output.Valid || compactJSON(t, res.Output.Value)+"\n" != want {
		t.Fatalf("the key's result: %+v", res.Output)
	}
}
