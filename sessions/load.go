package sessions

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/sys/unix"
)

// RecordFile is a session's record, in its folder.
const RecordFile = "session.json"

// maxRecord bounds how much of a session.json is read: a record is a few
// kilobytes (its instructions included); a planted gigabyte is unreadable,
// not a reason to run out of memory.
const maxRecord = 64 << 20

// ReadOnly reports whether the store was opened read-only: nothing is
// written to it (no session created, saved or removed, no log appended,
// no torn line cut) and every session it lists is read-only.
// ReadOnlyReason says why.
func (s *Store) ReadOnly() bool { return s.ro != "" }

// ReadOnlyReason says why the store is read-only ("" when it is not): a
// state of a newer format, a state file that is a symbolic link, a state
// that cannot be written.
func (s *Store) ReadOnlyReason() string { return s.ro }

// roErr is the error writes fail with in a read-only store (nil otherwise).
func (s *Store) roErr() error {
	if s.ro == "" {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrReadOnlyStore, s.ro)
}

// file names a file in a session's folder.
func (s *Store) file(id, name string) stateFile {
	return stateFile{root: s.workspace, dirs: []string{StateDir, sessionsDir, id}, name: name, ro: s.roErr()}
}

// sessionNames lists what may be sessions in .state/sessions: folders, and
// anything that is neither a folder nor a regular file (a symbolic link,
// listed so that Load reports it). Names starting with a dot (a create in
// progress) and stray regular files are left out.
func (s *Store) sessionNames() ([]string, error) {
	d, err := openDirs(s.workspace, []string{StateDir, sessionsDir})
	if errors.Is(err, os.ErrNotExist) && s.ro != "" {
		return nil, nil // a read-only state without sessions
	}
	if err != nil {
		return nil, err
	}
	defer closeFd(d)
	ents, err := readDir(d, s.dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") || e.Type().IsRegular() {
			continue
		}
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out, nil
}

// loadEntry reads one session's record and looks at its folder: a record
// that cannot be read makes an Unreadable entry; a record with a value
// this build does not know, or a file in the folder that is a symbolic
// link or not a regular file, makes a ReadOnly one. Only a session that is
// not there is an error.
func (s *Store) loadEntry(id string) (Entry, error) {
	if !validName(id) {
		return Entry{}, fmt.Errorf("session %q: %w", id, ErrNotFound)
	}
	dir := s.Dir(id)
	d, err := openDirs(s.workspace, []string{StateDir, sessionsDir, id})
	if errors.Is(err, os.ErrNotExist) {
		return Entry{}, fmt.Errorf("session %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return s.unreadable(id, Repair{File: id, Action: "the session's folder cannot be opened: " + err.Error()}), nil
	}
	defer closeFd(d)
	repairs, err := unsafeFiles(d, dir)
	if err != nil {
		return s.unreadable(id, Repair{File: id, Action: "the session's folder cannot be listed: " + err.Error()}), nil
	}
	sess, err := readRecord(d, dir, id)
	if err != nil {
		return s.unreadable(id, append([]Repair{{File: RecordFile, Action: "unreadable, session opened read-only: " + err.Error()}}, repairs...)...), nil
	}
	if err := sess.check(); err != nil {
		repairs = append(repairs, Repair{File: RecordFile, Action: err.Error() + ": session opened read-only, never driven"})
	}
	if s.trust.Trusted && !s.recordSealed(*sess) {
		// Planted inside a trusted state (force-added files a pull brought,
		// say): shown, never driven, until the operator adopts the state.
		repairs = append(repairs, Repair{File: RecordFile, Action: "not sealed by this user's Atelier: session opened read-only, never driven"})
	}
	en := Entry{Session: sess, Repairs: repairs}
	if len(repairs) > 0 {
		en.ReadOnly, en.Reason = true, repairs[0].String()
	}
	if s.ro != "" {
		en.ReadOnly = true
		if en.Reason == "" {
			en.Reason = "the store is read-only: " + s.ro
		}
	}
	return en, nil
}

// unreadable is the entry of a session whose record cannot be read. Its
// Session is a placeholder that nothing drives (ENDED, failed); only its ID
// is real data.
func (s *Store) unreadable(id string, repairs ...Repair) Entry {
	why := repairs[0].String()
	return Entry{
		Session:    &Session{ID: id, Title: "(unreadable)", Status: Ended, EndReason: Failed, Error: why, Unreadable: true},
		Repairs:    repairs,
		ReadOnly:   true,
		Reason:     why,
		unreadable: true,
	}
}

// unsafeFiles reports every entry of a session's folder that is a symbolic
// link or a special file: the session is opened read-only, and the file is
// never opened.
func unsafeFiles(d int, dir string) ([]Repair, error) {
	names, err := readDirNames(d, dir)
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []Repair
	for _, n := range names {
		mode, ok := modeAt(d, n)
		if !ok || mode&unix.S_IFMT == unix.S_IFREG || mode&unix.S_IFMT == unix.S_IFDIR || n == RecordFile {
			continue // (the record's reader reports its own)
		}
		out = append(out, Repair{File: n, Action: describe(mode) + ": refused, never followed; session opened read-only"})
	}
	return out, nil
}

// readRecord reads and checks a session.json: it decodes strictly, names
// the session of its folder and has a status.
func readRecord(d int, dir, id string) (*Session, error) {
	f, err := openFileAt(d, dir, RecordFile, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, maxRecord+1))
	closeRead(f)
	if err != nil {
		return nil, err
	}
	if len(data) > maxRecord {
		return nil, fmt.Errorf("record over %d bytes", maxRecord)
	}
	var sess Session
	if err := decodeStrict(data, &sess); err != nil {
		return nil, err
	}
	if sess.ID != id {
		return nil, fmt.Errorf("record names session %q", sess.ID)
	}
	if sess.Status == "" {
		return nil, errors.New("record has no status")
	}
	return &sess, nil
}

