package sessions

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzReaders feeds arbitrary bytes to every log reader: they never fail
// or panic on content, and every line they keep is a well-formed record.
func FuzzReaders(f *testing.F) {
	f.Add([]byte(`{"id":"m1","rev":1,"role":"user","parts":[{"type":"text","text":"hi"}]}` + "\n"))
	f.Add([]byte(`{"id":"c","kind":"pause","time":"2026-01-01T00:00:00Z"}` + "\n{\"id\":"))
	f.Add([]byte(`{"id":"i","kind":"approval","time":"2026-01-01T00:00:00Z","choices":["a"]}` + "\n\n\x00\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		s, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(s.Dir("x"), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{MessagesFile, ControlsFile, InteractionsFile, TurnsFile, KeysFile} {
			if err := os.WriteFile(filepath.Join(s.Dir("x"), name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		l := s.Log("x")
		msgs, _, err := l.Messages()
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			if m.ID == "" {
				t.Fatal("message without id kept")
			}
		}
		ctls, _, err := l.Controls()
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range ctls {
			if c.ID == "" || c.Kind == "" {
				t.Fatal("control without id kept")
			}
		}
		if _, _, err := l.Interactions(); err != nil {
			t.Fatal(err)
		}
		// Readers change nothing; the owner's CutTorn leaves the file
		// on a line boundary.
		path := filepath.Join(s.Dir("x"), MessagesFile)
		if b, _ := os.ReadFile(path); string(b) != string(data) {
			t.Fatal("a reader changed the file")
		}
		if _, err := l.CutTorn(); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		if len(b) > 0 && b[len(b)-1] != '\n' {
			t.Fatal("torn tail left in place")
		}
	})
}
