package sessions

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/internal/redact"
)

// TestLogsRedactSecrets: with a redactor, no secret value reaches any of a
// session's logs (a message, an audit event's data, a control, an
// interaction, a key's result), each line reads back as the record with
// markers in place, and a line with no secret is written as it was.
// Before, records were written as they came.
func TestLogsRedactSecrets(t *testing.T) {
	const secret = `sk-log-"quoted"-0123456789`
	s := newStore(t)
	s.SetRedactor(redact.New([]redact.Secret{{Name: "OPENAI_API_KEY", Value: secret}}))
	rec := newSession(t, s)
	l := s.Log(rec.ID)
	defer func() {
		if err := l.Close(); err != nil {
			t.Error(err)
		}
	}()
	now := time.Now()
	data, err := json.Marshal(map[string]any{"result": map[string]any{"stdout": "OPENAI_API_KEY=" + secret + "\n", "exit_code": 0}})
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{
		l.AppendMessage(Message{ID: "m1", Rev: 1, Role: Assistant, Time: now, Parts: []Part{
			{Type: TextPart, Text: "the key is " + secret},
			{Type: ToolPart, Tool: &ToolCall{ID: "c1", Name: "exec", Input: `{"command":"echo ` + secret + `"}`, Output: secret, State: ToolDone}},
		}}),
		l.AppendMessage(Message{ID: "m2", Rev: 1, Role: User, Time: now, Parts: []Part{{Type: TextPart, Text: "nothing to hide"}}}),
		l.AppendTurn(TurnEvent{Time: now, Turn: 1, Kind: "exec", Data: data}),
		l.AppendControl(Control{ID: "k1", Kind: "steer", Text: "use " + secret, Time: now}),
		l.AppendInteraction(Interaction{ID: "i1", Kind: Approval, Time: now, Command: "curl -H 'Authorization: " + secret + "'"}),
		l.AppendKey(KeyRecord{Key: "x", Op: "exec", State: KeyDone, Result: data, Time: now}),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{MessagesFile, TurnsFile, ControlsFile, InteractionsFile, KeysFile} {
		b, err := os.ReadFile(filepath.Join(s.Dir(rec.ID), f))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "0123456789") {
			t.Errorf("%s holds the secret:\n%s", f, b)
		}
		if !strings.Contains(string(b), "«redacted OPENAI_API_KEY»") {
			t.Errorf("%s has no marker:\n%s", f, b)
		}
	}
	msgs, rep, err := l.Messages()
	if err != nil || len(rep) > 0 || len(msgs) != 2 {
		t.Fatalf("messages %+v, repairs %v, %v", msgs, rep, err)
	}
	if got := msgs[0].Parts[0].Text; got != "the key is «redacted OPENAI_API_KEY»" {
		t.Errorf("text %q", got)
	}
	if tc := msgs[0].Parts[1].Tool; tc.Output != "«redacted OPENAI_API_KEY»" || !json.Valid([]byte(tc.Input)) {
		t.Errorf("tool call %+v", tc)
	}
	if msgs[1].Parts[0].Text != "nothing to hide" {
		t.Errorf("a clean message changed: %+v", msgs[1])
	}
	turns, rep, err := l.Turns()
	if err != nil || len(rep) > 0 || len(turns) != 1 || !strings.Contains(string(turns[0].Data), "OPENAI_API_KEY=«redacted OPENAI_API_KEY»") {
		t.Errorf("turns %+v, repairs %v, %v", turns, rep, err)
	}
}
