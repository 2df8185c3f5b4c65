package api

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/engine"
	"github.com/atelier-studio/atelier/sessions"
)

// plainActions are the controls that take no body.
var plainActions = []string{"start", "pause", "resume", "stop", "cancel", "close", "nudge",
	"archive", "unarchive", "delete", "compact", "clear"}

func (s *Server) listSessions(w http.ResponseWriter, r *http.Request) error {
	archived := false
	if v := r.URL.Query().Get("archived"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return badRequest(fmt.Sprintf("archived=%q: want true or false", v))
		}
		archived = b
	}
	// A list carries each task's preview (engine.Listed): a session's own
	// record has the whole task, which may be up to engine.MaxText.
	out := []engine.ListedSession{}
	for _, rec := range s.eng.Sessions() {
		if rec.Archived == archived {
			out = append(out, engine.Listed(rec))
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) getSession(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	rec, err := s.eng.Session(id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, rec)
	return nil
}

func (s *Server) createSession(w http.ResponseWriter, r *http.Request) error {
	var req client.CreateRequest
	if err := decode(w, r, &req); err != nil {
		return err
	}
	if req.Task != "" && req.Instructions != "" && req.Task != req.Instructions {
		return badRequest("give instructions or task, not both")
	}
	if req.Task != "" {
		req.Instructions = req.Task
	}
	if err := checkKey(req.Key); err != nil {
		return err
	}
	if err := checkEnv(req.Env); err != nil {
		return err
	}
	if req.Model != "" {
		// The engine takes no model at creation yet, and a model change
		// is refused before the session starts.
		return &problemError{status: http.StatusNotImplemented, code: client.CodeNotSupported,
			detail: "choosing the model at creation is not supported yet: create the session, then POST .../model once it runs"}
	}
	rec, err := s.eng.Create(core.CreateOptions{Agent: req.Agent, Title: req.Title, Instructions: req.Instructions,
		Mode: sessions.Mode(req.Mode), Access: sessions.Access(req.Access), Execution: req.Execution,
		Image: req.Image, Approval: req.Approval, AutoStart: req.AutoStart, StartAt: req.StartAt, Key: req.Key, Env: req.Env,
		OutputSchema: req.OutputSchema, Isolation: req.Isolation, Instance: req.Instance})
	if err != nil {
		if p := instanceErr(err); p != err { //nolint:errorlint // identity: did instanceErr give it a problem
			return p
		}
		return asValidation(err)
	}
	writeJSON(w, http.StatusCreated, rec)
	return nil
}

// asValidation reports an error of Create the engine does not type (a bad
// mode, access or policy: Create checks these before it writes anything)
// as a bad request.
func asValidation(err error) error {
	if p := problemFor(err); p.Code != client.CodeEngineError {
		return err
	}
	return badRequest(err.Error())
}

// control is the handler of a control without a body.
func (s *Server) control(action string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := pathID(r, "id")
		if err != nil {
			return err
		}
		if err := decode(w, r, &struct{}{}); err != nil {
			return err
		}
		rc, err := s.apply(s.caller(r), action, id)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, rc)
		return nil
	}
}

// apply calls the engine for a control without a body. The engine answers
// start, archive and delete with no receipt: they take effect now.
func (s *Server) apply(c core.Caller, action, id string) (core.Receipt, error) {
	now := core.Receipt{When: "now"}
	switch action {
	case "start":
		return now, c.Start(id)
	case "pause":
		return c.Pause(id)
	case "resume":
		return c.Resume(id)
	case "stop":
		return c.Stop(id)
	case "cancel":
		return c.Cancel(id)
	case "close":
		return c.CloseSession(id)
	case "nudge":
		return c.Nudge(id)
	case "archive":
		return now, c.Archive(id, true)
	case "unarchive":
		return now, c.Archive(id, false)
	case "delete":
		return now, s.eng.Delete(id)
	case "compact":
		return c.Compact(id)
	case "clear":
		return c.Clear(id)
	}
	return core.Receipt{}, fmt.Errorf("unknown action %q", action)
}

// input is the handler of send (a prompt) and steer.
func (s *Server) input(steer bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := pathID(r, "id")
		if err != nil {
			return err
		}
		var req client.InputRequest
		if err := decode(w, r, &req); err != nil {
			return err
		}
		if req.Text == "" {
			return badRequest("text: empty")
		}
		// Checked before the variables are handed over, so a refused
		// input changes nothing; the engine checks it again, and says the
		// same.
		what := sessions.CtlPrompt
		if steer {
			what = sessions.CtlSteer
		}
		if err := engine.TextTooLarge(string(what), len(req.Text)); err != nil {
			return err
		}
		if steer && len(req.OutputSchema) > 0 {
			return badRequest("output_schema: a steer has no answer of its own; send a prompt with the schema")
		}
		if err := checkKey(req.Key); err != nil {
			return err
		}
		if err := checkEnv(req.Env); err != nil {
			return err
		}
		if err := s.eng.HandEnv(id, req.Env); err != nil {
			return err
		}
		var rc core.Receipt
		if steer {
			rc, err = s.caller(r).Steer(id, req.Text, req.Key)
		} else {
			rc, err = s.caller(r).Prompt(id, core.Prompt{Text: req.Text, Key: req.Key, Output: req.OutputSchema})
		}
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, rc)
		return nil
	}
}

func (s *Server) setModel(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	var req client.ModelRequest
	if err := decode(w, r, &req); err != nil {
		return err
	}
	if req.Model == "" {
		return badRequest("model: empty")
	}
	rc, err := s.caller(r).SetModel(id, req.Model)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, rc)
	return nil
}

func (s *Server) setApproval(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	var req client.ApprovalRequest
	if err := decode(w, r, &req); err != nil {
		return err
	}
	switch req.Policy {
	case core.PolicyAsk, core.PolicyAuto, core.PolicyReadOnly:
	default:
		return badRequest(fmt.Sprintf("policy %q: want ask, auto or read-only", req.Policy))
	}
	rc, err := s.caller(r).SetApproval(id, req.Policy)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, rc)
	return nil
}

func (s *Server) fork(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	var req client.ForkRequest
	if err := decode(w, r, &req); err != nil {
		return err
	}
	if req.UpTo != "" {
		if !idPattern.MatchString(req.UpTo) {
			return badRequest(fmt.Sprintf("up_to %q is not a valid id", req.UpTo))
		}
		// The engine does not type a missing message: look first.
		msgs, _, err := s.eng.Transcript(id)
		if err != nil {
			return err
		}
		if !hasMessage(msgs, req.UpTo) {
			return badRequest(fmt.Sprintf("up_to: session %s has no message %s", id, req.UpTo))
		}
	}
	rec, err := s.eng.Fork(id, req.UpTo, req.Title)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, rec)
	return nil
}

func hasMessage(msgs []sessions.Message, id string) bool {
	for _, m := range msgs {
		if m.ID == id {
			return true
		}
	}
	return false
}
