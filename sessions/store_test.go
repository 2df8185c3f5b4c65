package sessions

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func newStore(t *testing.T) *Store {
	t.Helper()
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func newSession(t *testing.T, s *Store) *Session {
	t.Helper()
	rec := &Session{ID: NewID(), Title: "t", Agent: "demo", Mode: OneShot, Status: Created, CreatedAt: time.Now()}
	if err := s.Create(rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

func TestOpenWritesStateGitignore(t *testing.T) {
	s := newStore(t)
	b, err := os.ReadFile(filepath.Join(s.Workspace(), StateDir, ".gitignore"))
	if err != nil || string(b) != "*\n" {
		t.Fatalf(".state/.gitignore: %q %v", b, err)
	}
}

func TestTornLastLineIsSkippedAndLaterAppendSurvives(t *testing.T) {
	s := newStore(t)
	rec := newSession(t, s)
	l := s.Log(rec.ID)
	for i := 1; i <= 2; i++ {
		if err := l.AppendMessage(Message{ID: "m1", Rev: i, Role: Assistant, Parts: []Part{{Type: TextPart, Text: strings.Repeat("x", i)}}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(s.Dir(rec.ID), MessagesFile)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteString(`{"id":"m2","rev":1,"role":"assis`) // a crash mid-write
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}

	msgs, rep, err := l.Messages()
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 || msgs[0].Rev != 2 || msgs[0].Text() != "xx" {
		t.Fatalf("messages %+v", msgs)
	}
	if len(rep) != 1 || !strings.Contains(rep[0].Action, "torn last line skipped") || rep[0].Line != 3 {
		t.Fatalf("repairs %+v", rep)
	}
	// A reader cuts nothing: the fragment may be a line another process
	// is still writing.
	if b, err := os.ReadFile(path); err != nil || !strings.HasSuffix(string(b), `"role":"assis`) {
		t.Fatalf("after a read the file ends %q (%v): a reader cut it", b[max(0, len(b)-20):], err)
	}
	// The next append starts on a line of its own and survives the next
	// open; the fragment before it is a corrupt line, skipped.
	if err := l.AppendMessage(Message{ID: "m3", Rev: 1, Role: User}); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	msgs, rep, err = s.Log(rec.ID).Messages()
	if err != nil || len(rep) != 1 || !strings.Contains(rep[0].Action, "corrupt line skipped") {
		t.Fatalf("reopen: %v %+v", err, rep)
	}
	if len(msgs) != 2 || msgs[1].ID != "m3" {
		t.Fatalf("after reopen %+v", msgs)
	}
}

// TestOwnerCutsTornTail: CutTorn, which the session's owner calls once it
// holds the lease, cuts a crash's torn tail off every log and reports it;
// a clean log is left alone.
func TestOwnerCutsTornTail(t *testing.T) {
	s := newStore(t)
	rec := newSession(t, s)
	l := s.Log(rec.ID)
	if err := l.AppendControl(Control{ID: "c1", Kind: CtlPause}); err != nil {
		t.Fatal(err)
	}
	if err := l.AppendMessage(Message{ID: "m1", Rev: 1, Role: User}); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	ctl := filepath.Join(s.Dir(rec.ID), ControlsFile)
	f, err := os.OpenFile(ctl, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"id":"c2","ki`); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Log(rec.ID).CutTorn()
	if err != nil || len(rep) != 1 || rep[0].File != ControlsFile || rep[0].Line != 2 || !strings.Contains(rep[0].Action, "cut off (14 bytes)") {
		t.Fatalf("CutTorn: %+v, %v", rep, err)
	}
	if b, err := os.ReadFile(ctl); err != nil || !strings.HasSuffix(string(b), "}\n") {
		t.Fatalf("after the cut controls.jsonl ends %q (%v)", b, err)
	}
	if rep, err := s.Log(rec.ID).CutTorn(); err != nil || len(rep) != 0 {
		t.Fatalf("a second CutTorn: %+v, %v", rep, err)
	}
}

func TestCorruptLineSkippedAndReported(t *testing.T) {
	s := newStore(t)
	rec := newSession(t, s)
	path := filepath.Join(s.Dir(rec.ID), ControlsFile)
	mustWrite(t, path, `{"id":"a","kind":"pause","time":"2026-01-01T00:00:00Z"}
not json at all
{"id":"","kind":"stop"}
{"id":"b","kind":"stop","time":"2026-01-01T00:00:00Z"} trailing
{"id":"c","kind":"cancel","time":"2026-01-01T00:00:00Z"}
`)
	ctls, rep, err := s.Log(rec.ID).Controls()
	if err != nil {
		t.Fatal(err)
	}
	if len(ctls) != 2 || ctls[0].ID != "a" || ctls[1].ID != "c" {
		t.Fatalf("controls %+v", ctls)
	}
	if len(rep) != 3 || rep[0].Line != 2 || rep[1].Line != 3 || rep[2].Line != 4 {
		t.Fatalf("repairs %+v", rep)
	}
}

func TestCorruptSessionJSONOpensReadOnly(t *testing.T) {
	s := newStore(t)
	good := newSession(t, s)
	bad := newSession(t, s)
	mustWrite(t, filepath.Join(s.Dir(bad.ID), "session.json"), "{\"id\": \"x")
	ents, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 2 {
		t.Fatalf("%d entries", len(ents))
	}
	for _, en := range ents {
		switch en.Session.ID {
		case good.ID:
			if en.ReadOnly || len(en.Repairs) != 0 {
				t.Errorf("good session affected: %+v", en)
			}
		case bad.ID:
			if !en.ReadOnly || len(en.Repairs) != 1 {
				t.Errorf("bad session not read-only with a report: %+v", en)
			}
		}
	}
}

func TestResolvePrefix(t *testing.T) {
	s := newStore(t)
	a := &Session{ID: "abc1", Status: Created}
	b := &Session{ID: "abc2", Status: Created}
	for _, rec := range []*Session{a, b} {
		if err := s.Create(rec); err != nil {
			t.Fatal(err)
		}
	}
	if id, err := s.Resolve("abc1"); err != nil || id != "abc1" {
		t.Fatalf("%s %v", id, err)
	}
	if _, err := s.Resolve("abc"); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Fatalf("ambiguous: %v", err)
	}
	for _, bad := range []string{"", "../x", "zzz", "."} {
		if _, err := s.Resolve(bad); err == nil {
			t.Errorf("%q resolved", bad)
		}
	}
}

func TestSaveIsAtomic(t *testing.T) {
	s := newStore(t)
	rec := newSession(t, s)
	rec.Title = "renamed"
	if err := s.Save(rec); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(s.Dir(rec.ID))
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			t.Fatalf("temporary file left: %s", e.Name())
		}
	}
	en, _ := s.Load(rec.ID)
	if en.Session.Title != "renamed" {
		t.Fatalf("title %q", en.Session.Title)
	}
}

func TestMessagesTail(t *testing.T) {
	s := newStore(t)
	rec := newSession(t, s)
	l := s.Log(rec.ID)
	for i := 1; i <= 300; i++ {
		id := "m" + strings.Repeat("0", 5-len(itoa(i))) + itoa(i)
		for rev := 1; rev <= 2; rev++ {
			if err := l.AppendMessage(Message{ID: id, Rev: rev, Role: Assistant, Parts: []Part{{Type: TextPart, Text: strings.Repeat("x", 5000) + itoa(rev)}}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	got, more, err := l.MessagesTail(50)
	if err != nil || !more || len(got) != 50 {
		t.Fatalf("tail: %d %v %v", len(got), more, err)
	}
	if got[0].ID != "m00251" || got[49].ID != "m00300" || got[0].Rev != 2 {
		t.Fatalf("tail from %s to %s rev %d", got[0].ID, got[49].ID, got[0].Rev)
	}
	all, more, _ := l.MessagesTail(1000)
	if more || len(all) != 300 {
		t.Fatalf("whole tail: %d more=%v", len(all), more)
	}
	// A short file read in one chunk still says when older messages exist.
	small := s.Log(newSession(t, s).ID)
	for i := 1; i <= 5; i++ {
		if err := small.AppendMessage(Message{ID: "m0000" + itoa(i), Rev: 1, Role: User}); err != nil {
			t.Fatal(err)
		}
	}
	if got, more, _ := small.MessagesTail(3); len(got) != 3 || !more {
		t.Fatalf("small tail: %d more=%v", len(got), more)
	}
	if got, more, _ := small.MessagesTail(5); len(got) != 5 || more {
		t.Fatalf("small whole tail: %d more=%v", len(got), more)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func mustWrite(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
