package transcript

import (
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/core"
	sess "github.com/atelier-studio/atelier/sessions"
)

func TestAnswersDrawAsMarkdown(t *testing.T) {
	tr := New(plainStyles(), "demo")
	tr.SetSize(60, 20)
	msgs := []sess.Message{
		textMsg(1, sess.User, "**not** markdown"),
		{ID: "m00002", Rev: 1, Role: sess.Assistant, Parts: []sess.Part{{Type: sess.TextPart, Text: "# Done\n\nIt **works**.\n\n```go\nx := 1"}}},
	}
	tr.Set(msgs)
	v := plain(tr)
	for _, want := range []string{"**not** markdown", "# Done", "It works.", "│ x := 1▍"} {
		if !strings.Contains(v, want) {
			t.Errorf("%q should show (prompts as written, answers drawn):\n%s", want, v)
		}
	}
	tr.SetRaw(true)
	if v := plain(tr); !strings.Contains(v, "It **works**.") || !strings.Contains(v, "```go") {
		t.Errorf("raw, the answer shows as its source:\n%s", v)
	}
	tr.SetRaw(false)
	if v := plain(tr); !strings.Contains(v, "It works.") {
		t.Errorf("drawn again after raw:\n%s", v)
	}
}

func TestDeltaDrawsTheAnswersTailOnly(t *testing.T) {
	tr := New(plainStyles(), "demo")
	tr.SetSize(60, 20)
	tr.Set([]sess.Message{{ID: "m00001", Rev: 1, Role: sess.Assistant,
		Parts: []sess.Part{{Type: sess.TextPart, Text: "# One\n\nTwo.\n\n- three"}}}})
	tr.View()
	doc := &tr.entries[0].items[1].md
	before := doc.Renders()
	tr.Delta(core.Delta{MessageID: "m00001", Part: 0, Type: sess.TextPart, Text: "\n- four"})
	if v := plain(tr); !strings.Contains(v, "• four▍") {
		t.Fatalf("the delta should show:\n%s", v)
	}
	if got := doc.Renders() - before; got != 1 {
		t.Fatalf("a delta drew %d Markdown blocks, want 1 (the open tail)", got)
	}
}

// TestClearMarkerDraws: a clear's marker shows under its own header, as
// written, between what the agent no longer sees and what follows.
func TestClearMarkerDraws(t *testing.T) {
	tr := New(plainStyles(), "demo")
	tr.SetSize(60, 20)
	tr.Set([]sess.Message{
		textMsg(1, sess.User, "before"),
		textMsg(2, sess.Cleared, "history cleared: the agent starts afresh from here"),
		textMsg(3, sess.User, "after"),
	})
	v := plain(tr)
	b, c, a := strings.Index(v, "before"), strings.Index(v, "✂ cleared"), strings.Index(v, "after")
	if b < 0 || c < b || a < c || !strings.Contains(v, "history cleared: the agent starts afresh") || strings.Contains(v, "◆ demo") {
		t.Fatalf("the clear marker:\n%s", v)
	}
}
