package core

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/sessions"
)

const reportSchema = `{"type":"object","required":["summary","risk"],"properties":{
	"summary":{"type":"string"},"risk":{"enum":["low","high"]}},"additionalProperties":false}`

// promptOutput sends a keyed prompt with the report schema to a WAITING
// continuous session and waits for the turn to end; it returns the
// session, the key's result and the output line of the audit log.
func promptOutput(t *testing.T, r *rig, id, key string) (sessions.Session, PromptResult, sessions.Output) {
	t.Helper()
	turns := mustSession(t, r, id).Turns
	if _, err := r.e.As("").Prompt(id, Prompt{Text: "report", Key: key, Output: json.RawMessage(reportSchema)}); err != nil {
		t.Fatal(err)
	}
	ev := r.until("the prompt's turn ends", func(ev Event) bool {
		return ev.Kind == EvSession && ev.SessionID == id && ev.Session.Turns == turns+1 &&
			ev.Session.Status != sessions.Running && ev.Session.TurnOutputSchema == nil
	})
	k, ok, _ := r.e.KeyResult(id, key)
	if !ok || k.State != sessions.KeyDone {
		t.Fatalf("key %s: %+v", key, k)
	}
	var res PromptResult
	if err := json.Unmarshal(k.Result, &res); err != nil {
		t.Fatal(err)
	}
	return *ev.Session, res, lastOutputLine(t, r, id)
}

func mustSession(t *testing.T, r *rig, id string) sessions.Session {
	t.Helper()
	rec, err := r.e.Session(id)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// lastOutputLine is the last "output" line of a session's turns.jsonl.
func lastOutputLine(t *testing.T, r *rig, id string) sessions.Output {
	t.Helper()
	evs, _, err := r.e.store.Log(id).Turns()
	if err != nil {
		t.Fatal(err)
	}
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Kind == "output" {
			var o sessions.Output
			if err := json.Unmarshal(evs[i].Data, &o); err != nil {
				t.Fatal(err)
			}
			return o
		}
	}
	t.Fatalf("no output line in the audit log of %s", id)
	return sessions.Output{}
}

func TestPromptOutputValid(t *testing.T) {
	m := &scripted.Model{Script: []scripted.Step{{Text: "hello"},
		{Text: "Here you go:\n```json\n{\"summary\": \"two files changed\", \"risk\": \"low\"}\n```\n"}}}
	r := newRig(t, MapResolver{"a": m})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Mode: sessions.Continuous, Instructions: "hi"}).ID
	r.status(id, sessions.Waiting)
	rec, res, line := promptOutput(t, r, id, "k1")
	want := `{"summary":"two files changed","risk":"low"}`
	if rec.Status != sessions.Waiting || rec.Output == nil || !rec.Output.Valid || string(rec.Output.Value) != want {
		t.Fatalf("session after the turn: %s, output %+v", rec.Status, rec.Output)
	}
	if rec.Output.Turn != 2 || rec.Output.Prompt == "" {
		t.Fatalf("output names turn %d, prompt %q", rec.Output.Turn, rec.Output.Prompt)
	}
	if res.Output == nil || string(res.Output.Value) != want || res.Outcome != "complete" {
		t.Fatalf("key result %+v", res)
	}
	if !line.Valid || string(line.Value) != want {
		t.Fatalf("audit log output %+v", line)
	}
	// The model got the schema, and the user's message the guidance.
	reqs := m.Requests()
	if string(reqs[1].Output) != compact(t, reportSchema) || reqs[0].Output != nil {
		t.Fatalf("schemas given to the model: %q, %q", reqs[0].Output, reqs[1].Output)
	}
	last := reqs[1].History[len(reqs[1].History)-1]
	if last.Role != sessions.User || !strings.HasPrefix(last.Text(), "report\n\nGive your answer as JSON") ||
		!strings.Contains(last.Text(), `Required fields: "summary" (string), "risk" (one of "low", "high")`) {
		t.Fatalf("the prompt as the model saw it: %q", last.Text())
	}
}

