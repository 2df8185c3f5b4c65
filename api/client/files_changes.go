package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// KindChanges is the event of the files change stream: a batch of changes.
const KindChanges = "changes"

// WorkspaceChange is one change to the workspace's files, as the host's
// watcher reports it.
type WorkspaceChange struct {
	// Kind is created, changed, deleted, renamed, or notice (a message of
	// the watcher, in Message, rather than a change).
	Kind    string    `json:"kind"`
	Path    string    `json:"path,omitempty"`
	OldPath string    `json:"old_path,omitempty"`
	By      string    `json:"by,omitempty"` // a session id, "operator" or "external"
	Time    time.Time `json:"time"`
	IsDir   bool      `json:"is_dir,omitempty"`
	Size    int64     `json:"size,omitempty"`
	Message string    `json:"message,omitempty"`
}

// ChangeStream is the files change stream of one connection. Read C until
// it is closed (the context ended, the connection dropped or the server
// closed); Err then says why. It does not reconnect by itself: changes
// made while no stream was open are not replayed, so a client that opens
// a new one reads again what it shows.
type ChangeStream struct {
	C <-chan []WorkspaceChange

	mu  sync.Mutex
	err error
}

// Err is why the stream ended; nil while it runs or when its context
// ended.
func (s *ChangeStream) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Changes opens the change stream. It returns once the host watches the
// workspace: a change made after it returns is on the stream.
func (f *Files) Changes(ctx context.Context) (*ChangeStream, error) {
	resp, err := f.c.send(ctx, http.MethodGet, f.path("changes", nil), nil, http.Header{"Accept": {"text/event-stream"}})
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(resp.Body, 64<<10)
	// The host's first comment says its watch is in place.
	if _, err := br.ReadBytes('\n'); err != nil {
		_ = resp.Body.Close() // the read error is the one to report
		return nil, fmt.Errorf("the files change stream: %w", err)
	}
	ch := make(chan []WorkspaceChange, 16)
	s := &ChangeStream{C: ch}
	go func() {
		defer close(ch)
		defer func() { _ = resp.Body.Close() }() // the stream is over either way
		err := readChanges(ctx, br, ch)
		if ctx.Err() == nil {
			s.mu.Lock()
			s.err = err
			s.mu.Unlock()
		}
	}()
	return s, nil
}

// readChanges parses the stream's events into ch until it ends.
func readChanges(ctx context.Context, br *bufio.Reader, ch chan<- []WorkspaceChange) error {
	var kind string
	var data bytes.Buffer
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			return fmt.Errorf("the files change stream: %w", err)
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) > 0 {
			field, value, _ := bytes.Cut(line, []byte(":"))
			value = bytes.TrimPrefix(value, []byte(" "))
			switch string(field) {
			case "event":
				kind = string(value)
			case "data":
				data.Write(value)
			}
			continue
		}
		if kind == KindChanges {
			var batch []WorkspaceChange
			if err := json.Unmarshal(data.Bytes(), &batch); err != nil {
				return fmt.Errorf("the files change stream: %w", err)
			}
			select {
			case ch <- batch:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		kind = ""
		data.Reset()
	}
}
