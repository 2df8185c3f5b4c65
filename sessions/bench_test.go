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
	s.Create(rec)
	l := s.Log(rec.ID)
	defer l.Close()
	m := Message{ID: "m1", Role: Assistant, Parts: []Part{{Type: TextPart, Text: strings.Repeat("word ", 40)}}}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		m.Rev = i
		if err := l.AppendMessage(m); err != nil {
			b.Fatal(err)
		}
	}
}
