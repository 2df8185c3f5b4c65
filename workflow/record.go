package workflow

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/workflow/runs"
)

// stepView is the step's result as templates see it (outputs clipped).
func stepView(r runs.StepResult) map[string]any {
	if r.Kind == "exec" {
		code := -1
		if r.ExitCode != nil {
			code = *r.ExitCode
		}
		return map[string]any{"exit_code": code, "stdout": clip(r.Stdout), "stderr": clip(r.Stderr)}
	}
	v := map[string]any{"text": clip(r.Text)}
	if len(r.Output) > 0 {
		var out any
		if json.Unmarshal(r.Output, &out) == nil {
			v["output"] = out
		}
	}
	return v
}

// stepResult is the step's result as the run's result: an exec's exit code
// and output, an ask's structured output, or its text.
func stepResult(r runs.StepResult) json.RawMessage {
	var v any
	switch {
	case r.Kind == "exec":
		code := -1
		if r.ExitCode != nil {
			code = *r.ExitCode
		}
		v = map[string]any{"exit_code": code, "stdout": r.Stdout, "stderr": r.Stderr}
	case len(r.Output) > 0:
		return r.Output
	default:
		v = map[string]any{"text": r.Text}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

// RunID is the id of the run of workflow name with key value key: the same
// pair always names the same run, so a repeat finds it.
func RunID(name, key string) string {
	sum := sha256.Sum256([]byte(name + "\x00" + key))
	return name + "-" + hex.EncodeToString(sum[:6])
}

// inputDigest is the SHA-256 of the input's canonical JSON (keys sorted,
// no spaces), so the same input written twice is the same.
func inputDigest(input json.RawMessage) (string, error) {
	var v any
	if err := json.Unmarshal(input, &v); err != nil {
		return "", err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return digest(b), nil
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// ReadRuns reads the runs recorded in workspace ws, newest first, without
// a runner: for a view of them in a process that does not run them (the
// studio beside its engine). Each record is written whole (atomically),
// so a read never sees half of one; a workspace without runs has none.
func ReadRuns(ws string) ([]*runs.Run, error) {
	return recordsOf(ws).list()
}

// recordsOf is the records of workspace ws.
func recordsOf(ws string) records {
	return records{dir: filepath.Join(ws, sessions.StateDir, "workflows")}
}

// records keeps runs in .state/workflows/, one JSON file per run, each
// write atomic (sessions.WriteFileAtomic): a crash leaves the run as it
// was before the write or after it.
type records struct {
	dir string
}

func (s records) path(id string) string { return filepath.Join(s.dir, id+".json") }

// save writes r.
func (s records) save(r *runs.Run) error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("record run %s: %w", r.ID, err)
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("record run %s: %w", r.ID, err)
	}
	if err := sessions.WriteFileAtomic(s.path(r.ID), append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("record run %s: %w", r.ID, err)
	}
	return nil
}

// load reads run id; ErrNotFound when there is none.
func (s records) load(id string) (*runs.Run, error) {
	if !namePattern.MatchString(id) {
		return nil, fmt.Errorf("run %q: %w", id, ErrNotFound)
	}
	b, err := os.ReadFile(s.path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("run %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("read run %s: %w", id, err)
	}
	var r runs.Run
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("read run %s: %w", id, err)
	}
	return &r, nil
}

// list reads every run, newest first.
func (s records) list() ([]*runs.Run, error) {
	ents, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	var out []*runs.Run
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !e.Type().IsRegular() {
			continue
		}
		r, err := s.load(id)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Created.After(out[j].Created) })
	return out, nil
}