func compact(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestPromptOutputInvalidAndMissing(t *testing.T) {
	m := &scripted.Model{Script: []scripted.Step{{Text: "hello"},
		{Text: `{"summary": "x", "risk": "medium"}`},
		{Text: "I would rather not say."},
		{Text: "a free answer"}}}
	r := newRig(t, MapResolver{"a": m})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Mode: sessions.Continuous, Instructions: "hi"}).ID
	r.status(id, sessions.Waiting)

	rec, res, line := promptOutput(t, r, id, "bad")
	if rec.Status != sessions.Waiting || rec.Output == nil || rec.Output.Valid || rec.Output.Value != nil {
		t.Fatalf("a continuous session after an invalid answer: %s, %+v", rec.Status, rec.Output)
	}
	if got := strings.Join(res.Output.Errors, "\n"); !strings.Contains(got, "at /risk: value must be one of 'low', 'high'") {
		t.Fatalf("key result errors %q", res.Output.Errors)
	}
	if line.Valid || len(line.Errors) == 0 {
		t.Fatalf("audit log output %+v", line)
	}
	msgs, _, _ := r.e.Transcript(id)
	if n := msgs[len(msgs)-1]; n.Role != sessions.Notice || !strings.Contains(n.Parts[0].Text, "does not match the output schema") {
		t.Fatalf("no notice of the failed check: %+v", n)
	}

	_, res, _ = promptOutput(t, r, id, "missing")
	if res.Output == nil || res.Output.Valid || !strings.Contains(res.Output.Errors[0], "holds no JSON value") {
		t.Fatalf("a missing answer: %+v", res.Output)
	}
	// No repair turn: the model was called once per prompt.
	if n := len(m.Requests()); n != 3 {
		t.Fatalf("%d model calls, want 3 (no automatic repair turn)", n)
	}
	// A prompt without a schema records no output and keeps the last one.
	if _, err := r.e.As("").Send(id, "free", "free"); err != nil {
		t.Fatal(err)
	}
	r.until("turn 4 ends", func(ev Event) bool {
		return ev.Kind == EvSession && ev.SessionID == id && ev.Session.Turns == 4 && ev.Session.Status == sessions.Waiting
	})
	k, _, _ := r.e.KeyResult(id, "free")
	var free PromptResult
	if err := json.Unmarshal(k.Result, &free); err != nil || free.Output != nil {
		t.Fatalf("a free prompt's result %s (%v)", k.Result, err)
	}
	if rec := mustSession(t, r, id); rec.Output == nil || rec.Output.Turn != 3 {
		t.Fatalf("the session's output after a free turn: %+v", rec.Output)
	}
}

func TestTaskOutputOneShot(t *testing.T) {
	cases := []struct {
		name, answer string
		status       sessions.EndReason
		valid        bool
	}{
		{"valid", "Report: {\"summary\": \"ok\", \"risk\": \"high\"}", sessions.Completed, true},
		{"invalid", "```json\n{\"summary\": 3}\n```", sessions.Failed, false},
		{"missing", "no json", sessions.Failed, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := &scripted.Model{Script: []scripted.Step{{Text: c.answer}}}
			r := newRig(t, MapResolver{"a": m})
			id := r.create(CreateOptions{Agent: "a", AutoStart: true, Instructions: "report",
				OutputSchema: json.RawMessage(reportSchema)}).ID
			rec := r.status(id, sessions.Ended)
			if rec.EndReason != c.status || rec.Output == nil || rec.Output.Valid != c.valid || rec.Output.Prompt != "" || rec.Output.Turn != 1 {
				t.Fatalf("ended %s (%s), output %+v", rec.EndReason, rec.Error, rec.Output)
			}
			if !c.valid && !strings.Contains(rec.Error, "does not match its output schema") {
				t.Fatalf("the session's error %q", rec.Error)
			}
			if rec.OutputSchema == nil || rec.TurnOutputSchema != nil {
				t.Fatalf("schemas on the record: task %s, turn %s", rec.OutputSchema, rec.TurnOutputSchema)
			}
			if n := len(m.Requests()); n != 1 {
				t.Fatalf("%d model calls", n)
			}
		})
	}
}

