package api

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/sessions"
)

// TestReadOnlyState: a workspace state another user's Atelier made is
// read-only: controls and creation are refused with read_only_state.
func TestReadOnlyState(t *testing.T) {
	ws := t.TempDir()
	t.Setenv("XDG_STATE_HOME", t.TempDir()) // the other user
	e, err := core.Open(ws, core.Options{NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := e.Create(core.CreateOptions{Instructions: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_STATE_HOME", t.TempDir()) // this user
	r := openRig(t, ws, Options{})
	ctx := ctxFor(t, 10*time.Second)
	if _, err := r.c.Send(ctx, rec.ID, "go", ""); !client.IsCode(err, client.CodeReadOnlyState) {
		t.Fatalf("send: %v", err)
	}
	if _, err := r.c.Create(ctx, client.CreateRequest{Task: "t"}); !client.IsCode(err, client.CodeReadOnlyState) {
		t.Fatalf("create: %v", err)
	}
	if got, err := r.c.Session(ctx, rec.ID); err != nil || got.ID != rec.ID {
		t.Fatalf("reading still works: %v", err)
	}
}

// TestExecAndKeys: exec runs in the session's environment; a repeated key
// replays the recorded result without running again; the key is listed.
func TestExecAndKeys(t *testing.T) {
	r := newRig(t, Options{})
	ctx := ctxFor(t, 10*time.Second)
	rec, err := r.c.Create(ctx, client.CreateRequest{Task: "t", Key: "create-1"})
	if err != nil {
		t.Fatal(err)
	}
	if again, err := r.c.Create(ctx, client.CreateRequest{Task: "t", Key: "create-1"}); err != nil || again.ID != rec.ID {
		t.Fatalf("a repeated create key: %s, %v", again.ID, err)
	}
	req := client.ExecRequest{Session: rec.ID, Shell: "echo $((6*7)); echo oops >&2; exit 3", Key: "x1", Timeout: "10s"}
	res, err := r.c.Exec(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 3 || res.Stdout != "42\n" || res.Stderr != "oops\n" || res.Replayed {
		t.Fatalf("exec: %+v", res)
	}
	res2, err := r.c.Exec(ctx, req)
	if err != nil || !res2.Replayed || res2.Stdout != "42\n" {
		t.Fatalf("replayed exec: %+v, %v", res2, err)
	}
	req.Shell = "echo other"
	if _, err := r.c.Exec(ctx, req); !client.IsCode(err, client.CodeKeyConflict) {
		t.Fatalf("a key reused for another command: %v", err)
	}
	ks, err := r.c.Keys(ctx, rec.ID)
	if err != nil || len(ks) != 1 || ks[0].Key != "x1" || ks[0].State != sessions.KeyDone {
		t.Fatalf("keys: %+v, %v", ks, err)
	}
	argv, err := r.c.Exec(ctx, client.ExecRequest{Session: rec.ID, Argv: []string{"pwd"}})
	if err != nil || strings.TrimSpace(argv.Stdout) == "" {
		t.Fatalf("argv exec: %+v, %v", argv, err)
	}
}

// TestQueueAndControls: prompts queue on a CREATED session; the queue is
// listed, reordered and edited; archive hides a session from the list.
func TestQueueAndControls(t *testing.T) {
	r := newRig(t, Options{})
	ctx := ctxFor(t, 10*time.Second)
	rec, err := r.c.Create(ctx, client.CreateRequest{Task: "t", Mode: "continuous"})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, text := range []string{"a", "b", "c"} {
		rc, err := r.c.Send(ctx, rec.ID, text, "")
		if err != nil || rc.When != "when the session starts" {
			t.Fatalf("send %s: %+v, %v", text, rc, err)
		}
		want = append(want, rc.ID)
	}
	if err := r.c.MoveQueued(ctx, rec.ID, want[2], 0); err != nil {
		t.Fatal(err)
	}
	if err := r.c.RemoveQueued(ctx, rec.ID, want[1]); err != nil {
		t.Fatal(err)
	}
	if err := r.c.EditQueued(ctx, rec.ID, want[0], "a, edited"); err != nil {
		t.Fatal(err)
	}
	q, err := r.c.Queue(ctx, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got, texts []string
	for _, c := range q {
		got = append(got, c.ID)
		texts = append(texts, c.Text)
	}
	if !slices.Equal(got, []string{want[2], want[0]}) || !slices.Equal(texts, []string{"c", "a, edited"}) {
		t.Fatalf("queue %v %q, want %v [c, a, edited]", got, texts, []string{want[2], want[0]})
	}
	if _, err := r.c.Control(ctx, rec.ID, "archive"); err != nil {
		t.Fatal(err)
	}
	if l, err := r.c.Sessions(ctx, false); err != nil || len(l) != 0 {
		t.Fatalf("unarchived list: %d, %v", len(l), err)
	}
	if l, err := r.c.Sessions(ctx, true); err != nil || len(l) != 1 {
		t.Fatalf("archived list: %d, %v", len(l), err)
	}
	if _, err := r.c.Close(ctx, rec.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := r.c.Control(ctx, rec.ID, "delete"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.c.Session(ctx, rec.ID); !client.IsCode(err, client.CodeUnknownSession) {
		t.Fatalf("after delete: %v", err)
	}
	h, err := r.c.Health(ctx)
	if err != nil || !h.OK || h.Version != "test" || h.Workspace != r.ws {
		t.Fatalf("health: %+v, %v", h, err)
	}
}

// TestToken: with a token every request needs it.
func TestToken(t *testing.T) {
	r := newRig(t, Options{Token: "s3cret"})
	ctx := ctxFor(t, 10*time.Second)
	if _, err := r.c.Health(ctx); !client.IsCode(err, client.CodeUnauthorized) {
		t.Fatalf("without the token: %v", err)
	}
	c, err := client.New("unix:"+r.sock, client.Options{Token: "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Health(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestOpenAPIMatchesRoutes walks both ways: every route the mux serves is
// in the document served at /openapi.json, and every operation of the
// document is served by the route of that pattern.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	r := newRig(t, Options{})
	resp, err := (&http.Client{Transport: r.transport()}).Get("http://atelier/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var doc struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Fatalf("openapi %q", doc.OpenAPI)
	}
	served := map[string]bool{}
	for _, pattern := range r.srv.Routes() {
		served[pattern] = true
		method, path, _ := strings.Cut(pattern, " ")
		if _, ok := doc.Paths[path][strings.ToLower(method)]; !ok {
			t.Errorf("route %s is not in the OpenAPI document", pattern)
		}
	}
	documented := 0
	for path, ops := range doc.Paths {
		for method := range ops {
			documented++
			pattern := strings.ToUpper(method) + " " + path
			u := "http://atelier" + strings.NewReplacer("{", "x", "}", "").Replace(path)
			req, err := http.NewRequest(strings.ToUpper(method), u, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, got := r.srv.mux.Handler(req); got != pattern || !served[pattern] {
				t.Errorf("documented %s is served by %q", pattern, got)
			}
		}
	}
	if documented != len(served) {
		t.Errorf("%d operations documented, %d routes served", documented, len(served))
	}
}

// TestEnvIsChecked: the variables a client hands over are checked before
// anything is created or sent; good ones are taken.
func TestEnvIsChecked(t *testing.T) {
	r := newRig(t, Options{})
	ctx := ctxFor(t, 10*time.Second)
	for _, env := range []map[string]string{
		{"NOT A NAME": "x"},
		{"1ABC": "x"},
		{"K": "a\x00b"},
		{"K": strings.Repeat("v", maxEnvValue+1)},
	} {
		if _, err := r.c.Create(ctx, client.CreateRequest{Task: "t", Env: env}); !client.IsCode(err, client.CodeBadRequest) {
			t.Fatalf("create with env %.40v: %v, want bad_request", env, err)
		}
	}
	if l, err := r.c.Sessions(ctx, false); err != nil || len(l) != 0 {
		t.Fatalf("a refused create left %d sessions (%v)", len(l), err)
	}
	rec, err := r.c.Create(ctx, client.CreateRequest{Task: "t", Mode: "continuous", Env: map[string]string{"ANTHROPIC_API_KEY": "sk-client"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.c.Input(ctx, rec.ID, false, client.InputRequest{Text: "x", Env: map[string]string{"bad name": "v"}}); !client.IsCode(err, client.CodeBadRequest) {
		t.Fatalf("send with a bad env: %v", err)
	}
	if q, err := r.c.Queue(ctx, rec.ID); err != nil || len(q) != 0 {
		t.Fatalf("a refused send was queued: %v, %v", q, err)
	}
	if _, err := r.c.Input(ctx, rec.ID, false, client.InputRequest{Text: "x", Env: map[string]string{"ANTHROPIC_API_KEY": "sk-other"}}); err != nil {
		t.Fatal(err)
	}
}

// TestActions: /v1/actions answers the engine's Action required set, item
// for item (the demo's first approval here).
func TestActions(t *testing.T) {
	r := newRig(t, Options{})
	ctx := ctxFor(t, 20*time.Second)
	rec, err := r.c.Create(ctx, client.CreateRequest{Task: "t", AutoStart: true})
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(15 * time.Second); ; {
		items, err := r.c.Actions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := r.eng.Actions()
		if len(items) > 0 && len(items) == len(want) {
			if items[0].SessionID != rec.ID || items[0].Kind != want[0].Kind || items[0].Interaction == nil ||
				items[0].Interaction.ID != want[0].Interaction.ID {
				t.Fatalf("actions %+v, engine %+v", items[0], want[0])
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no action for the demo's approval: %+v", items)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
