package api

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/sessions"
)

func (s *Server) queue(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	q, err := s.eng.Queue(id)
	if err != nil {
		return err
	}
	if q == nil {
		q = []sessions.Control{}
	}
	writeJSON(w, http.StatusOK, q)
	return nil
}

// queueItem is the session and the queued item a queue route names.
func queueItem(r *http.Request) (id, item string, err error) {
	if id, err = pathID(r, "id"); err != nil {
		return "", "", err
	}
	item, err = pathID(r, "item")
	return id, item, err
}

func (s *Server) unqueue(w http.ResponseWriter, r *http.Request) error {
	id, item, err := queueItem(r)
	if err != nil {
		return err
	}
	if err := s.caller(r).RemoveQueued(id, item); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) moveQueued(w http.ResponseWriter, r *http.Request) error {
	id, item, err := queueItem(r)
	if err != nil {
		return err
	}
	var req client.MoveRequest
	if err := decode(w, r, &req); err != nil {
		return err
	}
	if req.To < 0 {
		return badRequest("to: negative")
	}
	if err := s.caller(r).MoveQueued(id, item, req.To); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) editQueued(w http.ResponseWriter, r *http.Request) error {
	id, item, err := queueItem(r)
	if err != nil {
		return err
	}
	var req client.EditRequest
	if err := decode(w, r, &req); err != nil {
		return err
	}
	if strings.TrimSpace(req.Text) == "" {
		return badRequest("text: empty")
	}
	if err := s.caller(r).EditQueued(id, item, req.Text); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) keys(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	ks, err := s.eng.Keys(id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, ks)
	return nil
}

