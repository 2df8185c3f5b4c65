package transcript

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/core"
	sess "github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/themes"
)

func plainStyles() themes.Styles { return themes.Build(themes.Dark(), true) }

func textMsg(i int, role sess.Role, text string) sess.Message {
	return sess.Message{ID: fmt.Sprintf("m%05d", i), Rev: 1, Role: role, Complete: true,
		Time:  time.Date(2026, 1, 1, 12, 0, i%60, 0, time.UTC),
		Parts: []sess.Part{{Type: sess.TextPart, Text: text}}}
}

func conversation(n int) []sess.Message {
	msgs := make([]sess.Message, n)
	for i := range msgs {
		role := sess.Assistant
		if i%2 == 0 {
			role = sess.User
		}
		msgs[i] = textMsg(i+1, role, fmt.Sprintf("message %d says something long enough to wrap at narrow widths, as agents do", i+1))
	}
	return msgs
}

func plain(t *Transcript) string { return ansi.Strip(t.String()) }

func TestFollowShowsTheNewestLines(t *testing.T) {
	tr := New(plainStyles(), "demo")
	tr.SetSize(60, 6)
	tr.Set(conversation(100))
	v := plain(tr)
	if !strings.Contains(v, "message 100 says") {
		t.Fatalf("the newest message should show:\n%s", v)
	}
	if strings.Contains(v, "message 1 says") {
		t.Fatalf("the first message should not show:\n%s", v)
	}
	if n := len(tr.View()); n != 6 {
		t.Fatalf("%d lines, want 6", n)
	}
}

func TestDeltaRerendersOnlyItsItem(t *testing.T) {
	tr := New(plainStyles(), "demo")
	tr.SetSize(60, 20)
	msgs := conversation(10)
	msgs = append(msgs, sess.Message{ID: "m00011", Rev: 1, Role: sess.Assistant})
	tr.Set(msgs)
	tr.View()
	before := tr.r.renders
	if !tr.Delta(core.Delta{MessageID: "m00011", Part: 0, Type: sess.TextPart, Text: "Hello"}) {
		t.Fatal("delta refused")
	}
	tr.View()
	if got := tr.r.renders - before; got != 1 {
		t.Fatalf("a delta opening a part rendered %d items, want 1", got)
	}
	before = tr.r.renders
	tr.Delta(core.Delta{MessageID: "m00011", Part: 0, Type: sess.TextPart, Text: " world"})
	tr.View()
	if got := tr.r.renders - before; got != 1 {
		t.Fatalf("a delta rendered %d items, want 1", got)
	}
	if v := plain(tr); !strings.Contains(v, "Hello world▍") {
		t.Fatalf("streamed text with its cursor should show:\n%s", v)
	}
	if tr.Delta(core.Delta{MessageID: "m00011", Part: 5, Type: sess.TextPart, Text: "x"}) {
		t.Error("a delta skipping parts must be refused")
	}
	if tr.Delta(core.Delta{MessageID: "nope", Part: 0, Text: "x"}) {
		t.Error("a delta of an unknown message must be refused")
	}
}

func TestRevisionsMergeByRev(t *testing.T) {
	tr := New(plainStyles(), "demo")
	tr.SetSize(60, 10)
	tr.Set(nil)
	m := textMsg(1, sess.Assistant, "first")
	m.Rev = 2
	tr.Message(m)
	old := textMsg(1, sess.Assistant, "stale")
	tr.Message(old)
	if v := plain(tr); !strings.Contains(v, "first") || strings.Contains(v, "stale") {
		t.Fatalf("an older revision must not win:\n%s", v)
	}
	m.Rev = 3
	m.Parts = append(m.Parts, sess.Part{Type: sess.ErrorPart, Text: "boom"})
	tr.Message(m)
	if v := plain(tr); !strings.Contains(v, "✗ boom") {
		t.Fatalf("a newer revision adds its parts:\n%s", v)
	}
	if !tr.HasError("boom") {
		t.Error("HasError should find the error part")
	}
}

func TestScrollAndFollow(t *testing.T) {
	tr := New(plainStyles(), "demo")
	tr.SetSize(80, 5)
	tr.Set(conversation(50))
	tr.ScrollBy(-12)
	if tr.Following() {
		t.Fatal("scrolling up stops following")
	}
	up := plain(tr)
	tr.ScrollBy(-1)
	tr.ScrollBy(1)
	if plain(tr) != up {
		t.Fatalf("up one and down one should come back:\n%s\n---\n%s", up, plain(tr))
	}
	tr.ScrollBy(1000)
	if !tr.Following() {
		t.Fatal("scrolling to the end follows again")
	}
	tr.Top()
	if v := plain(tr); !strings.Contains(v, "message 1 says") {
		t.Fatalf("top shows the first message:\n%s", v)
	}
	tr.Message(textMsg(51, sess.User, "newest"))
	if v := plain(tr); strings.Contains(v, "newest") {
		t.Fatal("a new message must not yank a reader who scrolled up")
	}
	tr.Bottom()
	if v := plain(tr); !strings.Contains(v, "newest") {
		t.Fatalf("bottom shows the newest:\n%s", v)
	}
}

func TestToolCardsCollapseAndMarkInterrupts(t *testing.T) {
	tr := New(plainStyles(), "demo")
	tr.SetSize(70, 20)
	m := sess.Message{ID: "m00001", Rev: 1, Role: sess.Assistant, Complete: true, Parts: []sess.Part{
		{Type: sess.TextPart, Text: "Let me look."},
		{Type: sess.ToolPart, Tool: &sess.ToolCall{ID: "c1", Name: "exec", Input: `{"command":"ls -la"}`, Output: "total 0\nfile.go", State: sess.ToolDone}},
		{Type: sess.ToolPart, Tool: &sess.ToolCall{ID: "c2", Name: "exec", Input: `{"command":"sleep 9"}`, Output: "interrupted: cancelled by the operator", State: sess.ToolInterrupted}},
	}}
	tr.Set([]sess.Message{m})
	v := plain(tr)
	for _, want := range []string{"▸ exec ✓ done  ls -la", "▸ exec ⚠ interrupted  sleep 9", "interrupted: cancelled by the operator"} {
		if !strings.Contains(v, want) {
			t.Errorf("collapsed view lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "file.go") {
		t.Error("a collapsed card hides its result")
	}
	tr.SelectStep(-1) // the last card
	tr.SelectStep(-1) // the first card
	if !tr.Toggle() {
		t.Fatal("toggle on a card")
	}
	v = plain(tr)
	for _, want := range []string{"▾ exec", `"command": "ls -la"`, "file.go", "▌"} {
		if !strings.Contains(v, want) {
			t.Errorf("expanded view lacks %q:\n%s", want, v)
		}
	}
	if id, ok := tr.SelectedMessage(); !ok || id != "m00001" {
		t.Errorf("selected message %q %v", id, ok)
	}
}

func TestWidthChangeReflows(t *testing.T) {
	tr := New(plainStyles(), "demo")
	tr.Set(conversation(3))
	tr.SetSize(100, 30)
	wide := len(tr.View())
	tr.SetSize(30, 30)
	for _, l := range tr.View() {
		if w := ansi.StringWidth(l); w > 30 {
			t.Fatalf("line %q is %d wide at width 30", l, w)
		}
	}
	_ = wide
}
