package sessions

import (
	"errors"
	"path/filepath"
)

// Log is the append-only side of one session: its transcript, audit log,
// controls, interactions and keys. Appends are safe for concurrent use.
type Log struct {
	dir                                           string
	messages, turns, controls, interactions, keys appender
}

// Log files of a session, relative to its folder.
const (
	MessagesFile     = "messages.jsonl"
	TurnsFile        = "turns.jsonl"
	ControlsFile     = "controls.jsonl"
	InteractionsFile = "interactions.jsonl"
	KeysFile         = "keys.jsonl"
)

// Log returns the append-only logs of a session.
func (s *Store) Log(id string) *Log {
	dir := s.Dir(id)
	l := &Log{dir: dir}
	l.messages.file = s.file(id, MessagesFile)
	l.turns.file = s.file(id, TurnsFile)
	l.controls.file = s.file(id, ControlsFile)
	l.interactions.file = s.file(id, InteractionsFile)
	l.keys.file = s.file(id, KeysFile)
	for _, a := range []*appender{&l.messages, &l.turns, &l.controls, &l.interactions, &l.keys} {
		a.red = s.red
	}
	return l
}

// Close closes the log's open files; a later append reopens them.
func (l *Log) Close() error {
	return errors.Join(l.messages.close(), l.turns.close(), l.controls.close(),
		l.interactions.close(), l.keys.close())
}

// AppendMessage persists one revision of a message and syncs it: once this
// returns, the revision survives a crash.
func (l *Log) AppendMessage(m Message) error { return l.messages.append(m, true) }

// AppendMessageUnsynced writes a provisional revision (an empty message
// opening, a tool call marked running) without waiting for the disk: it
// survives the death of the process, and a crash of the machine loses
// nothing acknowledged, since the next synced revision supersedes it.
func (l *Log) AppendMessageUnsynced(m Message) error { return l.messages.append(m, false) }

// AppendTurn records an audit event. It is written but not synced: the
// audit log follows session.json, which is the record that must survive.
// (A written line survives the death of the process; only a crash of the
// machine can lose it.)
func (l *Log) AppendTurn(e TurnEvent) error { return l.turns.append(e, false) }

// AppendControl records a control request, synced before it returns: a
// control is durable before it is acknowledged. An outcome line is only
// written: replaying an applied control after a machine crash is harmless,
// because every control is checked against the session's status again.
func (l *Log) AppendControl(c Control) error { return l.controls.append(c, c.Outcome == "") }

// AppendInteraction records an interaction opened or resolved.
func (l *Log) AppendInteraction(i Interaction) error { return l.interactions.append(i, true) }

// AppendKey records an idempotency key's state.
func (l *Log) AppendKey(k KeyRecord) error { return l.keys.append(k, true) }

// CutTorn cuts the torn last line (a crash's fragment) off each of the
// session's logs, and reports what it cut. Only the session's owner calls
// it, once it holds the lease: a reader never cuts, since a line that
// looks torn to it may be one another process is still writing.
func (l *Log) CutTorn() ([]Repair, error) {
	var reps []Repair
	var errs []error
	for _, a := range []*appender{&l.messages, &l.turns, &l.controls, &l.interactions, &l.keys} {
		r, err := cutTorn(a.file)
		if err != nil {
			errs = append(errs, err)
		}
		if r != nil {
			reps = append(reps, *r)
		}
	}
	return reps, errors.Join(errs...)
}

// Messages reads the transcript: the highest revision of each message id, in
// the order the ids first appeared, without the dropped ones.
func (l *Log) Messages() ([]Message, []Repair, error) {
	t, rep, err := l.Transcript()
	return t.Messages, rep, err
}

// Transcript is what messages.jsonl holds: its messages, and how many
// message ids it used, dropped ones included.
type Transcript struct {
	Messages []Message
	// IDs counts the distinct message ids of the log. Ids are a counter,
	// so a new message takes the next one: counting the dropped ones too
	// keeps a new message from taking a dropped one's id (whose drop, a
	// higher revision, would hide it).
	IDs int
}

// Transcript reads the transcript: the highest revision of each message
// id, in the order the ids first appeared, without the dropped ones.
func (l *Log) Transcript() (Transcript, []Repair, error) {
	var order []string
	latest := map[string]Message{}
	rep, err := readJSONL(l.messages.file, func(line []byte) error {
		var m Message
		if err := decodeStrict(line, &m); err != nil {
			return err
		}
		if m.ID == "" {
			return errors.New("message without id")
		}
		old, seen := latest[m.ID]
		if !seen {
			order = append(order, m.ID)
		}
		if !seen || m.Rev >= old.Rev {
			latest[m.ID] = m
		}
		return nil
	})
	t := Transcript{Messages: make([]Message, 0, len(order)), IDs: len(order)}
	for _, id := range order {
		if m := latest[id]; !m.Dropped {
			t.Messages = append(t.Messages, m)
		}
	}
	return t, rep, err
}

// Turns reads the audit log.
func (l *Log) Turns() ([]TurnEvent, []Repair, error) {
	return readAll[TurnEvent](l.turns.file, func(e TurnEvent) error {
		if e.Kind == "" {
			return errors.New("event without kind")
		}
		return nil
	})
}

// Controls reads the control log.
func (l *Log) Controls() ([]Control, []Repair, error) {
	return readAll[Control](l.controls.file, func(c Control) error {
		if c.ID == "" || c.Kind == "" {
			return errors.New("control without id or kind")
		}
		return nil
	})
}

// Interactions reads the interaction log.
func (l *Log) Interactions() ([]Interaction, []Repair, error) {
	return readAll[Interaction](l.interactions.file, func(i Interaction) error {
		if i.ID == "" {
			return errors.New("interaction without id")
		}
		return nil
	})
}

// Keys reads the key log.
func (l *Log) Keys() ([]KeyRecord, []Repair, error) {
	return readAll[KeyRecord](l.keys.file, func(k KeyRecord) error {
		if k.Key == "" {
			return errors.New("key record without key")
		}
		return nil
	})
}

func readAll[T any](file stateFile, check func(T) error) ([]T, []Repair, error) {
	var out []T
	rep, err := readJSONL(file, func(line []byte) error {
		var v T
		if err := decodeStrict(line, &v); err != nil {
			return err
		}
		if err := check(v); err != nil {
			return err
		}
		out = append(out, v)
		return nil
	})
	return out, rep, err
}

// Path returns the path of one of the session's log files.
func (l *Log) Path(name string) string { return filepath.Join(l.dir, name) }
