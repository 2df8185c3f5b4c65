package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/atelier-studio/atelier/engine"
)

// Stream is a live view followed over Server-Sent Events. Read C until it
// is closed (the context ended, or the server refused the stream for
// good); Err then says why.
type Stream struct {
	// C carries the events in order: a snapshot first (unless the stream
	// resumed after an id), then every event after it; a resync event is
	// followed by a fresh snapshot.
	C <-chan Event

	lost chan struct{}

	mu  sync.Mutex
	err error
}

// Lost is signalled each time the stream, having lost its connection,
// finds no server to reconnect to (the host went away): a client that can
// start a host does so then, and the stream resumes on it.
func (s *Stream) Lost() <-chan struct{} { return s.lost }

// Err is why the stream ended; nil while it runs or when its context ended.
func (s *Stream) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Events follows the live view, of one session when session is not empty.
// lastID 0 starts with a snapshot; otherwise the stream resumes after that
// event id. A dropped connection is reopened with the last id seen, so the
// events go on without gap or repeat. The first connection is made before
// Events returns, so a refused stream (an unknown session) is its error.
func (c *Client) Events(ctx context.Context, session string, lastID uint64) (*Stream, error) {
	resp, err := c.openEvents(ctx, session, lastID)
	if err != nil {
		return nil, err
	}
	ch := make(chan Event, 64)
	s := &Stream{C: ch, lost: make(chan struct{}, 1)}
	go c.follow(ctx, s, ch, resp, session, lastID)
	return s, nil
}

func (c *Client) openEvents(ctx context.Context, session string, lastID uint64) (*http.Response, error) {
	path := "/v1/events"
	if session != "" {
		path += "?session=" + url.QueryEscape(session)
	}
	req, err := c.newRequest(ctx, http.MethodGet, path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	if lastID > 0 {
		req.Header.Set("Last-Event-ID", strconv.FormatUint(lastID, 10))
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		defer func() { _ = resp.Body.Close() }() // the problem read is what matters
		return nil, readProblem(resp)
	}
	return resp, nil
}

// follow reads the stream and reconnects after a dropped connection, with
// a growing pause, until the context ends or the server refuses.
func (c *Client) follow(ctx context.Context, s *Stream, ch chan<- Event, resp *http.Response, session string, last uint64) {
	defer close(ch)
	pause := 20 * time.Millisecond
	for {
		// However the stream ended (the host went away, a torn event), it
		// is reopened after the last event delivered; closing the body of
		// a stream that ended can fail and changes nothing.
		n, _ := readEvents(ctx, resp.Body, ch, &last)
		_ = resp.Body.Close()
		if ctx.Err() != nil {
			return
		}
		if n > 0 {
			pause = 20 * time.Millisecond
		}
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(pause):
			}
			pause = min(pause*2, 2*time.Second)
			var err error
			resp, err = c.openEvents(ctx, session, last)
			if err == nil {
				break
			}
			var p *Problem
			if errors.As(err, &p) && p.Status < 500 {
				s.mu.Lock()
				s.err = err
				s.mu.Unlock()
				return
			}
			if p == nil {
				select {
				case s.lost <- struct{}{}:
				default: // one signal waiting says it all
				}
			}
		}
	}
}

// readEvents parses Server-Sent Events from r into ch, keeping *last at
// the id of the last event delivered; it returns how many it delivered.
func readEvents(ctx context.Context, r io.Reader, ch chan<- Event, last *uint64) (int, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var id, kind string
	var data bytes.Buffer
	n := 0
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			return n, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) > 0 {
			field, value, _ := bytes.Cut(line, []byte(":"))
			value = bytes.TrimPrefix(value, []byte(" "))
			switch string(field) {
			case "": // a comment (heartbeat)
			case "id":
				id = string(value)
			case "event":
				kind = string(value)
			case "data":
				if data.Len() > 0 {
					data.WriteByte('\n')
				}
				data.Write(value)
			}
			continue
		}
		if kind == "" && data.Len() == 0 {
			continue
		}
		ev, err := decodeEvent(kind, data.Bytes())
		if err != nil {
			return n, err
		}
		if id != "" {
			seq, err := strconv.ParseUint(id, 10, 64)
			if err != nil {
				return n, fmt.Errorf("event id %q: %w", id, err)
			}
			ev.Seq = seq
		}
		select {
		case ch <- ev:
		case <-ctx.Done():
			return n, ctx.Err()
		}
		if id != "" {
			*last = ev.Seq
		}
		n++
		id, kind = "", ""
		data.Reset()
	}
}

func decodeEvent(kind string, data []byte) (Event, error) {
	switch engine.EventKind(kind) {
	case KindSnapshot:
		var snap Snapshot
		if err := json.Unmarshal(data, &snap); err != nil {
			return Event{}, fmt.Errorf("snapshot event: %w", err)
		}
		return Event{Event: engine.Event{Kind: KindSnapshot, Seq: snap.Seq}, Snapshot: &snap}, nil
	case KindResync:
		return Event{Event: engine.Event{Kind: KindResync}}, nil
	}
	var ev Event
	if err := json.Unmarshal(data, &ev); err != nil {
		return Event{}, fmt.Errorf("%s event: %w", kind, err)
	}
	if ev.Kind == "" {
		ev.Kind = engine.EventKind(kind)
	}
	return ev, nil
}
