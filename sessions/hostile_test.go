package sessions

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The hostile-workspace suite of the store: a .state/ that someone else
// made (a cloned repository, an unpacked tarball) is read without following
// any link in it, and nothing outside it is ever read, truncated or written.

// hashFile returns a digest of a file's content and mode, or "absent".
func hashFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "absent"
	}
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// plantTarget makes a file outside the workspace that a planted link points
// at. Its content has no final newline, so a reader that "repaired" a torn
// line through the link would truncate it.
func plantTarget(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "precious")
	if err := os.WriteFile(p, []byte("the user's file\nwithout a final newline"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func wantUnsafe(t *testing.T, what string, err error) {
	t.Helper()
	var ue *UnsafeFileError
	if !errors.Is(err, ErrUnsafeFile) || !errors.As(err, &ue) {
		t.Errorf("%s: want an *UnsafeFileError, got %v", what, err)
	}
}

func repairsName(rep []Repair, file string) bool {
	for _, r := range rep {
		if r.File == file {
			return true
		}
	}
	return false
}

func TestPlantedLinksInASessionAreNeverFollowed(t *testing.T) {
	s := newStore(t)
	rec := newSession(t, s)
	dir := s.Dir(rec.ID)
	target := plantTarget(t)
	dangling := filepath.Join(t.TempDir(), "would-be-created")
	symlink(t, target, filepath.Join(dir, ControlsFile))
	symlink(t, target, filepath.Join(dir, "lease"))
	symlink(t, target, filepath.Join(dir, MessagesFile))
	symlink(t, dangling, filepath.Join(dir, InteractionsFile))
	before := hashFile(t, target)

	ents, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 || !ents[0].ReadOnly || ents[0].Unreadable() || ents[0].Reason == "" {
		t.Fatalf("listing: %+v", ents)
	}
	for _, f := range []string{ControlsFile, "lease", MessagesFile, InteractionsFile} {
		if !repairsName(ents[0].Repairs, f) {
			t.Errorf("no repair names %s: %+v", f, ents[0].Repairs)
		}
	}
	if en, err := s.Load(rec.ID); err != nil || !en.ReadOnly || en.Session.Title != rec.Title {
		t.Fatalf("load: %+v %v", en, err)
	}

	l := s.Log(rec.ID)
	_, _, err = l.Controls()
	wantUnsafe(t, "read controls", err)
	_, _, err = l.Messages()
	wantUnsafe(t, "read messages", err)
	_, _, err = l.MessagesTail(10)
	wantUnsafe(t, "tail messages", err)
	_, _, err = l.Interactions()
	wantUnsafe(t, "read interactions", err)
	wantUnsafe(t, "append control", l.AppendControl(Control{ID: "c1", Kind: CtlStop}))
	wantUnsafe(t, "append message", l.AppendMessage(Message{ID: "m1", Rev: 1, Role: User}))
	wantUnsafe(t, "append interaction", l.AppendInteraction(Interaction{ID: "i1", Kind: Question}))
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = ReadFrom(l.Path(ControlsFile), 0, func([]byte) { t.Error("read a line through a link") })
	wantUnsafe(t, "ReadFrom", err)
	if n := Size(l.Path(ControlsFile)); n != 0 {
		t.Errorf("Size through a link: %d", n)
	}
	for _, flags := range []int{os.O_RDONLY, os.O_RDWR | os.O_CREATE, os.O_WRONLY | os.O_TRUNC} {
		f, err := OpenStateFile(dir, "lease", flags, 0o644)
		if err == nil {
			_ = f.Close()
		}
		wantUnsafe(t, "open the lease", err)
	}

	if after := hashFile(t, target); after != before {
		t.Errorf("the link's target changed")
	}
	if _, err := os.Lstat(dangling); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a dangling link's target was created: %v", err)
	}
}

func TestPlantedRecordLinkAndFolderLink(t *testing.T) {
	s := newStore(t)
	good := newSession(t, s)
	target := plantTarget(t)
	before := hashFile(t, target)

	// session.json itself a link: unreadable, and Save does not replace
	// through it (nor replace it).
	linked := newSession(t, s)
	rec := filepath.Join(s.Dir(linked.ID), RecordFile)
	if err := os.Remove(rec); err != nil {
		t.Fatal(err)
	}
	symlink(t, target, rec)
	// A session folder that is a link to a folder holding a valid record.
	elsewhere := t.TempDir()
	outside := &Session{ID: "260101000000aaaaaaaaaa", Status: Running, Title: "planted"}
	mustWrite(t, filepath.Join(elsewhere, RecordFile), `{"id":"260101000000aaaaaaaaaa","title":"planted","status":"RUNNING","turns":0,"usage":{},"auto_start":false,"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","agent":"demo","mode":"one-shot","access":"read-write"}`+"\n")
	symlink(t, elsewhere, s.Dir(outside.ID))

	ents, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Entry{}
	for _, en := range ents {
		got[en.Session.ID] = en
	}
	if en := got[good.ID]; en.ReadOnly || len(en.Repairs) != 0 {
		t.Errorf("a good session is affected: %+v", en)
	}
	for _, id := range []string{linked.ID, outside.ID} {
		en, ok := got[id]
		if !ok || !en.Unreadable() || !en.ReadOnly || len(en.Repairs) == 0 || !strings.Contains(en.Repairs[0].Action, "symbolic link") {
			t.Errorf("%s: want unreadable with a repair naming the link: %+v", id, en)
		}
		if en.Session != nil && en.Session.Status == Running {
			t.Errorf("%s: the planted record was read through the link", id)
		}
	}
	ids, err := s.IDs()
	if err != nil || len(ids) != 3 {
		t.Errorf("IDs: %v %v", ids, err)
	}

	wantUnsafe(t, "save through a linked record", s.Save(linked))
	if fi, err := os.Lstat(rec); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the linked record was replaced: %v", err)
	}
	// Removing the linked folder unlinks it; its target stays.
	if err := s.Remove(outside.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(elsewhere, RecordFile)); err != nil {
		t.Errorf("remove followed the link: %v", err)
	}
	if after := hashFile(t, target); after != before {
		t.Errorf("the link's target changed")
	}
}

