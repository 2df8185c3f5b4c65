package transcript

import (
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/core"
	sess "github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/themes"
)

// BenchmarkTranscriptView10k draws a frame of a 10,000-message transcript at
// 200x60, scrolling a page per frame so every frame renders new items too.
func BenchmarkTranscriptView10k(b *testing.B) {
	tr := New(themes.Build(themes.Dark(), false), "demo")
	tr.SetSize(200, 60)
	tr.Set(conversation(10_000))
	tr.View()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%200 == 0 {
			tr.Bottom()
		}
		tr.Page(-1)
		if len(tr.View()) != 60 {
			b.Fatal("short frame")
		}
	}
}

// BenchmarkTranscriptViewFollow10k draws the steady frame of a 10,000-message
// transcript that follows its end: every item comes from the cache.
func BenchmarkTranscriptViewFollow10k(b *testing.B) {
	tr := New(themes.Build(themes.Dark(), false), "demo")
	tr.SetSize(200, 60)
	tr.Set(conversation(10_000))
	tr.View()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tr.View()
	}
}

// BenchmarkTranscriptAppend applies one streamed delta to a 10,000-message
// transcript and draws the frame.
func BenchmarkTranscriptAppend(b *testing.B) {
	tr := New(themes.Build(themes.Dark(), false), "demo")
	tr.SetSize(200, 60)
	msgs := conversation(10_000)
	msgs = append(msgs, sess.Message{ID: "m99999", Rev: 1, Role: sess.Assistant,
		Parts: []sess.Part{{Type: sess.TextPart, Text: "Streaming: "}}})
	tr.Set(msgs)
	tr.View()
	d := core.Delta{MessageID: "m99999", Part: 0, Type: sess.TextPart, Text: "word "}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%500 == 0 { // keep the streamed part the size of a long answer
			tr.entries[len(tr.entries)-1].msg.Parts[0].Text = "Streaming: "
		}
		tr.Delta(d)
		tr.View()
	}
}

// BenchmarkTranscriptMarkdownAppend applies one streamed delta to an
// answer of 2,000 Markdown lines at the end of a transcript and draws the
// frame: the answer's closed blocks come from its cache, only the open
// tail is drawn again.
func BenchmarkTranscriptMarkdownAppend(b *testing.B) {
	section := "## Step\n\nThe change touches **three files**; `go test ./...` passes, see [the log](https://example.com/log).\n\n" +
		"- first item\n- second item\n  - nested\n\n```go\nfunc step(x int) int {\n\treturn x * 2\n}\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
	answer := strings.Repeat(section, 2000/strings.Count(section, "\n")+1)
	tr := New(themes.Build(themes.Dark(), false), "demo")
	tr.SetSize(200, 60)
	msgs := conversation(100)
	msgs = append(msgs, sess.Message{ID: "m99999", Rev: 1, Role: sess.Assistant,
		Parts: []sess.Part{{Type: sess.TextPart, Text: answer}}})
	tr.Set(msgs)
	tr.View()
	deltas := []string{"word ", "*more* ", "`code` ", "end.\n\n"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%2000 == 1999 { // keep the answer at 2,000 lines
			b.StopTimer()
			tr.entries[len(tr.entries)-1].msg.Parts[0].Text = answer
			tr.View()
			b.StartTimer()
		}
		tr.Delta(core.Delta{MessageID: "m99999", Part: 0, Type: sess.TextPart, Text: deltas[i%len(deltas)]})
		if len(tr.View()) != 60 {
			b.Fatal("short frame")
		}
	}
}