func TestUnusableSchemaRefusedBeforeAnyModelCall(t *testing.T) {
	m := &scripted.Model{}
	r := newRig(t, MapResolver{"a": m})
	for _, bad := range []string{`{"type":"objekt"}`, `{"$ref":"file:///etc/passwd"}`, `[1]`, `{"type":`} {
		_, err := r.e.Create(CreateOptions{Agent: "a", AutoStart: true, Instructions: "x", OutputSchema: json.RawMessage(bad)})
		if !errors.Is(err, ErrOutputSchema) {
			t.Fatalf("Create with %s: %v, want ErrOutputSchema", bad, err)
		}
	}
	if n := len(r.e.Sessions()); n != 0 {
		t.Fatalf("%d sessions made with unusable schemas", n)
	}
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Mode: sessions.Continuous, Instructions: "x"}).ID
	r.status(id, sessions.Waiting)
	if _, err := r.e.As("").Prompt(id, Prompt{Text: "y", Key: "k", Output: json.RawMessage(`{"minLength":"three"}`)}); !errors.Is(err, ErrOutputSchema) {
		t.Fatalf("Prompt with an unusable schema: %v", err)
	}
	if _, ok, _ := r.e.KeyResult(id, "k"); ok {
		t.Fatal("the refused prompt's key was recorded")
	}
	ctls, _, _ := r.e.store.Log(id).Controls()
	for _, c := range ctls {
		if c.Kind == sessions.CtlPrompt {
			t.Fatalf("the refused prompt was recorded: %+v", c)
		}
	}
	if n := len(m.Requests()); n != 1 {
		t.Fatalf("%d model calls, want the task's only", n)
	}
}

func TestOutputKeyConflict(t *testing.T) {
	g := make(chan struct{})
	m := &scripted.Model{Script: []scripted.Step{{Text: "hi", Gate: g}}}
	r := newRig(t, MapResolver{"a": m})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Mode: sessions.Continuous, Instructions: "x"}).ID
	r.streaming(id)
	if _, err := r.e.As("").Prompt(id, Prompt{Text: "report", Key: "k", Output: json.RawMessage(reportSchema)}); err != nil {
		t.Fatal(err)
	}
	rc, err := r.e.As("").Prompt(id, Prompt{Text: "report", Key: "k", Output: json.RawMessage(" " + reportSchema)})
	if err != nil || rc.Key == nil {
		t.Fatalf("the same prompt and schema again: %+v %v, want a repeat", rc, err)
	}
	if _, err := r.e.As("").Prompt(id, Prompt{Text: "report", Key: "k", Output: json.RawMessage(`{"type":"string"}`)}); !errors.Is(err, ErrKeyConflict) {
		t.Fatalf("the same key with another schema: %v, want ErrKeyConflict", err)
	}
	if _, err := r.e.As("").Send(id, "report", "k"); !errors.Is(err, ErrKeyConflict) {
		t.Fatalf("the same key without the schema: %v, want ErrKeyConflict", err)
	}
	close(g)
}

func TestDemoAnswersWithTheSchema(t *testing.T) {
	r := newRig(t, MapResolver{"demo": &harness.Demo{}})
	schema := `{"type":"object","required":["summary","changes","risk"],"properties":{
		"summary":{"type":"string","minLength":10},
		"changes":{"type":"array","minItems":1,"items":{"type":"object","required":["path","lines"],
			"properties":{"path":{"type":"string","pattern":"^[a-z]+\\.go$"},"lines":{"type":"integer","minimum":1}}}},
		"risk":{"enum":["low","medium","high"]}}}`
	id := r.create(CreateOptions{Agent: "demo", AutoStart: true, Instructions: "summarise", OutputSchema: json.RawMessage(schema)}).ID
	rec := r.status(id, sessions.Ended)
	if rec.EndReason != sessions.Completed || rec.Output == nil || !rec.Output.Valid {
		t.Fatalf("the demo's structured answer: %s %q, %+v", rec.EndReason, rec.Error, rec.Output)
	}
	var v struct {
		Summary string
		Changes []struct {
			Path  string
			Lines int
		}
		Risk string
	}
	if err := json.Unmarshal(rec.Output.Value, &v); err != nil || len(v.Changes) != 1 || !strings.HasSuffix(v.Changes[0].Path, ".go") {
		t.Fatalf("value %s (%v)", rec.Output.Value, err)
	}
}

