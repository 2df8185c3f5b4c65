package host

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/atelier-studio/atelier/sessions"
)

// Record says which process hosts a workspace's engine. The host writes it
// to <key>.json in the runtime directory and, when the state can be
// written, to .state/engine.json.
type Record struct {
	PID       int       `json:"pid"`
	Socket    string    `json:"socket"`
	Version   string    `json:"version"`
	StartedAt time.Time `json:"started_at"`
	Workspace string    `json:"workspace"`
	// KeptAlive says why the host does not exit when idle: the triggers
	// that need it running, as "nightly (schedule \"@every 30m\")".
	KeptAlive []string `json:"kept_alive,omitempty"`
	// Listen is the TCP address the host also serves on (serve --listen),
	// "" for the socket alone.
	Listen string `json:"listen,omitempty"`
	// IdleExit is how long the host waits idle before it exits ("10m0s"),
	// or "never"; "" until the host serves.
	IdleExit string `json:"idle_exit,omitempty"`
}

// maxRecord bounds what is read of a record.
const maxRecord = 64 << 10

func writeRecord(path string, r Record) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := sessions.WriteFileAtomic(path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("write the host record: %w", err)
	}
	return nil
}

// readRecord reads a record without following a symbolic link.
func readRecord(path string) (Record, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return Record{}, err
	}
	defer func() { _ = f.Close() }() // read-only
	b, err := io.ReadAll(io.LimitReader(f, maxRecord))
	if err != nil {
		return Record{}, err
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return Record{}, fmt.Errorf("read the host record %s: %w", path, err)
	}
	return r, nil
}

// removeOwnRecord removes a record if it is still this process's: a host
// that lost its workspace's .state/ to another never removes the other's.
func removeOwnRecord(path string) error {
	r, err := readRecord(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err == nil && r.PID != os.Getpid() {
		return nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", path, err)
	}
	return nil
}

// engineFile is the path of .state/engine.json.
func engineFile(workspace string) string {
	return filepath.Join(workspace, sessions.StateDir, EngineFile)
}
