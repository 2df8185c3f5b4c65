package transcript

import (
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
