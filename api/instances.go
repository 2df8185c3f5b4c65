package api

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/instances"
)

// The instance routes make, inspect, apply and remove the workspace's
// instances (package instances): the engine does the work, these routes
// give its refusals their problems, each naming what it is about (the
// conflicting files, the sessions still on an instance).

// routeInstances registers the instance routes (see instancesOperations).
func (s *Server) routeInstances() {
	s.handle("GET /v1/instances", s.listInstances)
	s.handle("POST /v1/instances", s.createInstance)
	s.handle("GET /v1/instances/{instance}", s.getInstance)
	s.handle("GET /v1/instances/{instance}/diff", s.instanceDiff)
	s.handle("POST /v1/instances/{instance}/apply", s.applyInstance)
	s.handle("DELETE /v1/instances/{instance}", s.discardInstance)
	s.handle("POST /v1/instances/{instance}/branch", s.branchInstance)
	s.handle("GET /v1/copy-estimate", s.copyEstimate)
}

// instancesOperations documents the instance routes.
func instancesOperations() []operation {
	const one = "/v1/instances/{instance}"
	return []operation{
		{method: "GET", path: "/v1/instances", summary: "The workspace (\"main\") and its instances, each with the sessions on it", status: 200, resp: []client.InstanceInfo{},
			problems: codes(client.CodeNoInstances)},
		{method: "POST", path: "/v1/instances", summary: "Make an instance (kind worktree or copy; no id: one is made up)", body: client.CreateInstanceRequest{}, status: 201, resp: client.InstanceInfo{},
			problems: codes(client.CodeInstanceExists, client.CodeNoInstances)},
		{method: "GET", path: one, summary: "An instance with its size on disk and what it changed", status: 200, resp: client.InstanceDetail{},
			problems: codes(client.CodeNoInstances)},
		{method: "GET", path: one + "/diff", summary: "The instance's files changed against its base (status, lines) and the unified patch", status: 200, resp: instances.Diff{},
			problems: codes(client.CodeNoInstances, client.CodeDiffTooLarge)},
		{method: "POST", path: one + "/apply", summary: "Write the instance's changes into the workspace (preview: say what, write nothing); 409 instance_conflict names the files the workspace changed too", body: client.ApplyRequest{}, status: 200, resp: client.ApplyResult{},
			problems: codes(client.CodeInstanceConflict, client.CodeWorkspaceBusy, client.CodeNoInstances)},
		{method: "DELETE", path: one, summary: "Remove an instance (force=1 loses changes not applied); 409 names the sessions on it or the unapplied files", query: []string{"force"}, status: 204,
			problems: codes(client.CodeInstanceInUse, client.CodeUnappliedChanges, client.CodeNoInstances)},
		{method: "GET", path: "/v1/copy-estimate", summary: "What a copy instance of the workspace would hold, and the size over which making one asks first", status: 200, resp: client.CopyEstimate{}},
		{method: "POST", path: one + "/branch", summary: "Make a branch of the user's repository from a worktree instance's work", body: client.BranchRequest{}, status: 201, resp: client.BranchResult{},
			problems: codes(client.CodeNotWorktree, client.CodeNoInstances)},
	}
}

// instanceIDPattern is what the engine accepts as an instance id.
var instanceIDPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// instanceID returns the instance the path names: an instance of the
// workspace, not "main" (the workspace itself has no diff, apply or
// discard).
func instanceID(r *http.Request) (string, error) {
	id := r.PathValue("instance")
	if id == client.MainInstance {
		return "", badRequest(`"main" is the workspace itself, not an instance`)
	}
	if !instanceIDPattern.MatchString(id) {
		return "", &problemError{status: http.StatusNotFound, code: client.CodeUnknownInstance,
			detail: fmt.Sprintf("instance %q: no such instance", id)}
	}
	return id, nil
}

