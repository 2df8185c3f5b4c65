package core

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/sessions"
)

// BenchmarkReopenBigTranscript measures reopening a workspace whose ended
// session has a 100 MB transcript, up to its last 200 messages in hand:
// what the studio needs for its first frame and the session's tab.
func BenchmarkReopenBigTranscript(b *testing.B) {
	ws := b.TempDir()
	st, err := sessions.Open(ws)
	if err != nil {
		b.Fatal(err)
	}
	rec := &sessions.Session{ID: "big", Title: "big", Agent: "demo", Mode: sessions.OneShot,
		Status: sessions.Ended, EndReason: sessions.Completed, CreatedAt: time.Now()}
	if err := st.Create(rec); err != nil {
		b.Fatal(err)
	}
	f, err := os.Create(filepath.Join(st.Dir("big"), sessions.MessagesFile))
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	text := strings.Repeat("lorem ipsum dolor sit amet ", 40)
	size := 0
	for i := 1; size < 100<<20; i++ {
		line, _ := json.Marshal(sessions.Message{ID: fmt.Sprintf("m%05d", i), Rev: 1, Role: sessions.Assistant,
			Parts: []sessions.Part{{Type: sessions.TextPart, Text: text}}, Complete: true})
		if _, err := w.Write(append(line, '\n')); err != nil {
			b.Fatal(err)
		}
		size += len(line) + 1
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		e, err := Open(ws, Options{NoHistory: true})
		if err != nil {
			b.Fatal(err)
		}
		msgs, _, more, err := e.TranscriptTail("big", 200)
		if err != nil || len(msgs) != 200 || !more {
			b.Fatalf("tail: %d %v %v", len(msgs), more, err)
		}
		if err := e.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
