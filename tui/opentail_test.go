package tui

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sess "github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/tui/keys"
)

// endedSession writes, before any engine opens the workspace, an ended
// session whose transcript has n messages ("message 1" … "message n").
func endedSession(tb testing.TB, ws, id string, n int) {
	tb.Helper()
	st, err := sess.Open(ws)
	if err != nil {
		tb.Fatal(err)
	}
	rec := &sess.Session{ID: id, Title: "long talk", Agent: "demo", Mode: sess.OneShot,
		Status: sess.Ended, EndReason: sess.Completed, CreatedAt: time.Now()}
	if err := st.Create(rec); err != nil {
		tb.Fatal(err)
	}
	f, err := os.Create(filepath.Join(st.Dir(id), sess.MessagesFile))
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for i := 1; i <= n; i++ {
		role := sess.Assistant
		if i%2 == 1 {
			role = sess.User
		}
		line, _ := json.Marshal(sess.Message{ID: fmt.Sprintf("m%06d", i), Rev: 1, Role: role, Complete: true,
			Parts: []sess.Part{{Type: sess.TextPart, Text: fmt.Sprintf("message %d of the long talk", i)}}})
		if _, err := w.Write(append(line, '\n')); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// TestAnEndedSessionOpensWithItsTail: a session the engine does not run
// opens with its newest 500 messages and a row offering the rest; o loads
// them all.
func TestAnEndedSessionOpensWithItsTail(t *testing.T) {
	ws := t.TempDir()
	endedSession(t, ws, "long", 700)
	h := newHarness(t, ws, 120, 40)
	h.send(keys.Press("enter"))
	tab, ok := h.app.tabs.current().(*sessionTab)
	if !ok {
		t.Fatal("enter opens the session's tab")
	}
	if !tab.More() || tab.Transcript().Len() != tailSize {
		t.Fatalf("the tab holds %d messages (more %v), want the newest %d", tab.Transcript().Len(), tab.More(), tailSize)
	}
	s := h.screen()
	if !strings.Contains(s, "older messages not loaded: press o to load all") || !strings.Contains(s, "message 700 of the long talk") {
		t.Fatalf("the newest messages, and the row that offers the rest:\n%s", s)
	}
	h.press("o")
	if tab.More() || tab.Transcript().Len() != 700 {
		t.Fatalf("o loads all: %d messages, more %v", tab.Transcript().Len(), tab.More())
	}
	h.press("g")
	if s := h.screen(); !strings.Contains(s, "message 1 of the long talk") || strings.Contains(s, "older messages not loaded") {
		t.Fatalf("the first message is there now:\n%s", s)
	}
}