func TestSpecialFilesInASessionAreRefusedWithoutBlocking(t *testing.T) {
	s := newStore(t)
	rec := newSession(t, s)
	if err := syscall.Mkfifo(filepath.Join(s.Dir(rec.ID), MessagesFile), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		l := s.Log(rec.ID)
		_, _, err := l.Messages()
		if err == nil {
			err = errors.New("read")
		}
		done <- errors.Join(err, l.AppendMessage(Message{ID: "m1", Rev: 1, Role: User}))
	}()
	select {
	case err := <-done:
		wantUnsafe(t, "a named pipe as the transcript", err)
	case <-time.After(10 * time.Second):
		t.Fatal("opening a named pipe blocked")
	}
	en, err := s.Load(rec.ID)
	if err != nil || !en.ReadOnly || !repairsName(en.Repairs, MessagesFile) {
		t.Fatalf("load: %+v %v", en, err)
	}
}

func TestStateFolderLinksAreRefusedAtOpen(t *testing.T) {
	for _, tc := range []struct {
		name string
		link string // the path made a link, under the workspace
	}{
		{"state", StateDir},
		{"sessions", StateDir + "/sessions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			if err := os.MkdirAll(filepath.Dir(filepath.Join(ws, tc.link)), 0o755); err != nil {
				t.Fatal(err)
			}
			elsewhere := t.TempDir()
			symlink(t, elsewhere, filepath.Join(ws, tc.link))
			_, err := Open(ws)
			wantUnsafe(t, "open", err)
			if left, _ := os.ReadDir(elsewhere); len(left) != 0 {
				t.Errorf("Open wrote through the link: %v", left)
			}
		})
	}
}

func TestUnknownRecordValuesOpenReadOnly(t *testing.T) {
	for _, tc := range []struct {
		field string
		set   func(*Session)
	}{
		{"status", func(r *Session) { r.Status = "ZOMBIE" }},
		{"sub-state", func(r *Session) { r.Status, r.SubState = Running, "sprinting" }},
		{"wait reason", func(r *Session) { r.Status, r.WaitReason = Waiting, "lunch" }},
		{"end reason", func(r *Session) { r.Status, r.EndReason = Ended, "bored" }},
		{"mode", func(r *Session) { r.Mode = "turbo" }},
		{"access", func(r *Session) { r.Access = "root" }},
	} {
		t.Run(tc.field, func(t *testing.T) {
			s := newStore(t)
			rec := newSession(t, s)
			tc.set(rec)
			if err := s.Save(rec); err != nil {
				t.Fatal(err)
			}
			ents, err := s.List()
			if err != nil || len(ents) != 1 {
				t.Fatalf("list: %v %v", ents, err)
			}
			en := ents[0]
			if !en.ReadOnly || en.Unreadable() || len(en.Repairs) != 1 || !strings.Contains(en.Repairs[0].Action, tc.field) ||
				!strings.Contains(en.Reason, tc.field) {
				t.Fatalf("want read-only with a repair naming the %s: %+v", tc.field, en)
			}
			if en.Session.Title != rec.Title {
				t.Errorf("a readable record is not shown as read: %+v", en.Session)
			}
		})
	}
}