func (s *Server) forgetKey(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	key := r.PathValue("key")
	if err := checkKey(key); err != nil || key == "" {
		return badRequest(fmt.Sprintf("key %q is not a valid key", key))
	}
	// The engine does not type the refusal of a key that is not
	// uncertain: look first, so it is a conflict and not an engine error.
	ks, err := s.eng.Keys(id)
	if err != nil {
		return err
	}
	for _, k := range ks {
		if k.Key == key && k.State != sessions.KeyUncertain {
			return &problemError{status: http.StatusConflict, code: client.CodeKeyNotUncertain,
				detail: fmt.Sprintf("key %q of session %s is %s: only an uncertain key can be forgotten", key, id, k.State)}
		}
	}
	if err := s.eng.ForgetKey(id, key); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// actions answers the Action required set.
func (s *Server) actions(w http.ResponseWriter, r *http.Request) error {
	out := s.eng.Actions()
	if out == nil {
		out = []client.ActionItem{} // [] on the wire, never null
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) interactions(w http.ResponseWriter, r *http.Request) error {
	filter := r.URL.Query().Get("session")
	if filter != "" {
		if !idPattern.MatchString(filter) {
			return badRequest(fmt.Sprintf("session %q is not a valid id", filter))
		}
		rec, err := s.eng.Session(filter)
		if err != nil {
			return err
		}
		filter = rec.ID
	}
	out := []client.Interaction{}
	for _, it := range s.eng.Snapshot().Interactions {
		if filter == "" || it.SessionID == filter {
			out = append(out, it)
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) respond(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	iid, err := pathID(r, "iid")
	if err != nil {
		return err
	}
	var req client.Response
	if err := decode(w, r, &req); err != nil {
		return err
	}
	switch req.Decision {
	case "", sessions.AllowOnce, sessions.AllowSession, sessions.Deny:
	default:
		return badRequest(fmt.Sprintf("decision %q: want allow_once, allow_session or deny", req.Decision))
	}
	a := core.Answer{Decision: req.Decision, Message: req.Message, Text: req.Text, Prefix: req.Prefix, By: s.opts.Client(r)}
	if err := s.caller(r).Answer(id, iid, a); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// Message page sizes.
const (
	defaultPage = 50
	maxPage     = 1000
)

// messages answers a page of a transcript: the newest (TranscriptTail,
// which does not load a whole transcript the engine is not running), or
// the page before a message (which loads the transcript: the engine has
// no cheaper way yet).
func (s *Server) messages(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	q := r.URL.Query()
	limit := defaultPage
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxPage {
			return badRequest(fmt.Sprintf("limit=%q: want 1 to %d", v, maxPage))
		}
		limit = n
	}
	before := q.Get("before")
	var page client.MessagePage
	if before == "" {
		page.Messages, page.Seq, page.More, err = s.eng.TranscriptTail(id, limit)
		if err != nil {
			return err
		}
	} else {
		if !idPattern.MatchString(before) {
			return badRequest(fmt.Sprintf("before %q is not a valid id", before))
		}
		msgs, seq, err := s.eng.Transcript(id)
		if err != nil {
			return err
		}
		end := -1
		for i, m := range msgs {
			if m.ID == before {
				end = i
				break
			}
		}
		if end < 0 {
			return badRequest(fmt.Sprintf("before: session %s has no message %s", id, before))
		}
		from := max(end-limit, 0)
		page = client.MessagePage{Messages: msgs[from:end], Seq: seq, More: from > 0}
	}
	if page.Messages == nil {
		page.Messages = []sessions.Message{}
	}
	writeJSON(w, http.StatusOK, page)
	return nil
}

// exec runs a command in a session's execution environment. Only the
// workspace itself ("main") is an instance so far. It answers when the
// command ends, or, asked for a stream (Accept: text/event-stream, or
// ?stream=1), as Server-Sent Events while it runs (execStream).
func (s *Server) exec(w http.ResponseWriter, r *http.Request) error {
	stream, err := wantsStream(r)
	if err != nil {
		return err
	}
	id, cmd, err := s.execCommand(w, r)
	if err != nil {
		return err
	}
	if stream {
		return s.execStream(w, r, id, cmd)
	}
	res, err := s.eng.Exec(r.Context(), id, cmd)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, clientExecResult(res))
	return nil
}

// execCommand reads and checks an exec request: the instance, then the
// body. It returns the session and the command to run.
func (s *Server) execCommand(w http.ResponseWriter, r *http.Request) (string, core.ExecCommand, error) {
	if err := checkInstance(r); err != nil {
		return "", core.ExecCommand{}, err
	}
	var req client.ExecRequest
	if err := decode(w, r, &req); err != nil {
		return "", core.ExecCommand{}, err
	}
	if !idPattern.MatchString(req.Session) {
		return "", core.ExecCommand{}, badRequest(fmt.Sprintf("session %q is not a valid id", req.Session))
	}
	if (len(req.Argv) > 0) == (req.Shell != "") {
		return "", core.ExecCommand{}, badRequest("give argv or shell, exactly one")
	}
	if err := checkKey(req.Key); err != nil {
		return "", core.ExecCommand{}, err
	}
	cmd := core.ExecCommand{Argv: req.Argv, Shell: req.Shell, Key: req.Key}
	if req.Timeout != "" {
		d, err := time.ParseDuration(req.Timeout)
		if err != nil || d <= 0 {
			return "", core.ExecCommand{}, badRequest(fmt.Sprintf("timeout %q: want a positive Go duration (30s, 2m)", req.Timeout))
		}
		cmd.Timeout = d
	}
	return req.Session, cmd, nil
}

// clientExecResult is the wire form of an exec's result.
func clientExecResult(res core.ExecResult) client.ExecResult {
	return client.ExecResult{ExitCode: res.ExitCode, Stdout: res.Stdout, Stderr: res.Stderr,
		StdoutTruncated: res.StdoutTruncated, StderrTruncated: res.StderrTruncated, TimedOut: res.TimedOut,
		Cancelled: res.Cancelled, DurationNS: int64(res.Duration), Replayed: res.Replayed}
}