// instanceErr gives the engine's instance errors their problems.
func instanceErr(err error) error {
	var (
		conflict  *instances.ConflictError
		unapplied *instances.UnappliedError
		inUse     *core.InUseError
	)
	switch {
	case err == nil:
		return nil
	case errors.As(err, &conflict):
		return &problemError{status: http.StatusConflict, code: client.CodeInstanceConflict, detail: err.Error(), files: conflict.Files}
	case errors.As(err, &unapplied):
		return &problemError{status: http.StatusConflict, code: client.CodeUnappliedChanges, detail: err.Error(), files: unapplied.Files}
	case errors.As(err, &inUse):
		return &problemError{status: http.StatusConflict, code: client.CodeInstanceInUse, detail: err.Error(), sessions: inUse.Sessions}
	case errors.Is(err, core.ErrNoInstances):
		return &problemError{status: http.StatusConflict, code: client.CodeNoInstances, detail: err.Error()}
	case errors.Is(err, instances.ErrNotFound):
		return &problemError{status: http.StatusNotFound, code: client.CodeUnknownInstance, detail: err.Error()}
	case errors.Is(err, instances.ErrExists):
		return &problemError{status: http.StatusConflict, code: client.CodeInstanceExists, detail: err.Error()}
	case errors.Is(err, instances.ErrNotWorktree):
		return &problemError{status: http.StatusConflict, code: client.CodeNotWorktree, detail: err.Error()}
	}
	return err
}

