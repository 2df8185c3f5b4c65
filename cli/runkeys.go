package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/atelier-studio/atelier/sessions"
)

// runKeysFile records, per workspace, which session each `atelier run --key`
// created, so a repeated key returns that session instead of running
// again. The engine keeps idempotency keys per session (for prompts and
// execs); a key that creates a session has no session yet to keep it in.
const runKeysFile = "run-keys.jsonl"

// runKey is one line of runKeysFile.
type runKey struct {
	Key     string    `json:"key"`
	Session string    `json:"session"`
	Time    time.Time `json:"time"`
}

// runKeys is the workspace's run-key record, locked while open so two runs
// with one key cannot both create a session.
type runKeys struct {
	f *os.File
}

// openRunKeys opens and locks the record of a workspace.
func openRunKeys(workspace string) (*runKeys, error) {
	// Never through a symlink planted in .state/.
	f, err := sessions.OpenStateFile(filepath.Join(workspace, sessions.StateDir), runKeysFile, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open run keys: %w", err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		return nil, errors.Join(fmt.Errorf("lock run keys: %w", err), f.Close())
	}
	return &runKeys{f: f}, nil
}

// lookup returns the session a key created, if any. A torn or corrupt line
// is skipped.
func (k *runKeys) lookup(key string) (string, bool, error) {
	if _, err := k.f.Seek(0, 0); err != nil {
		return "", false, fmt.Errorf("read run keys: %w", err)
	}
	found := ""
	sc := bufio.NewScanner(k.f)
	for sc.Scan() {
		var r runKey
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Key == key {
			found = r.Session
		}
	}
	if err := sc.Err(); err != nil {
		return "", false, fmt.Errorf("read run keys: %w", err)
	}
	return found, found != "", nil
}

// record appends key → session, synced before the run goes on.
func (k *runKeys) record(key, session string) error {
	b, _ := json.Marshal(runKey{Key: key, Session: session, Time: time.Now().UTC()})
	b = append(b, '\n')
	if fi, err := k.f.Stat(); err == nil && fi.Size() > 0 {
		last := make([]byte, 1)
		if _, err := k.f.ReadAt(last, fi.Size()-1); err == nil && last[0] != '\n' {
			b = append([]byte{'\n'}, b...) // a torn line stays apart from ours
		}
	}
	if _, err := k.f.Write(b); err != nil {
		return fmt.Errorf("record run key: %w", err)
	}
	if err := k.f.Sync(); err != nil {
		return fmt.Errorf("record run key: %w", err)
	}
	return nil
}

// close unlocks the record.
func (k *runKeys) close() error { return k.f.Close() }
