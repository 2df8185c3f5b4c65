package sessions

import (
	"strings"
	"testing"
)

// BenchmarkAppendMessage measures one durable (fsynced) message revision.
func BenchmarkAppendMessage(b *testing.B) {
	s, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	rec := &Session{ID: "bench", Status: Created}
	if err := s.Create(rec); err != nil {
		b.Fatal(err)
	}
	l := s.Log(rec.ID)
	defer func() {
		if err := l.Close(); err != nil {
			b.Error(err)
		}
	}()
	m := Message{ID: "m1", Role: Assistant, Parts: []Part{{Type: TextPart, Text: strings.Repeat("word ", 40)}}}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		m.Rev = i
		if err := l.AppendMessage(m); err != nil {
			b.Fatal(err)
		}
	}
}
