package workflow

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/atelier-studio/atelier/workflow/runs"
	"regexp"
	"slices"
	"strings"
	"text/template"

	"github.com/BurntSushi/toml"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/structured"
)

// Workflow is a workflow file, checked: its input schema and output
// schemas compile, its templates parse, its step keys are unique.
type Workflow struct {
	Name        string `json:"name"`
	File        string `json:"file"`
	Description string `json:"description,omitempty"`
	Agent       string `json:"agent,omitempty"`
	// Key is the input field whose value makes a run idempotent.
	Key       string          `json:"key"`
	Isolation string          `json:"isolation"`
	Input     json.RawMessage `json:"input"`
	Steps     []Step          `json:"steps"`
	// Session options, as `atelier run` takes them.
	Execution string `json:"execution,omitempty"`
	Image     string `json:"image,omitempty"`
	Access    string `json:"access,omitempty"`
	// Digest is the SHA-256 of the file's bytes: a run records the
	// version it ran.
	Digest string `json:"digest"`

	input *structured.Schema
}

// Step is one step of a workflow: an exec or an ask.
type Step struct {
	Key       string          `json:"key"`
	Exec      string          `json:"exec,omitempty"`
	Ask       string          `json:"ask,omitempty"`
	Output    json.RawMessage `json:"output,omitempty"`
	OnFailure string          `json:"on_failure,omitempty"`

	tmpl *template.Template
}

// Kind is "exec" or "ask".
func (s Step) Kind() string {
	if s.Exec != "" {
		return "exec"
	}
	return "ask"
}

// IsolationInPlace runs the steps on the workspace itself (the default);
// core.IsolationWorktree and core.IsolationCopy run them on an instance
// made for the run, its changes left there for review and apply.
const IsolationInPlace = "in-place"

// fileShape is the TOML as written; Parse checks it into a Workflow.
type fileShape struct {
	Description string         `toml:"description"`
	Agent       string         `toml:"agent"`
	Key         string         `toml:"key"`
	Isolation   string         `toml:"isolation"`
	Execution   string         `toml:"execution"`
	Image       string         `toml:"image"`
	Access      string         `toml:"access"`
	Input       map[string]any `toml:"input"`
	Steps       []stepShape    `toml:"steps"`
}

type stepShape struct {
	Key       string         `toml:"key"`
	Exec      *string        `toml:"exec"`
	Ask       *string        `toml:"ask"`
	Output    map[string]any `toml:"output"`
	OnFailure string         `toml:"on_failure"`
}

var (
	stepKeyPattern = regexp.MustCompile(`^[a-z0-9_]+$`)
	namePattern    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)
)

// Parse reads the workflow file named name at path with content data and
// checks everything that can be checked before a run: the error names the
// file (and the line, where the TOML decoder or a key's place tells it)
// and wraps ErrUnusable.
func Parse(name, path string, data []byte) (*Workflow, error) {
	fail := func(line int, format string, a ...any) error {
		at := path
		if line > 0 {
			at = fmt.Sprintf("%s:%d", path, line)
		}
		return &UnusableError{At: at, Msg: fmt.Sprintf(format, a...)}
	}
	if !namePattern.MatchString(name) {
		return nil, fail(0, "the workflow name %q must be letters, digits, '_', '-' or '.'", name)
	}
	var f fileShape
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fail(pe.Position.Line, "%s", pe.Message)
		}
		return nil, fail(0, "%v", err)
	}
	for _, k := range md.Undecoded() {
		if inSchema(k) {
			continue // a schema's keywords are the schema's to check
		}
		return nil, fail(keyLine(data, k[len(k)-1]), "unknown key %q", k.String())
	}
	w := &Workflow{Name: name, File: path, Description: f.Description, Agent: f.Agent, Key: f.Key,
		Isolation: f.Isolation, Execution: f.Execution, Image: f.Image, Access: f.Access, Digest: digest(data)}
	if err := w.checkHead(&f, data, fail); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i, s := range f.Steps {
		st, err := checkStep(i, s, seen, data, fail)
		if err != nil {
			return nil, err
		}
		w.Steps = append(w.Steps, st)
	}
	return w, nil
}

// inSchema reports whether key k is inside a JSON Schema (the input, or a
// step's output), whose keys the decoder leaves undecoded.
func inSchema(k toml.Key) bool {
	if len(k) > 0 && k[0] == "input" {
		return true
	}
	return len(k) > 1 && k[0] == "steps" && slices.Contains(k[1:len(k)-1], "output")
}

// checkHead checks the keys outside the steps.
func (w *Workflow) checkHead(f *fileShape, data []byte, fail func(int, string, ...any) error) error {
	switch w.Isolation {
	case "":
		w.Isolation = IsolationInPlace
	case IsolationInPlace, core.IsolationWorktree, core.IsolationCopy:
	default:
		return fail(keyLine(data, "isolation"), "isolation must be %s, %s or %s, not %q",
			IsolationInPlace, core.IsolationWorktree, core.IsolationCopy, w.Isolation)
	}
	switch w.Execution {
	case "", "local", "docker":
	default:
		return fail(keyLine(data, "execution"), "execution must be local or docker, not %q", w.Execution)
	}
	switch w.Access {
	case "", "read-write", "read-only":
	default:
		return fail(keyLine(data, "access"), "access must be read-write or read-only, not %q", w.Access)
	}
	if f.Input == nil {
		return fail(0, "no [input]: a workflow declares its input as a JSON Schema")
	}
	raw, err := json.Marshal(f.Input)
	if err != nil {
		return fail(keyLine(data, "[input]"), "the input schema: %v", err)
	}
	if w.input, err = structured.Compile(raw); err != nil {
		return fail(keyLine(data, "[input]"), "the input schema: %v", err)
	}
	w.Input = w.input.Raw()
	if w.Key == "" {
		return fail(0, "no key: name the input field that makes a run idempotent (key = \"requestId\")")
	}
	if !requires(f.Input, w.Key) {
		return fail(keyLine(data, "key"), "key %q must be a required property of the input", w.Key)
	}
	if len(f.Steps) == 0 {
		return fail(0, "no [[steps]]: a workflow has at least one step")
	}
	return nil
}