func (s *Server) listInstances(w http.ResponseWriter, r *http.Request) error {
	list, err := s.caller(r).ListInstances()
	if err != nil {
		return instanceErr(err)
	}
	main := client.InstanceInfo{Instance: instances.Instance{ID: client.MainInstance, Kind: client.KindWorkspace,
		Path: s.eng.Workspace(), Ready: true}, Sessions: []string{}}
	for _, rec := range s.eng.Sessions() {
		if rec.Instance == "" {
			main.Sessions = append(main.Sessions, rec.ID)
		}
	}
	out := []client.InstanceInfo{main}
	for _, in := range list {
		out = append(out, wireInstance(in))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func wireInstance(in core.InstanceInfo) client.InstanceInfo {
	if in.Sessions == nil {
		in.Sessions = []string{}
	}
	return client.InstanceInfo{Instance: in.Instance, Sessions: in.Sessions}
}

func (s *Server) createInstance(w http.ResponseWriter, r *http.Request) error {
	var req client.CreateInstanceRequest
	if err := decode(w, r, &req); err != nil {
		return err
	}
	kind := instances.Kind(req.Kind)
	if kind != instances.Worktree && kind != instances.Copy {
		return badRequest(fmt.Sprintf("kind %q: use %q or %q", req.Kind, instances.Worktree, instances.Copy))
	}
	if req.ID == "" {
		id, err := newInstanceID(kind)
		if err != nil {
			return err
		}
		req.ID = id
	}
	if req.ID == client.MainInstance || !instanceIDPattern.MatchString(req.ID) {
		return badRequest(fmt.Sprintf("instance id %q: use 1 to 64 lower-case letters, digits, '-' or '_' (not \"main\")", req.ID))
	}
	c := s.caller(r)
	in, err := c.CreateInstance(kind, req.ID)
	if err != nil {
		return instanceErr(err)
	}
	writeJSON(w, http.StatusCreated, client.InstanceInfo{Instance: in, Sessions: []string{}})
	return nil
}

// newInstanceID makes up an id for an instance created without one:
// its kind and six hex digits ("copy-3fa2b1").
func newInstanceID(kind instances.Kind) (string, error) {
	b := make([]byte, 3)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return string(kind) + "-" + hex.EncodeToString(b), nil
}

// findInstance returns the instance id with its sessions.
func (s *Server) findInstance(c core.Caller, id string) (core.InstanceInfo, error) {
	list, err := c.ListInstances()
	if err != nil {
		return core.InstanceInfo{}, instanceErr(err)
	}
	for _, in := range list {
		if in.ID == id && in.Ready {
			return in, nil
		}
	}
	return core.InstanceInfo{}, instanceErr(fmt.Errorf("instance %s: %w", id, instances.ErrNotFound))
}

func (s *Server) getInstance(w http.ResponseWriter, r *http.Request) error {
	id, err := instanceID(r)
	if err != nil {
		return err
	}
	c := s.caller(r)
	in, err := s.findInstance(c, id)
	if err != nil {
		return err
	}
	size, err := c.InstanceSize(id)
	if err != nil {
		return instanceErr(err)
	}
	d, err := c.InstanceDiff(id)
	if err != nil {
		return instanceErr(err)
	}
	added, removed := d.Lines()
	writeJSON(w, http.StatusOK, client.InstanceDetail{InstanceInfo: wireInstance(in), Size: size,
		Changed: len(d.Files), Added: added, Removed: removed})
	return nil
}

func (s *Server) instanceDiff(w http.ResponseWriter, r *http.Request) error {
	id, err := instanceID(r)
	if err != nil {
		return err
	}
	d, err := s.caller(r).InstanceDiff(id)
	if err != nil {
		return instanceErr(err)
	}
	if d.Files == nil {
		d.Files = []instances.FileChange{}
	}
	writeJSON(w, http.StatusOK, d)
	return nil
}

func (s *Server) applyInstance(w http.ResponseWriter, r *http.Request) error {
	id, err := instanceID(r)
	if err != nil {
		return err
	}
	var req client.ApplyRequest
	if err := decode(w, r, &req); err != nil {
		return err
	}
	res, err := s.caller(r).ApplyInstance(id, instances.ApplyOptions{ThreeWay: req.ThreeWay, Preview: req.Preview})
	if err != nil {
		return instanceErr(err)
	}
	out := client.ApplyResult{ApplyResult: res}
	if out.Files == nil {
		out.Files = []instances.AppliedFile{}
	}
	if res.CommitErr != nil {
		out.CommitError = res.CommitErr.Error()
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) discardInstance(w http.ResponseWriter, r *http.Request) error {
	id, err := instanceID(r)
	if err != nil {
		return err
	}
	force := false
	if v := r.URL.Query().Get("force"); v != "" {
		if force, err = strconv.ParseBool(v); err != nil {
			return badRequest(fmt.Sprintf("force=%q: want 1 or 0", v))
		}
	}
	if err := s.caller(r).DiscardInstance(id, force); err != nil {
		return instanceErr(err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) branchInstance(w http.ResponseWriter, r *http.Request) error {
	id, err := instanceID(r)
	if err != nil {
		return err
	}
	var req client.BranchRequest
	if err := decode(w, r, &req); err != nil {
		return err
	}
	if req.Name == "" {
		return badRequest("name: the branch to make is required")
	}
	commit, err := s.caller(r).BranchInstance(id, req.Name)
	if err != nil {
		if p := instanceErr(err); p != err { //nolint:errorlint // identity: did instanceErr give it a problem
			return p
		}
		// The engine's other refusals are of the name (taken, malformed,
		// an atelier/ name); a failure of git itself is the engine's.
		var ge *instances.GitError
		if errors.As(err, &ge) {
			return err
		}
		return badRequest(err.Error())
	}
	writeJSON(w, http.StatusCreated, client.BranchResult{Branch: req.Name, Commit: commit})
	return nil
}

func (s *Server) copyEstimate(w http.ResponseWriter, r *http.Request) error {
	size, err := s.caller(r).EstimateCopy()
	if err != nil {
		return instanceErr(err)
	}
	warn := s.opts.CopyWarnSize
	if warn <= 0 {
		warn = core.DefaultWarnSize
	}
	writeJSON(w, http.StatusOK, client.CopyEstimate{Size: size, WarnSize: warn})
	return nil
}
