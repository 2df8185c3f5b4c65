package workflow

import (
	"bytes"
	"encoding/json"
	"fmt"
	"text/template/parse"

	"github.com/atelier-studio/atelier/workflow/runs"
)

// TemplateLimit is how much of each output (stdout, stderr, an answer's
// text) a template sees; the run's record keeps all of it.
const TemplateLimit = 64 << 10

// clip cuts s to TemplateLimit bytes, on a rune boundary.
func clip(s string) string {
	if len(s) <= TemplateLimit {
		return s
	}
	n := TemplateLimit
	for n > 0 && !startsRune(s[n]) {
		n--
	}
	return s[:n]
}

func startsRune(b byte) bool { return b&0xC0 != 0x80 }

// templateData is what a step's template sees: .input and .steps.KEY of
// the steps done before it.
func templateData(input json.RawMessage, done []runs.StepResult) (map[string]any, error) {
	var in any
	if err := json.Unmarshal(input, &in); err != nil {
		return nil, fmt.Errorf("decode the input: %w", err)
	}
	steps := map[string]any{}
	for _, r := range done {
		steps[r.Key] = stepView(r)
	}
	return map[string]any{"input": in, "steps": steps}, nil
}

// render runs a step's template over data.
func (s Step) render(data map[string]any) (string, error) {
	var b bytes.Buffer
	if err := s.tmpl.Execute(&b, data); err != nil {
		return "", fmt.Errorf("step %q: template: %w", s.Key, err)
	}
	return b.String(), nil
}

// stepRefs lists the step keys a template names (.steps.KEY), so a
// template that names a later or unknown step fails when the workflow is
// loaded, before anything runs.
func stepRefs(n parse.Node, out map[string]bool) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, c := range n.Nodes {
			stepRefs(c, out)
		}
	case *parse.ActionNode:
		stepRefs(n.Pipe, out)
	case *parse.PipeNode:
		if n == nil {
			return
		}
		for _, c := range n.Cmds {
			stepRefs(c, out)
		}
	case *parse.CommandNode:
		for _, a := range n.Args {
			stepRefs(a, out)
		}
	case *parse.FieldNode:
		if len(n.Ident) >= 2 && n.Ident[0] == "steps" {
			out[n.Ident[1]] = true
		}
	case *parse.ChainNode:
		stepRefs(n.Node, out)
	case *parse.IfNode:
		stepRefs(&n.BranchNode, out)
	case *parse.RangeNode:
		stepRefs(&n.BranchNode, out)
	case *parse.WithNode:
		stepRefs(&n.BranchNode, out)
	case *parse.BranchNode:
		stepRefs(n.Pipe, out)
		stepRefs(n.List, out)
		stepRefs(n.ElseList, out)
	case *parse.TemplateNode:
		stepRefs(n.Pipe, out)
	}
}