// requires reports whether the input schema lists field as required.
func requires(schema map[string]any, field string) bool {
	req, _ := schema["required"].([]any)
	for _, r := range req {
		if r == field {
			return true
		}
	}
	return false
}

// checkStep checks step i and parses its template.
func checkStep(i int, s stepShape, seen map[string]bool, data []byte, fail func(int, string, ...any) error) (Step, error) {
	n := i + 1
	line := keyLine(data, `key = "`+s.Key+`"`)
	if !stepKeyPattern.MatchString(s.Key) {
		return Step{}, fail(line, "step %d: key %q must be lower-case letters, digits and '_' (templates name it)", n, s.Key)
	}
	if seen[s.Key] {
		return Step{}, fail(line, "step %d: key %q is used by an earlier step", n, s.Key)
	}
	seen[s.Key] = true
	if (s.Exec == nil) == (s.Ask == nil) {
		return Step{}, fail(line, "step %q: give exactly one of exec and ask", s.Key)
	}
	st := Step{Key: s.Key, OnFailure: s.OnFailure}
	text := ""
	if s.Exec != nil {
		st.Exec, text = *s.Exec, *s.Exec
	} else {
		st.Ask, text = *s.Ask, *s.Ask
	}
	if strings.TrimSpace(text) == "" {
		return Step{}, fail(line, "step %q: its %s is empty", s.Key, st.Kind())
	}
	switch st.OnFailure {
	case "":
		st.OnFailure = "fail"
	case "fail", "continue":
	default:
		return Step{}, fail(line, "step %q: on_failure must be fail or continue, not %q", s.Key, s.OnFailure)
	}
	if s.Output != nil {
		if st.Kind() != "ask" {
			return Step{}, fail(line, "step %q: output is for ask steps", s.Key)
		}
		raw, err := json.Marshal(s.Output)
		if err != nil {
			return Step{}, fail(line, "step %q: output schema: %v", s.Key, err)
		}
		sc, err := structured.Compile(raw)
		if err != nil {
			return Step{}, fail(line, "step %q: %v", s.Key, err)
		}
		st.Output = sc.Raw()
	}
	t, err := template.New(s.Key).Option("missingkey=error").Parse(text)
	if err != nil {
		return Step{}, fail(line, "step %q: template: %v", s.Key, err)
	}
	refs := map[string]bool{}
	stepRefs(t.Root, refs)
	for r := range refs {
		if !seen[r] || r == s.Key {
			return Step{}, fail(line, "step %q: its template names .steps.%s, which is not an earlier step", s.Key, r)
		}
	}
	st.tmpl = t
	return st, nil
}

// keyLine finds the first line that starts with needle (a key name, or a
// table header): BurntSushi/toml keeps key positions private, so this is
// a best effort that gives 0 when it finds none.
func keyLine(data []byte, needle string) int {
	for i, l := range bytes.Split(data, []byte("\n")) {
		t := strings.TrimSpace(string(l))
		if strings.HasPrefix(t, needle) {
			rest := strings.TrimSpace(t[len(needle):])
			if strings.HasPrefix(needle, "[") || strings.HasPrefix(needle, "key = ") || strings.HasPrefix(rest, "=") {
				return i + 1
			}
		}
	}
	return 0
}

// CheckInput validates input against the workflow's input schema and
// returns the idempotency key's value (a string or a number, written as
// JSON has it).
func (w *Workflow) CheckInput(input json.RawMessage) (string, error) {
	if len(bytes.TrimSpace(input)) == 0 {
		return "", &UnusableError{At: w.File, Msg: "no input: give --input JSON"}
	}
	if errs := w.input.Validate(input); len(errs) > 0 {
		return "", &UnusableError{At: w.File, Msg: "the input does not match the workflow's input schema: " + strings.Join(errs, "; ")}
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(input, &obj); err != nil {
		return "", &UnusableError{At: w.File, Msg: "the input must be a JSON object"}
	}
	raw, ok := obj[w.Key]
	if !ok {
		return "", &UnusableError{At: w.File, Msg: fmt.Sprintf("the input has no %q: it is the workflow's key", w.Key)}
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s == "" {
			return "", &UnusableError{At: w.File, Msg: fmt.Sprintf("the input's %q is empty: it is the workflow's key", w.Key)}
		}
		return s, nil
	}
	var c bytes.Buffer
	if err := json.Compact(&c, raw); err != nil {
		return "", &UnusableError{At: w.File, Msg: err.Error()}
	}
	return c.String(), nil
}

// Step returns the step with key k.
func (w *Workflow) Step(k string) (Step, bool) {
	for _, s := range w.Steps {
		if s.Key == k {
			return s, true
		}
	}
	return Step{}, false
}

// plan is the workflow's steps as a run's record lists them.
func (w *Workflow) plan() []runs.PlannedStep {
	out := make([]runs.PlannedStep, 0, len(w.Steps))
	for _, s := range w.Steps {
		out = append(out, runs.PlannedStep{Key: s.Key, Kind: s.Kind()})
	}
	return out
}
