package sessions

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/atelier-studio/atelier/internal/redact"
)

// ErrNotFound is returned for an id that names no session.
var ErrNotFound = errors.New("no such session")

// ErrAmbiguous is returned for an id prefix that names several sessions.
var ErrAmbiguous = errors.New("ambiguous session id prefix")

// StateDir is the folder under the workspace that holds everything the
// engine keeps.
const StateDir = ".state"

// Store keeps the sessions of one workspace under <workspace>/.state.
type Store struct {
	workspace string
	dir       string
	// red redacts secret values from every line the session logs append.
	red *redact.Redactor
	ro  string // why the store is read-only; "" when it may be written
	// trust says whether this user's Atelier made the state (trust.go);
	// foreign is set when it did not, and the store is then read-only.
	trust   Trust
	foreign bool
}

// SetRedactor makes the logs opened from now on (Log) replace secret
// values with their markers before anything is written (see package
// redact). Call it right after Open, before any session is read or
// written; nil redacts nothing. Session records (session.json) are written
// as they are.
func (s *Store) SetRedactor(r *redact.Redactor) { s.red = r }

// Open prepares the state folder of a workspace (creating it, its format
// version and its .gitignore, so the user's own git never sees it) and
// returns its store. A .state or .state/sessions that is a symbolic link is
// refused (an *UnsafeFileError). A state of a newer format, one whose own
// files are links, or one that cannot be written opens read-only (see
// Store.ReadOnly).
func Open(workspace string) (*Store, error) {
	abs, err := filepath.Abs(workspace)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", workspace, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("open workspace: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("open workspace %s: not a directory", abs)
	}
	ro, err := prepareState(abs)
	if err != nil {
		return nil, fmt.Errorf("open workspace: %w", err)
	}
	st := &Store{workspace: abs, dir: filepath.Join(abs, StateDir, sessionsDir), ro: ro}
	if err := st.settleTrust(); err != nil {
		return nil, fmt.Errorf("open workspace: %w", err)
	}
	return st, nil
}

// Workspace returns the absolute path of the workspace.
func (s *Store) Workspace() string { return s.workspace }

// Dir returns the folder of a session.
func (s *Store) Dir(id string) string { return filepath.Join(s.dir, id) }

// NewID returns a fresh session or record id: a time prefix, so ids sort by
// creation, and random bits.
func NewID() string {
	var b [5]byte
	rand.Read(b[:])
	return time.Now().UTC().Format("060102150405") + hex.EncodeToString(b[:])
}

// Entry is a session read from disk with what opening it repaired.
//
// A ReadOnly session is shown, never driven (not recovered, resumed or
// controlled); Reason says why and Repairs hold the details: its record
// names a status (or mode, access...) this build does not know, a file in
// its folder is a symbolic link or a special file, or the store is
// read-only. An Unreadable one is ReadOnly too, and its record could not be
// read at all (a corrupt session.json, a folder that is a link): its
// Session is a placeholder whose only real field is ID, so a lister shows
// the ID, "unreadable" and the Repairs, never the placeholder's status,
// title or times.
type Entry struct {
	Session  *Session
	Repairs  []Repair
	ReadOnly bool
	// Reason is one line saying why the session is read-only.
	Reason string

	unreadable bool
}

// Unreadable reports whether the session's record could not be read: its
// Session is then a placeholder (only ID is real; see Entry).
func (e Entry) Unreadable() bool { return e.unreadable }

// Create writes a new session's folder and record. The folder appears
// whole (with its record) or not at all: a create that fails (a full disk)
// leaves nothing behind.
func (s *Store) Create(sess *Session) error {
	if err := s.create(sess); err != nil {
		return fmt.Errorf("create session %s: %w", sess.ID, err)
	}
	return nil
}

// Save replaces a session's record atomically.
func (s *Store) Save(sess *Session) error {
	if err := s.sealRecord(sess); err != nil {
		return fmt.Errorf("save session %s: %w", sess.ID, err)
	}
	b, err := json.MarshalIndent(sess, "", "  ")
	if err != nil {
		return fmt.Errorf("save session %s: %w", sess.ID, err)
	}
	return s.file(sess.ID, RecordFile).writeAtomic(append(b, '\n'), 0o644)
}

// Load reads one session's record. A session whose record cannot be read
// is returned Unreadable, one that must not be driven ReadOnly (see Entry);
// only a session that is not there is an error (ErrNotFound).
func (s *Store) Load(id string) (Entry, error) { return s.loadEntry(id) }

// List reads every session of the workspace, oldest first. A session whose
// record cannot be read (or whose folder is a symbolic link) is listed
// Unreadable with its repairs; it never hides the others. Listing writes
// nothing.
func (s *Store) List() ([]Entry, error) {
	names, err := s.sessionNames()
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	var out []Entry
	for _, name := range names {
		en, err := s.Load(name)
		if err != nil {
			continue // gone since it was listed
		}
		out = append(out, en)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Session.ID < out[j].Session.ID })
	return out, nil
}

// IDs lists the ids of the workspace's sessions without reading them
// (those List would list, an unreadable one included).
func (s *Store) IDs() ([]string, error) {
	ids, err := s.sessionNames()
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return ids, nil
}

// Resolve turns an id or a unique prefix of one into the full id.
func (s *Store) Resolve(prefix string) (string, error) {
	if prefix == "" || strings.ContainsAny(prefix, `/\`) || prefix == "." || prefix == ".." {
		return "", fmt.Errorf("session %q: %w", prefix, ErrNotFound)
	}
	if fi, err := os.Stat(s.Dir(prefix)); err == nil && fi.IsDir() {
		return prefix, nil
	}
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return "", fmt.Errorf("resolve session: %w", err)
	}
	var found []string
	for _, e := range ents {
		if e.IsDir() && strings.HasPrefix(e.Name(), prefix) {
			found = append(found, e.Name())
		}
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("session %q: %w", prefix, ErrNotFound)
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("session %q matches %d sessions: %w", prefix, len(found), ErrAmbiguous)
}

// Remove deletes a session's folder (a folder that is a symbolic link is
// unlinked, its target left alone).
func (s *Store) Remove(id string) error {
	if err := s.remove(id); err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	return nil
}
