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
}

// Open prepares the state folder of a workspace (creating it and its
// .gitignore, so the user's own git never sees it) and returns its store.
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
	state := filepath.Join(abs, StateDir)
	dir := filepath.Join(state, "sessions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("open workspace: %w", err)
	}
	gi := filepath.Join(state, ".gitignore")
	if _, err := os.Stat(gi); os.IsNotExist(err) {
		if err := WriteFileAtomic(gi, []byte("*\n"), 0o644); err != nil {
			return nil, err
		}
	}
	return &Store{workspace: abs, dir: dir}, nil
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

// Entry is a session read from disk with what opening it repaired. A
// session whose session.json is corrupt is ReadOnly: shown, never driven.
type Entry struct {
	Session  *Session
	Repairs  []Repair
	ReadOnly bool
}

// Create writes a new session's folder and record.
func (s *Store) Create(sess *Session) error {
	dir := s.Dir(sess.ID)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("create session %s: %w", sess.ID, err)
	}
	return s.Save(sess)
}

// Save replaces a session's record atomically.
func (s *Store) Save(sess *Session) error {
	b, err := json.MarshalIndent(sess, "", "  ")
	if err != nil {
		return fmt.Errorf("save session %s: %w", sess.ID, err)
	}
	return WriteFileAtomic(filepath.Join(s.Dir(sess.ID), "session.json"), append(b, '\n'), 0o644)
}

// Load reads one session's record.
func (s *Store) Load(id string) (Entry, error) {
	dir := s.Dir(id)
	if _, err := os.Stat(dir); err != nil {
		return Entry{}, fmt.Errorf("session %s: %w", id, ErrNotFound)
	}
	data, err := os.ReadFile(filepath.Join(dir, "session.json"))
	var sess Session
	if err == nil {
		err = decodeStrict(data, &sess)
		if err == nil && sess.ID != id {
			err = fmt.Errorf("record names session %q", sess.ID)
		}
		if err == nil && sess.Status == "" {
			err = errors.New("record has no status")
		}
	}
	if err != nil {
		return Entry{
			Session:  &Session{ID: id, Title: "(unreadable)", Status: Ended, EndReason: Failed, Error: "session.json: " + err.Error()},
			Repairs:  []Repair{{File: "session.json", Action: "unreadable, session opened read-only: " + err.Error()}},
			ReadOnly: true,
		}, nil
	}
	return Entry{Session: &sess}, nil
}

// List reads every session of the workspace, oldest first. A folder whose
// record cannot be read is listed read-only with its repair; it never hides
// the others.
func (s *Store) List() ([]Entry, error) {
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	var out []Entry
	for _, e := range ents {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		en, err := s.Load(e.Name())
		if err != nil {
			continue
		}
		out = append(out, en)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Session.ID < out[j].Session.ID })
	return out, nil
}

// IDs lists the ids of the workspace's sessions without reading them.
func (s *Store) IDs() ([]string, error) {
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	return out, nil
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

// Remove deletes a session's folder.
func (s *Store) Remove(id string) error {
	if err := os.RemoveAll(s.Dir(id)); err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	return nil
}
