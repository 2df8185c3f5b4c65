package core

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/sessions"
)

// appendRaw appends s to a file as a writer in another process would.
func appendRaw(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestReaderLeavesALineBeingWritten: while the engine running a session is
// in the middle of appending a big line, other engines open the workspace
// (a short command's passive one reads the session; a second running one
// is refused). They skip the half line and cut nothing, so the line is
// whole once the owner's write ends. (Before, any process that read it cut the "torn"
// line: the rest of the write then landed as garbage and the message was
// lost.)
func TestReaderLeavesALineBeingWritten(t *testing.T) {
	ws := t.TempDir()
	agents := MapResolver{"a": &scripted.Model{}}
	owner := openRig(t, ws, agents)
	id := owner.create(CreateOptions{Agent: "a", Instructions: "x"}).ID
	path := filepath.Join(ws, sessions.StateDir, "sessions", id, sessions.MessagesFile)
	var before int64
	if fi, err := os.Stat(path); err == nil {
		before = fi.Size()
	}
	line := `{"id":"mbig","rev":1,"role":"assistant","parts":[{"type":"text","text":"` + strings.Repeat("x", 1<<20) + `"}]}` + "\n"
	half := len(line) / 2
	appendRaw(t, path, line[:half])

	for _, passive := range []bool{true, false} {
		reader, err := Open(ws, Options{Agents: agents, Passive: passive, NoHistory: true})
		switch {
		case !passive && !errors.Is(err, ErrEngineElsewhere):
			t.Fatalf("a second running engine opened beside the first: %v", err)
		case passive && err != nil:
			t.Fatal(err)
		case passive:
			if _, _, err := reader.Transcript(id); err != nil {
				t.Fatal(err)
			}
			closeEngine(t, reader)
		}
		if fi, err := os.Stat(path); err != nil || fi.Size() != before+int64(half) {
			t.Fatalf("after a reader (passive %v) the log is %v bytes (%v), want the %d written so far", passive, fi.Size(), err, half)
		}
	}

	appendRaw(t, path, line[half:])
	st, err := sessions.Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	msgs, rep, err := st.Log(id).Messages()
	if err != nil {
		t.Fatal(err)
	}
	whole := false
	for _, m := range msgs {
		whole = whole || (m.ID == "mbig" && len(m.Text()) == 1<<20)
	}
	if len(rep) != 0 || !whole {
		t.Fatalf("after the write ended: %d messages (the big one whole: %v), repairs %+v", len(msgs), whole, rep)
	}
}