// TestOutputSurvivesQuit: a turn with an output schema that the engine
// left mid-call resumes in the next engine with its schema: the model is
// given it again, and the answer is checked when the resumed turn ends.
func TestOutputSurvivesQuit(t *testing.T) {
	ws := t.TempDir()
	r := openRig(t, ws, MapResolver{"a": approvalModel()})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Instructions: "report", OutputSchema: json.RawMessage(reportSchema)}).ID
	it := r.interaction(id, sessions.Approval)
	if err := r.e.Close(); err != nil {
		t.Fatal(err)
	}
	m2 := &scripted.Model{Script: []scripted.Step{{Text: "```json\n{\"summary\":\"resumed\",\"risk\":\"low\"}\n```"}}}
	r2 := openRig(t, ws, MapResolver{"a": m2})
	if err := r2.e.As("").Answer(id, it.ID, Answer{Decision: sessions.AllowOnce}); err != nil {
		t.Fatal(err)
	}
	rec := r2.status(id, sessions.Ended)
	if rec.EndReason != sessions.Completed || rec.Output == nil || !rec.Output.Valid || string(rec.Output.Value) != `{"summary":"resumed","risk":"low"}` {
		t.Fatalf("after the resumed turn: %s %q, output %+v", rec.EndReason, rec.Error, rec.Output)
	}
	if reqs := m2.Requests(); len(reqs) != 1 || len(reqs[0].Output) == 0 {
		t.Fatalf("the resumed turn's model call lacked the schema: %+v", reqs)
	}
}

// TestStoppedTurnRecordsNoOutput: a turn with a schema that the operator
// stops has no answer to check: no output is recorded, its key says stop,
// and the schema does not carry over to the next turn.
func TestStoppedTurnRecordsNoOutput(t *testing.T) {
	g := make(chan struct{})
	m := &scripted.Model{Script: []scripted.Step{{Text: "hi"}, {Text: "thinking", Gate: g}, {Text: "free answer"}}}
	r := newRig(t, MapResolver{"a": m})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Mode: sessions.Continuous, Instructions: "x"}).ID
	r.status(id, sessions.Waiting)
	if _, err := r.e.As("").Prompt(id, Prompt{Text: "report", Key: "k", Output: json.RawMessage(reportSchema)}); err != nil {
		t.Fatal(err)
	}
	r.streaming(id)
	if _, err := r.e.As("").Stop(id); err != nil {
		t.Fatal(err)
	}
	r.until("the stop", func(ev Event) bool {
		return ev.Kind == EvSession && ev.SessionID == id && ev.Session.Status == sessions.Waiting && ev.Session.Turns == 2
	})
	close(g)
	k, _, _ := r.e.KeyResult(id, "k")
	var res PromptResult
	if err := json.Unmarshal(k.Result, &res); err != nil || res.Outcome != "stop" || res.Output != nil {
		t.Fatalf("the stopped key's result %s (%v)", k.Result, err)
	}
	if rec := mustSession(t, r, id); rec.Output != nil || rec.TurnOutputSchema != nil {
		t.Fatalf("after the stop: output %+v, turn schema %s", rec.Output, rec.TurnOutputSchema)
	}
	if _, err := r.e.As("").Send(id, "next", ""); err != nil {
		t.Fatal(err)
	}
	r.until("turn 3", func(ev Event) bool {
		return ev.Kind == EvSession && ev.SessionID == id && ev.Session.Turns == 3 && ev.Session.Status == sessions.Waiting
	})
	if reqs := m.Requests(); len(reqs[len(reqs)-1].Output) != 0 {
		t.Fatal("the schema of the stopped turn carried over to the next")
	}
	if rec := mustSession(t, r, id); rec.Output != nil {
		t.Fatalf("a free turn recorded an output: %+v", rec.Output)
	}
}
