package sessions

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
)

// A workspace's .state/ is this user's only if this user's Atelier made it.
// A cloned repository, an unpacked tarball or a planted folder can carry a
// .state/ with a RUNNING session whose pending call would run on open; so
// each state has a random id (.state/id), and the user's own state
// directory keeps a secret per id (keyed by the id, not the path: a
// workspace moved or archived keeps its history). Session records and
// pending tool calls are sealed with that secret (an HMAC), so a session
// planted inside a trusted state (a pull that brings force-added .state/
// files) is foreign too. A foreign state is opened read-only: nothing in
// it is adopted, resumed or run until the operator adopts it.

// stateIDFile names the state's random id under .state/.
const stateIDFile = "id"

// ErrForeignState is returned for writes to a state this user's Atelier
// did not make (or has not adopted).
var ErrForeignState = errors.New("the workspace's .state/ was not made by this user's Atelier (adopt it with `atelier trust --state`)")

var stateIDPattern = regexp.MustCompile(`^[0-9a-f]{32}$`)

// Trust says whether a state is this user's.
type Trust struct {
	// ID is the state's id ("" when it has none: made by an older Atelier,
	// or planted).
	ID string
	// Trusted is true when the user's state directory holds the id's secret.
	Trusted bool
	// Why says why a state is not trusted.
	Why    string
	secret []byte
}

// UserStateDir is where Atelier keeps what belongs to the user rather than
// to a workspace: $XDG_STATE_HOME/atelier, else ~/.local/state/atelier.
func UserStateDir() (string, error) {
	if x := os.Getenv("XDG_STATE_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "atelier"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find the user's state directory: %w", err)
	}
	return filepath.Join(home, ".local", "state", "atelier"), nil
}

func secretPath(id string) (string, error) {
	dir, err := UserStateDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "states", id+".key"), nil
}

// readTrust looks a state up: its id, and this user's secret for it.
func readTrust(state string) Trust {
	b, err := readStateFile(filepath.Join(state, stateIDFile))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return Trust{Why: "it has no id: it was made by an older Atelier or by someone else"}
		}
		return Trust{Why: "its id cannot be read: " + err.Error()}
	}
	id := strings.TrimSpace(string(b))
	if !stateIDPattern.MatchString(id) {
		return Trust{Why: "its id is malformed"}
	}
	t := Trust{ID: id}
	p, err := secretPath(id)
	if err != nil {
		t.Why = err.Error()
		return t
	}
	key, err := readStateFile(p)
	if err != nil {
		t.Why = "this user's Atelier did not make it (no secret for its id " + id + ")"
		return t
	}
	key, err = hex.DecodeString(strings.TrimSpace(string(key)))
	if err != nil || len(key) != 32 {
		t.Why = "this user's secret for it is malformed"
		return t
	}
	t.Trusted, t.secret = true, key
	return t
}

// readStateFile reads a small file without following a symlink.
func readStateFile(p string) ([]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read-only
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > 4096 {
		return nil, fmt.Errorf("%s: not a small regular file", p)
	}
	buf := make([]byte, fi.Size())
	n, err := f.Read(buf)
	if err != nil && n == 0 && fi.Size() > 0 {
		return nil, err
	}
	return buf[:n], nil
}

// newTrust gives a state a fresh id and this user a secret for it.
func newTrust(state string) (Trust, error) {
	var idb, key [32]byte
	if _, err := rand.Read(idb[:16]); err != nil {
		return Trust{}, err
	}
	if _, err := rand.Read(key[:]); err != nil {
		return Trust{}, err
	}
	id := hex.EncodeToString(idb[:16])
	if err := writeSecret(id, key[:]); err != nil {
		return Trust{}, err
	}
	// Exclusively: two processes opening a new state at once must not each
	// name it (the second would replace the first's id). The loser reads
	// the winner's id, whose secret is then this user's too.
	tmp := filepath.Join(state, "."+stateIDFile+"."+id)
	if err := WriteFileAtomic(tmp, []byte(id+"\n"), 0o644); err != nil {
		return Trust{}, fmt.Errorf("write the state's id: %w", err)
	}
	lerr := os.Link(tmp, filepath.Join(state, stateIDFile))
	if rerr := os.Remove(tmp); rerr != nil && lerr == nil {
		return Trust{}, fmt.Errorf("write the state's id: %w", rerr)
	}
	if errors.Is(lerr, os.ErrExist) {
		if t := readTrust(state); t.Trusted {
			return t, nil
		}
		return Trust{}, fmt.Errorf("another process named this state at the same time and its secret is not readable yet")
	}
	if lerr != nil {
		return Trust{}, fmt.Errorf("write the state's id: %w", lerr)
	}
	return Trust{ID: id, Trusted: true, secret: key[:]}, nil
}

