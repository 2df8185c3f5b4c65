package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/internal/golden"
)

// idPattern matches the engine's ids (sessions, messages, interactions,
// controls): a UTC time stamp and random hex.
var idPattern = regexp.MustCompile(`^[0-9]{12}[0-9a-f]{10}$`)

// normaliser makes a --json event stream comparable across runs: ids are
// numbered in order of appearance, times and the workspace path replaced,
// a command's output (ls -la of a temporary folder) elided, and
// consecutive deltas of one part merged (how a reader's deltas coalesce
// depends on timing).
type normaliser struct {
	ws  string
	ids map[string]string
}

func (n *normaliser) value(key string, v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, vv := range x {
			x[k] = n.value(k, vv)
		}
		if x["name"] == "exec" && x["output"] != nil {
			x["output"] = "<command output>"
		}
		return x
	case []any:
		for i := range x {
			x[i] = n.value(key, x[i])
		}
		return x
	case string:
		switch key {
		case "time", "created_at", "updated_at", "deadline", "since":
			return "<time>"
		case "commit":
			return "<commit>"
		case "seal":
			return "<seal>" // an HMAC under this run's own secret
		}
		if idPattern.MatchString(x) {
			if _, ok := n.ids[x]; !ok {
				n.ids[x] = fmt.Sprintf("<id%d>", len(n.ids)+1)
			}
			return n.ids[x]
		}
		return strings.ReplaceAll(x, n.ws, "<ws>")
	}
	return v
}

// normalise checks the stream's framing (one JSON object per line, seq
// increasing) and returns it in comparable form.
func normalise(t *testing.T, ws, stream string) string {
	t.Helper()
	n := &normaliser{ws: ws, ids: map[string]string{}}
	var out []map[string]any
	var last float64
	for i, line := range strings.Split(strings.TrimSuffix(stream, "\n"), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("line %d is not one JSON object: %v\n%s", i+1, err, line)
		}
		if seq, ok := ev["seq"].(float64); ok {
			if seq <= last {
				t.Fatalf("line %d: seq %v after %v", i+1, seq, last)
			}
			last = seq
			ev["seq"] = "<seq>"
		}
		if _, ok := ev["time"]; !ok {
			t.Fatalf("line %d has no time: %s", i+1, line)
		}
		n.value("", ev)
		if k := len(out) - 1; k >= 0 && ev["type"] == "delta" && out[k]["type"] == "delta" {
			a, b := out[k]["delta"].(map[string]any), ev["delta"].(map[string]any)
			if a["message_id"] == b["message_id"] && a["part"] == b["part"] {
				a["text"] = a["text"].(string) + b["text"].(string)
				continue
			}
		}
		out = append(out, ev)
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, ev := range out {
		if err := enc.Encode(ev); err != nil { // keys sorted, one object per line
			t.Fatal(err)
		}
	}
	return b.String()
}

// TestRunJSONStream keeps the --json event stream of a whole demo run (an
// approved command, an approved write, a question answered by its default,
// a timer) as its golden file shows it.
func TestRunJSONStream(t *testing.T) {
	isolate(t)
	ws := t.TempDir()
	r := fast(t, "run", "-w", ws, "--approve", "auto", "--json", "write a hello note").want(t, ExitOK)
	if r.err != "" {
		t.Errorf("stderr of a --json run: %s", r.err)
	}
	got := normalise(t, ws, r.out)
	for _, typ := range []string{"session_created", "status", "delta", "message", "interaction", "ended"} {
		if !strings.Contains(got, `"type":"`+typ+`"`) {
			t.Errorf("no %s event", typ)
		}
	}
	golden.File(t, filepath.Join("testdata", "run-demo.jsonl"), got)
}