func TestUnreadableSessionIsListedAsSuch(t *testing.T) {
	s := newStore(t)
	corrupt := newSession(t, s)
	mustWrite(t, filepath.Join(s.Dir(corrupt.ID), RecordFile), "{\"id\": \"x")
	empty := "260101000000bbbbbbbbbb"
	if err := os.Mkdir(s.Dir(empty), 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := s.List()
	if err != nil || len(ents) != 2 {
		t.Fatalf("list: %+v %v", ents, err)
	}
	for _, en := range ents {
		if !en.Unreadable() || !en.ReadOnly || en.Reason == "" || len(en.Repairs) == 0 || en.Repairs[0].File != RecordFile {
			t.Errorf("want unreadable with a repair: %+v", en)
		}
		if en.Session == nil || (en.Session.ID != corrupt.ID && en.Session.ID != empty) {
			t.Errorf("placeholder without the session's id: %+v", en.Session)
		}
	}
}

func TestFormatVersion(t *testing.T) {
	t.Run("written at first open", func(t *testing.T) {
		s := newStore(t)
		b, err := os.ReadFile(filepath.Join(s.Workspace(), StateDir, FormatFile))
		if err != nil || string(b) != "1\n" || s.ReadOnly() {
			t.Fatalf("format %q %v, read-only %v", b, err, s.ReadOnly())
		}
	})
	t.Run("added to an older state", func(t *testing.T) {
		s := newStore(t)
		p := filepath.Join(s.Workspace(), StateDir, FormatFile)
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(s.Workspace()); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(p); err != nil || string(b) != "1\n" {
			t.Fatalf("format %q %v", b, err)
		}
	})
	for _, tc := range []struct{ name, format, reason string }{
		{"newer", "2\n", "newer"},
		{"unknown", "banana\n", "banana"},
		{"link", "", "symbolic link"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			rec := newSession(t, s)
			// A torn line that a writable store would cut.
			mustWrite(t, filepath.Join(s.Dir(rec.ID), TurnsFile), "{\"time\":\"2026-01-01T00:00:00Z\",\"turn\":1,\"kind\":\"start\"}\n{\"tim")
			p := filepath.Join(s.Workspace(), StateDir, FormatFile)
			if tc.format != "" {
				mustWrite(t, p, tc.format)
			} else {
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
				symlink(t, plantTarget(t), p)
			}
			before := treeState(t, s.Workspace())

			ro, err := Open(s.Workspace())
			if err != nil {
				t.Fatal(err)
			}
			if !ro.ReadOnly() || !strings.Contains(ro.ReadOnlyReason(), tc.reason) {
				t.Fatalf("read-only %v, reason %q", ro.ReadOnly(), ro.ReadOnlyReason())
			}
			ents, err := ro.List()
			if err != nil || len(ents) != 1 || !ents[0].ReadOnly || ents[0].Reason == "" {
				t.Fatalf("list: %+v %v", ents, err)
			}
			l := ro.Log(rec.ID)
			turns, rep, err := l.Turns()
			if err != nil || len(turns) != 1 || len(rep) != 1 || !strings.Contains(rep[0].Action, "not cut") {
				t.Errorf("turns %+v %+v %v", turns, rep, err)
			}
			for what, err := range map[string]error{
				"create":  ro.Create(&Session{ID: NewID(), Status: Created}),
				"save":    ro.Save(rec),
				"remove":  ro.Remove(rec.ID),
				"append":  l.AppendTurn(TurnEvent{Kind: "start"}),
				"control": l.AppendControl(Control{ID: "c", Kind: CtlStop}),
			} {
				if !errors.Is(err, ErrReadOnlyStore) {
					t.Errorf("%s in a read-only store: %v", what, err)
				}
			}
			if after := treeState(t, s.Workspace()); after != before {
				t.Errorf("a read-only store was written:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// treeState describes every file under a workspace (path, mode, size,
// content digest), to tell whether anything was written.
func treeState(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		b.WriteString(rel + " " + fi.Mode().String())
		if fi.Mode().IsRegular() {
			b.WriteString(" " + hashFile(t, p))
		}
		b.WriteString("; ")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
