package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/atelier-studio/atelier/sessions"
)

// Structured output on the command line: `run --output FILE` and `sessions
// send --output FILE` give the engine an output JSON Schema with the task
// or the prompt. The engine (the workspace's host) checks the schema
// (unusable: exit 2, before anything is created or sent), and the turn's
// answer against it; the command reads the outcome from the session
// records of the host's event stream (Session.Output, for its prompt) and
// prints the validated JSON alone on stdout, or an output event with
// --json. An answer that does not match exits 5. The agent's text goes to
// stderr meanwhile, so stdout is the JSON and nothing else.

// maxSchema bounds an output schema file.
const maxSchema = 4 << 20

// readSchema reads an output schema file (- for standard input). A file
// that cannot be read or is not JSON is a usage error; whether it is a
// schema the engine can use, the engine says.
func (s *streams) readSchema(file string) (json.RawMessage, error) {
	if file == "" {
		return nil, nil
	}
	r := s.in
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return nil, usageErr("--output: %v", err)
		}
		// Only read: closing it cannot lose anything.
		defer func() { _ = f.Close() }()
		r = f
	} else if r == nil {
		return nil, usageErr("--output -: no standard input to read the schema from")
	}
	b, err := io.ReadAll(io.LimitReader(r, maxSchema+1))
	if err != nil {
		return nil, fmt.Errorf("read the output schema %s: %w", file, err)
	}
	if len(b) > maxSchema {
		return nil, usageErr("--output: the schema in %s is larger than %d MiB", file, maxSchema>>20)
	}
	if !json.Valid(b) {
		return nil, usageErr("--output: %s is not JSON", file)
	}
	return b, nil
}

// outputWatch is the structured answer a command waits for: that of the
// turn its prompt started (prompt is the prompt's receipt id; "" for a
// session's task).
type outputWatch struct {
	prompt string
	got    *sessions.Output
}

// see takes the output a session record carries when it is the awaited
// one.
func (w *outputWatch) see(rec sessions.Session) {
	if rec.Output != nil && rec.Output.Prompt == w.prompt {
		o := *rec.Output
		w.got = &o
	}
}

// finish reports the awaited answer at the command's stop and says how
// the command ends. stop is what the command would return without a
// schema: a stop that needs the operator or a cancel keeps its code (the
// answer, if the turn ended, is printed first); a matching answer is
// printed and the stop returned; an answer that does not match is exit 5
// with the validation errors; no answer at all keeps the stop's failure.
func (w *outputWatch) finish(out *printer, id string, stop error) error {
	if w.got != nil {
		if err := out.output(id, *w.got); err != nil {
			return withCode(ExitFailed, err)
		}
	}
	switch code := ExitCode(stop); {
	case code == ExitCancelled || code == ExitNeedsYou || code >= ExitSignal:
		return stop
	case w.got == nil && stop != nil:
		return stop
	case w.got == nil:
		return withCode(ExitFailed, fmt.Errorf("session %s stopped without a structured answer for its output schema", id))
	case !w.got.Valid:
		return withCode(ExitOutput, fmt.Errorf("session %s: the answer does not match the output schema (turn %d):\n  %s",
			id, w.got.Turn, strings.Join(w.got.Errors, "\n  ")))
	}
	return stop
}

// output prints a structured answer: an output event with --json; as
// text, the matching JSON alone on stdout (what does not match is the
// command's error). It fails when stdout cannot take the JSON.
func (p *printer) output(id string, o sessions.Output) error {
	if p.json {
		p.emit(JSONEvent{Type: "output", SessionID: id, Turn: o.Turn, Output: &o})
		return nil
	}
	if !o.Valid {
		return nil
	}
	p.finish()
	if _, err := p.s.out.Write(append(p.red.RedactJSON(o.Value), '\n')); err != nil {
		return fmt.Errorf("write the output of session %s: %w", id, err)
	}
	return nil
}