func writeSecret(id string, key []byte) error {
	p, err := secretPath(id)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("keep the state's secret: %w", err)
	}
	if err := WriteFileAtomic(p, []byte(hex.EncodeToString(key)+"\n"), 0o600); err != nil {
		return fmt.Errorf("keep the state's secret: %w", err)
	}
	return nil
}

// seal is the HMAC of what, under the state's secret, for its kind.
func (t Trust) seal(kind string, what []byte) string {
	if !t.Trusted {
		return ""
	}
	m := hmac.New(sha256.New, t.secret)
	m.Write([]byte(kind))
	m.Write([]byte{0})
	m.Write(what)
	return hex.EncodeToString(m.Sum(nil))
}

func (t Trust) verify(kind string, what []byte, seal string) bool {
	if !t.Trusted || seal == "" {
		return false
	}
	want := t.seal(kind, what)
	return hmac.Equal([]byte(want), []byte(seal))
}

// recordSealInput is what a session record's seal covers: the record
// without its seal.
func recordSealInput(s Session) ([]byte, error) {
	s.Seal = ""
	return json.Marshal(s)
}

// Trust returns whether the store's state is this user's.
func (s *Store) Trust() Trust { return s.trust }

// SealCall seals a pending tool call of a session, so recovery can tell a
// call this user's engine recorded from one planted in the transcript.
func (s *Store) SealCall(session string, c ToolCall) string {
	return s.trust.seal("call", callSealInput(session, c))
}

// CallSealed reports whether a tool call carries this user's seal.
func (s *Store) CallSealed(session string, c ToolCall) bool {
	return s.trust.verify("call", callSealInput(session, c), c.Seal)
}

func callSealInput(session string, c ToolCall) []byte {
	return []byte(session + "\x00" + c.ID + "\x00" + c.Name + "\x00" + c.Input)
}

// sealRecord sets a record's seal (nothing for a foreign state).
func (s *Store) sealRecord(sess *Session) error {
	sess.Seal = ""
	if !s.trust.Trusted {
		return nil
	}
	in, err := recordSealInput(*sess)
	if err != nil {
		return err
	}
	sess.Seal = s.trust.seal("session", in)
	return nil
}

// recordSealed reports whether a record read from disk carries this
// user's seal.
func (s *Store) recordSealed(sess Session) bool {
	in, err := recordSealInput(sess)
	return err == nil && s.trust.verify("session", in, sess.Seal)
}

// Adopt makes a foreign state this user's: it gets an id (its own when it
// has a well-formed one) and this user a secret for it, and every session
// record is sealed anew. Pending tool calls are not sealed: recovery still
// asks before running any of them. The operator decides this after seeing
// what the state holds (`atelier trust --state`).
func (s *Store) Adopt() error {
	state := filepath.Dir(s.dir)
	t := readTrust(state)
	if t.Trusted {
		return nil
	}
	var key [32]byte
	if _, err := rand.Read(key[:]); err != nil {
		return err
	}
	if t.ID == "" {
		nt, err := newTrust(state)
		if err != nil {
			return err
		}
		t = nt
	} else {
		if err := writeSecret(t.ID, key[:]); err != nil {
			return err
		}
		t = Trust{ID: t.ID, Trusted: true, secret: key[:]}
	}
	s.trust = t
	if s.foreign {
		s.ro, s.foreign = "", false
	}
	ids, err := s.IDs()
	if err != nil {
		return err
	}
	for _, id := range ids {
		en, err := s.loadEntry(id)
		if err != nil || en.Session == nil || en.Unreadable() {
			continue
		}
		if err := s.Save(en.Session); err != nil {
			return fmt.Errorf("adopt session %s: %w", id, err)
		}
	}
	return nil
}

// Foreign reports whether the state was not made by this user's Atelier
// (and is therefore read-only until adopted).
func (s *Store) Foreign() bool { return s.foreign }

// settleTrust decides, at Open, whether the state is this user's: a state
// with this user's secret is; a new state (no id, no sessions) gets an id
// and a secret; any other is foreign and the store read-only.
func (s *Store) settleTrust() error {
	state := filepath.Join(s.workspace, StateDir)
	t := readTrust(state)
	if !t.Trusted && t.ID == "" && s.ro == "" {
		if names, err := s.sessionNames(); err == nil && len(names) == 0 {
			nt, err := newTrust(state)
			if err != nil {
				return err
			}
			t = nt
		}
	}
	s.trust = t
	if !t.Trusted {
		s.foreign = true
		if s.ro == "" {
			s.ro = "foreign state: " + t.Why
		}
	}
	return nil
}