// check reports a value of the record that this build does not know (a
// status, a sub-state, a reason, a mode, an access): such a session is
// shown, never driven, since recovery cannot know what it means. Empty
// mode and access are the defaults (one-shot, read-write).
func (s *Session) check() error {
	type field struct {
		name, value string
		known       []string
	}
	for _, f := range []field{
		{"status", string(s.Status), []string{string(Created), string(Running), string(Waiting), string(Paused), string(Ended)}},
		{"sub-state", string(s.SubState), []string{"", string(Active), string(Parked), string(Resumable)}},
		{"wait reason", string(s.WaitReason), []string{"", string(WaitQuestion), string(WaitStopLimit), string(WaitAwaitingInput), string(WaitCannotResume)}},
		{"end reason", string(s.EndReason), []string{"", string(Completed), string(Failed), string(Cancelled), string(WorkspaceLost), string(ForceDeleted)}},
		{"mode", string(s.Mode), []string{"", string(OneShot), string(Continuous)}},
		{"access", string(s.Access), []string{"", string(ReadWrite), string(ReadOnly)}},
	} {
		known := false
		for _, k := range f.known {
			known = known || f.value == k
		}
		if !known {
			return fmt.Errorf("%s %q is unknown to this build", f.name, f.value)
		}
	}
	return nil
}

// create writes a new session's folder so that it appears whole or not at
// all: the record is written into a hidden folder (.<id>.new, which
// listings skip), synced, and the folder renamed to the session's id. On
// any failure (a full disk) everything it made is removed.
func (s *Store) create(sess *Session) (err error) {
	if err := s.roErr(); err != nil {
		return err
	}
	if !validName(sess.ID) || strings.HasPrefix(sess.ID, ".") {
		return fmt.Errorf("%q is not a session id", sess.ID)
	}
	if err := s.sealRecord(sess); err != nil {
		return err
	}
	data, err := json.MarshalIndent(sess, "", "  ")
	if err != nil {
		return err
	}
	d, err := openDirs(s.workspace, []string{StateDir, sessionsDir})
	if err != nil {
		return err
	}
	defer closeFd(d)
	if _, ok := modeAt(d, sess.ID); ok {
		return &os.PathError{Op: "create", Path: s.Dir(sess.ID), Err: os.ErrExist}
	}
	tmp := "." + sess.ID + ".new"
	made := tmp
	defer func() {
		if err != nil {
			if rerr := removeAllAt(d, s.dir, made); rerr != nil {
				err = errors.Join(err, fmt.Errorf("remove what the failed create made: %w", rerr))
			}
		}
	}()
	if err := unix.Mkdirat(d, tmp, 0o755); err != nil {
		made = "" // nothing made: nothing to remove (and maybe another's)
		return &os.PathError{Op: "mkdir", Path: filepath.Join(s.dir, tmp), Err: err}
	}
	td, err := openDirAt(d, s.dir, tmp)
	if err != nil {
		return err
	}
	err = writeAtomicAt(td, filepath.Join(s.dir, tmp), RecordFile, append(data, '\n'), 0o644)
	closeFd(td)
	if err != nil {
		return err
	}
	if err := unix.Renameat(d, tmp, d, sess.ID); err != nil {
		return &os.PathError{Op: "rename", Path: s.Dir(sess.ID), Err: err}
	}
	made = sess.ID
	if err := unix.Fsync(d); err != nil {
		return &os.PathError{Op: "sync", Path: s.dir, Err: err}
	}
	return nil
}

// remove deletes a session's folder, never following a symbolic link (a
// planted link is removed, not its target).
func (s *Store) remove(id string) error {
	if err := s.roErr(); err != nil {
		return err
	}
	if !validName(id) {
		return fmt.Errorf("%q is not a session id", id)
	}
	d, err := openDirs(s.workspace, []string{StateDir, sessionsDir})
	if err != nil {
		return err
	}
	defer closeFd(d)
	return removeAllAt(d, s.dir, id)
}
