package workflow

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/workflow/runs"
)

const head = `key = "id"
[input]
type = "object"
required = ["id"]
properties = { id = { type = "string" } }
`

func TestParseRefuses(t *testing.T) {
	for _, c := range []struct {
		name, file, want string
	}{
		{"unknown key", head + "[[steps]]\nkey = \"a\"\nexec = \"true\"\ntimeout = 3\n", "x.toml:9: unknown key \"steps.timeout\""},
		{"unknown top key", "agnet = \"demo\"\n" + head + "[[steps]]\nkey = \"a\"\nexec = \"true\"\n", "x.toml:1: unknown key \"agnet\""},
		{"not toml", "key = \n", "x.toml:1:"},
		{"step key", head + "[[steps]]\nkey = \"Build\"\nexec = \"true\"\n", "x.toml:7: step 1: key \"Build\" must be lower-case"},
		{"duplicate", head + "[[steps]]\nkey = \"a\"\nexec = \"true\"\n[[steps]]\nkey = \"a\"\nask = \"hi\"\n", "key \"a\" is used by an earlier step"},
		{"both", head + "[[steps]]\nkey = \"a\"\nexec = \"true\"\nask = \"hi\"\n", "give exactly one of exec and ask"},
		{"neither", head + "[[steps]]\nkey = \"a\"\n", "give exactly one of exec and ask"},
		{"template", head + "[[steps]]\nkey = \"a\"\nask = \"{{ .input.id \"\n", "step \"a\": template:"},
		{"later step", head + "[[steps]]\nkey = \"a\"\nask = \"{{ .steps.b.text }}\"\n[[steps]]\nkey = \"b\"\nexec = \"true\"\n", "names .steps.b, which is not an earlier step"},
		{"own step", head + "[[steps]]\nkey = \"a\"\nask = \"{{ if .steps.a }}x{{ end }}\"\n", "names .steps.a"},
		{"input schema", "key = \"id\"\n[input]\ntype = \"objekt\"\n[[steps]]\nkey = \"a\"\nexec = \"true\"\n", "x.toml:2: the input schema"},
		{"no input", "key = \"id\"\n[[steps]]\nkey = \"a\"\nexec = \"true\"\n", "no [input]"},
		{"key not required", "key = \"id\"\n[input]\ntype = \"object\"\n[[steps]]\nkey = \"a\"\nexec = \"true\"\n", "key \"id\" must be a required property"},
		{"no steps", head, "no [[steps]]"},
		{"isolation", "isolation = \"vm\"\n" + head + "[[steps]]\nkey = \"a\"\nexec = \"true\"\n", "x.toml:1: isolation must be in-place, worktree or copy, not \"vm\""},
		{"on_failure", head + "[[steps]]\nkey = \"a\"\nexec = \"true\"\non_failure = \"retry\"\n", "on_failure must be fail or continue"},
		{"output on exec", head + "[[steps]]\nkey = \"a\"\nexec = \"true\"\noutput = { type = \"object\" }\n", "output is for ask steps"},
		{"output schema", head + "[[steps]]\nkey = \"a\"\nask = \"hi\"\noutput = { type = 3 }\n", "step \"a\": the output schema cannot be used"},
		{"empty", head + "[[steps]]\nkey = \"a\"\nexec = \"  \"\n", "its exec is empty"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("x", "x.toml", []byte(c.file))
			if !errors.Is(err, ErrUnusable) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v\nwant one containing %q", err, c.want)
			}
		})
	}
}

func TestParseIssueExample(t *testing.T) {
	w, err := Parse("implement", "implement.toml", []byte(implementTOML))
	if err != nil {
		t.Fatal(err)
	}
	if w.Isolation != IsolationInPlace || len(w.Steps) != 4 || w.Steps[2].OnFailure != "fail" || w.Steps[1].Kind() != "ask" ||
		string(w.Steps[3].Output) != `{"properties":{"summary":{"type":"string"}},"required":["summary"],"type":"object"}` {
		t.Errorf("parsed %+v", w)
	}
	for _, c := range []struct{ in, key, err string }{
		{`{"requestId":"fix-001","request":"x"}`, "fix-001", ""},
		{`{"requestId":"fix-001"}`, "", "missing property 'request'"},
		{`{"requestId":7,"request":"x"}`, "", "want string"},
		{`[1]`, "", "does not match"},
		{``, "", "no input"},
	} {
		key, err := w.CheckInput(json.RawMessage(c.in))
		if key != c.key || (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("input %s: key %q, error %v; want %q, %q", c.in, key, err, c.key, c.err)
		}
	}
}

func TestTemplateClipsOutput(t *testing.T) {
	w, err := Parse("x", "x.toml", []byte(head+"[[steps]]\nkey = \"a\"\nexec = \"true\"\n[[steps]]\nkey = \"b\"\nask = \"{{ .steps.a.stdout }}|{{ .steps.a.exit_code }}\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	code := 0
	big := strings.Repeat("é", TemplateLimit) // two bytes each
	data, err := templateData(json.RawMessage(`{"id":"1"}`), []runs.StepResult{{Key: "a", Kind: "exec", ExitCode: &code, Stdout: big}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := w.Steps[1].render(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != TemplateLimit+2 || !strings.HasSuffix(got, "é|0") {
		t.Errorf("rendered %d bytes ending %q", len(got), got[len(got)-8:])
	}
	if _, err := w.Steps[1].render(map[string]any{"input": map[string]any{}, "steps": map[string]any{}}); err == nil {
		t.Error("a missing step rendered")
	}
}

func TestFinder(t *testing.T) {
	ws, user := t.TempDir(), t.TempDir()
	write := func(dir, name, body string) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	one := head + "[[steps]]\nkey = \"a\"\nexec = \"true\"\n"
	write(filepath.Join(ws, WorkspaceDir), "both.toml", "description = \"workspace\"\n"+one)
	write(filepath.Join(user, "workflows"), "both.toml", "description = \"user\"\n"+one)
	write(filepath.Join(user, "workflows"), "mine.toml", "description = \"mine\"\n"+one)
	state := config.TrustUntrusted
	f := Finder{Workspace: ws, UserDir: user, Trust: func() (config.TrustState, error) { return state, nil }}
	if _, err := f.Load("both"); !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), "atelier trust") {
		t.Errorf("untrusted workspace workflow: %v", err)
	}
	if w, err := f.Load("mine"); err != nil || w.Description != "mine" {
		t.Errorf("user workflow: %+v, %v", w, err)
	}
	state = config.TrustChanged
	if _, err := f.Load("both"); !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), "changed") {
		t.Errorf("changed workspace workflow: %v", err)
	}
	state = config.TrustTrusted
	if w, err := f.Load("both"); err != nil || w.Description != "workspace" {
		t.Errorf("trusted workspace workflow: %+v, %v", w, err)
	}
	if _, err := f.Load("none"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing: %v", err)
	}
	if _, err := f.Load("../x"); !errors.Is(err, ErrUnusable) {
		t.Errorf("a path as a name: %v", err)
	}
	all, err := f.List()
	if err != nil || len(all) != 2 || all[0].Name != "both" || !all[0].Workspace || all[1].Name != "mine" || all[1].Workspace {
		t.Errorf("list %+v, %v", all, err)
	}
}
