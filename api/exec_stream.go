package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/terminal"
)

// A streamed exec (POST /v1/instances/{instance}/exec with Accept:
// text/event-stream or ?stream=1) answers with Server-Sent Events: stdout
// and stderr events carry the output as it comes (client.ExecChunk), then
// one exit event carries the result, as the plain answer would
// (client.ExecResult). A repeated key runs nothing: its recorded result is
// the one exit event.
//
// The stream opens (200) at the first piece of output, the result, or the
// first heartbeat, whichever comes first. A request refused before then
// (an unknown session, an ended one, a key conflict) is answered with its
// problem and status, as without streaming; a failure after is an error
// event carrying the problem (client.Problem), and the stream ends.
//
// The engine's output callback runs while the command's output is not
// being read: it only hands the piece to this handler through a small
// buffer, so a slow client holds the command up as a full pipe would, and
// a client that goes away cancels the command (the request's context), as
// it does without streaming.

// execBuffer is how many pieces of output wait for a slow client before the
// command is held up.
const execBuffer = 64

// wantsStream reports whether an exec asks for Server-Sent Events: with
// ?stream=1 (or true), or an Accept header that names text/event-stream.
// ?stream=0 (or false) asks for the plain answer whatever Accept says.
func wantsStream(r *http.Request) (bool, error) {
	if q := r.URL.Query(); q.Has("stream") {
		switch v := q.Get("stream"); v {
		case "1", "true":
			return true, nil
		case "0", "false":
			return false, nil
		default:
			return false, badRequest(fmt.Sprintf("stream=%q: want true or false (1 or 0)", v))
		}
	}
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		if mt, _, err := mime.ParseMediaType(strings.TrimSpace(part)); err == nil && mt == "text/event-stream" {
			return true, nil
		}
	}
	return false, nil
}

// execPiece is one piece of output on its way from the engine's callback
// to the handler.
type execPiece struct {
	stream terminal.Stream
	text   string
}

// execOutcome is what the engine returned.
type execOutcome struct {
	res core.ExecResult
	err error
}

// execStream runs cmd and answers with its output as Server-Sent Events.
func (s *Server) execStream(w http.ResponseWriter, r *http.Request, id string, cmd core.ExecCommand) error {
	ctx := r.Context()
	pieces := make(chan execPiece, execBuffer)
	done := make(chan execOutcome, 1)
	go func() {
		res, err := s.eng.ExecStream(ctx, id, cmd, func(st terminal.Stream, text string) {
			select {
			case pieces <- execPiece{st, text}:
			case <-ctx.Done(): // the client went away: the command is cancelled too
			}
		})
		close(pieces) // ExecStream gives no piece after it returns
		done <- execOutcome{res, err}
	}()
	es := &execSSE{w: w, rc: http.NewResponseController(w)}
	beat := time.NewTicker(s.opts.Heartbeat)
	defer beat.Stop()
	for pieces != nil {
		select {
		case p, ok := <-pieces:
			if !ok {
				pieces = nil
				break
			}
			es.piece(p)
			// Whatever else is waiting goes out with it, in one flush.
			for more := true; more; {
				select {
				case p, ok := <-pieces:
					if !ok {
						pieces, more = nil, false
						break
					}
					es.piece(p)
				default:
					more = false
				}
			}
			es.flush()
		case <-beat.C:
			es.ping()
		}
	}
	out := <-done
	if out.err != nil {
		if !es.opened {
			return out.err // nothing sent yet: a plain problem, with its status
		}
		b, err := json.Marshal(problemFor(out.err))
		if err != nil {
			return nil // the status is sent; the stream just ends
		}
		es.event(client.ExecEventError, b)
		es.flush()
		return nil
	}
	b, err := json.Marshal(clientExecResult(out.res))
	if err != nil {
		if !es.opened {
			return err
		}
		return nil
	}
	es.event(client.ExecEventExit, b)
	es.flush()
	return nil
}

// execSSE writes a streamed exec's events. Once a write fails (the client
// went away) it writes nothing more: the handler still drains the engine's
// pieces until the command, cancelled with the request, returns.
type execSSE struct {
	w      http.ResponseWriter
	rc     *http.ResponseController
	opened bool
	failed bool
}

// open sends the status and the headers of the stream.
func (es *execSSE) open() {
	if es.opened {
		return
	}
	es.opened = true
	h := es.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	es.w.WriteHeader(http.StatusOK)
}

func (es *execSSE) piece(p execPiece) {
	b, err := json.Marshal(client.ExecChunk{Stream: string(p.stream), Text: p.text})
	if err != nil {
		return // a string always encodes
	}
	es.event(string(p.stream), b)
}

func (es *execSSE) event(kind string, data []byte) {
	es.write(fmt.Appendf(nil, "event: %s\ndata: %s\n\n", kind, data))
}

// ping keeps a quiet stream alive for proxies and clients, and opens it
// when the command has said nothing yet.
func (es *execSSE) ping() {
	es.write([]byte(": ping\n\n"))
	es.flush()
}

func (es *execSSE) write(b []byte) {
	es.open()
	if es.failed {
		return
	}
	if err := es.rc.SetWriteDeadline(time.Now().Add(writeTimeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		es.failed = true
		return
	}
	if _, err := es.w.Write(b); err != nil {
		es.failed = true
	}
}

func (es *execSSE) flush() {
	if es.failed || !es.opened {
		return
	}
	if err := es.rc.Flush(); err != nil {
		es.failed = true
	}
}
