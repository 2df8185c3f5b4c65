package contract

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/api"
	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/attach"
	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/instances"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/trigger"
	"github.com/atelier-studio/atelier/trigger/state"
	"github.com/atelier-studio/atelier/workflow"
	"github.com/atelier-studio/atelier/workflow/runs"
)

// A wire row is a behaviour of the surface that the studio's attach.Engine
// does not carry (keys, exec, signals, instances made by hand, the host's
// terminals, workflows, the host's own routes). It is written twice, once
// against the engine's roles in process and once against the API client,
// and the three sides (in process, socket, TCP) must say the same: the
// engine is the one implementation, the API only carries it.
type wireRow struct {
	name   string
	engine func(t *testing.T, w *wired) string
	client func(t *testing.T, w *wired) string
}

// wired is one side of a wire row: a fresh engine on ws with a workflow
// runner, and, on the remote sides, a client of its served API.
type wired struct {
	ws  string
	eng *core.Engine
	wf  *workflow.Runner
	// triggers are the host's: one listens for the event "deploy".
	triggers []config.Trigger
	c        *client.Client // nil in process
	// a is the side's attach surface, for a row's setup (a create): the
	// attach rows compare it.
	a attach.Engine
}

// caller is the in-process side's controls, labelled as the API labels a
// request's.
func (w *wired) caller() core.Caller { return w.eng.As("contract") }

// wireSides open a wired side each: the engine, its API on a socket, on TCP.
var wireSides = []struct {
	name string
	open func(t *testing.T, ws string, seen *routes) *wired
}{
	{"engine", func(t *testing.T, ws string, _ *routes) *wired {
		w := openWired(t, ws)
		w.a = attach.LocalHost(w.eng, attach.LocalOptions{Workflows: w.wf, Triggers: w.triggers})
		return w
	}},
	{"socket", func(t *testing.T, ws string, seen *routes) *wired {
		w := openWired(t, ws)
		w.c = socketClient(t, w.eng, w.beside(), seen)
		w.a = remote(t, ws, w.c)
		return w
	}},
	{"tcp", func(t *testing.T, ws string, seen *routes) *wired {
		w := openWired(t, ws)
		w.c = tcpClient(t, w.eng, w.beside(), seen)
		w.a = remote(t, ws, w.c)
		return w
	}},
}

// greet is a workspace workflow: a command, then a question for a person,
// so a run suspends and can be resumed.
const greet = `description = "greet"
key = "who"
[input]
type = "object"
required = ["who"]
properties = { who = { type = "string" } }
[[steps]]
key = "hello"
exec = "echo hello {{ .input.who }}"
[[steps]]
key = "ask"
ask = "say {{ .steps.hello.stdout }}"
`

func openWired(t *testing.T, ws string) *wired {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(ws, workflow.WorkspaceDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, workflow.WorkspaceDir, "greet.toml"), []byte(greet), 0o644); err != nil {
		t.Fatal(err)
	}
	eng := openEngine(t, ws)
	wf := workflow.NewRunner(eng, workflow.Options{Finder: workflow.Finder{Workspace: ws,
		Trust: func() (config.TrustState, error) { return config.TrustTrusted, nil }}})
	t.Cleanup(wf.Close) // before the engine's close, registered earlier
	return &wired{ws: ws, eng: eng, wf: wf, triggers: []config.Trigger{{Name: "on-deploy", OnEvent: "deploy", Prompt: "deployed"}}}
}

// beside is what the side's host serves beside its engine, as the
// in-process side's LocalOptions give the studio.
func (w *wired) beside() beside {
	return beside{wf: w.wf, triggers: func() ([]state.Trigger, error) { return trigger.List(w.ws, w.triggers, time.Now()) }}
}

func keysWord(ks []sessions.KeyRecord, err error) string {
	var words []string
	for _, k := range ks {
		words = append(words, k.Key+" "+k.Op+" "+k.State)
	}
	sort.Strings(words)
	return fmt.Sprintf("%v %s", words, errWord(err))
}

func execWord(code int, stdout, stderr string, replayed bool, err error) string {
	return fmt.Sprintf("exit %d out %q err %q replayed %v %s", code, stdout, strings.TrimSpace(stderr), replayed, errWord(err))
}

func runWord(r *runs.Run, err error) string {
	if err != nil || r == nil {
		return errWord(err)
	}
	var steps []string
	for _, s := range r.Steps {
		steps = append(steps, s.Key+" "+s.Status)
	}
	return fmt.Sprintf("%s %s steps %v", r.Workflow, r.Status, steps)
}

var wireRows = []wireRow{
	{"keys: listed and forgotten",
		func(t *testing.T, w *wired) string {
			s := create(t, w.a, core.CreateOptions{Mode: sessions.Continuous})
			if _, err := w.caller().Send(s.ID, "keyed", "key-1"); err != nil {
				t.Fatal(err)
			}
			before := keysWord(w.eng.Keys(s.ID))
			forgot := errWord(w.eng.ForgetKey(s.ID, "key-1"))
			again := errWord(w.eng.ForgetKey(s.ID, "key-1"))
			_, unknown := w.eng.Keys(unknownID)
			return fmt.Sprintf("%s; forget %s, again %s; after %s; unknown %s", before, forgot, again, keysWord(w.eng.Keys(s.ID)), errWord(unknown))
		},
		func(t *testing.T, w *wired) string {
			ctx := ctxFor(t)
			s := create(t, w.a, core.CreateOptions{Mode: sessions.Continuous})
			if _, err := w.c.Send(ctx, s.ID, "keyed", "key-1"); err != nil {
				t.Fatal(err)
			}
			before := keysWord(w.c.Keys(ctx, s.ID))
			forgot := errWord(w.c.ForgetKey(ctx, s.ID, "key-1"))
			again := errWord(w.c.ForgetKey(ctx, s.ID, "key-1"))
			_, unknown := w.c.Keys(ctx, unknownID)
			return fmt.Sprintf("%s; forget %s, again %s; after %s; unknown %s", before, forgot, again, keysWord(w.c.Keys(ctx, s.ID)), errWord(unknown))
		}},
	{"the sessions and a session's repairs",
		func(t *testing.T, w *wired) string {
			create(t, w.a, core.CreateOptions{Title: "one"})
			var titles []string
			for _, s := range w.eng.Sessions() {
				titles = append(titles, s.Title)
			}
			id := w.eng.Sessions()[0].ID
			return fmt.Sprintf("%q; repairs %d", titles, len(w.eng.Repairs(id)))
		},
		func(t *testing.T, w *wired) string {
			ctx := ctxFor(t)
			create(t, w.a, core.CreateOptions{Title: "one"})
			list, err := w.c.Sessions(ctx, false)
			if err != nil {
				t.Fatal(err)
			}
			var titles []string
			for _, s := range list {
				titles = append(titles, s.Title)
			}
			reps, err := w.c.Repairs(ctx, list[0].ID)
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprintf("%q; repairs %d", titles, len(reps))
		}},
	{"Action required lists a session's approval",
		func(t *testing.T, w *wired) string {
			s := create(t, w.a, core.CreateOptions{Approval: core.PolicyAsk, AutoStart: true})
			return actionsWord(t, s.ID, func() ([]core.ActionItem, error) { return w.eng.Actions(), nil })
		},
		func(t *testing.T, w *wired) string {
			s := create(t, w.a, core.CreateOptions{Approval: core.PolicyAsk, AutoStart: true})
			return actionsWord(t, s.ID, func() ([]core.ActionItem, error) { return w.c.Actions(ctxFor(t)) })
		}},
	{"a command in a session's environment",
		func(t *testing.T, w *wired) string {
			ctx := ctxFor(t)
			s := create(t, w.a, core.CreateOptions{})
			r, err := w.eng.Exec(ctx, s.ID, core.ExecCommand{Shell: "echo out; echo err >&2; exit 3", Key: "x-1"})
			again, aerr := w.eng.Exec(ctx, s.ID, core.ExecCommand{Shell: "echo out; echo err >&2; exit 3", Key: "x-1"})
			_, unknown := w.eng.Exec(ctx, unknownID, core.ExecCommand{Argv: []string{"true"}})
			return execWord(r.ExitCode, r.Stdout, r.Stderr, r.Replayed, err) + "; again " +
				execWord(again.ExitCode, again.Stdout, again.Stderr, again.Replayed, aerr) + "; unknown " + errWord(unknown)
		},
		func(t *testing.T, w *wired) string {
			ctx := ctxFor(t)
			s := create(t, w.a, core.CreateOptions{})
			r, err := w.c.Exec(ctx, client.ExecRequest{Session: s.ID, Shell: "echo out; echo err >&2; exit 3", Key: "x-1"})
			again, aerr := w.c.Exec(ctx, client.ExecRequest{Session: s.ID, Shell: "echo out; echo err >&2; exit 3", Key: "x-1"})
			_, unknown := w.c.Exec(ctx, client.ExecRequest{Session: unknownID, Argv: []string{"true"}})
			return execWord(r.ExitCode, r.Stdout, r.Stderr, r.Replayed, err) + "; again " +
				execWord(again.ExitCode, again.Stdout, again.Stderr, again.Replayed, aerr) + "; unknown " + errWord(unknown)
		}},
	{"a signal wakes no one in a quiet workspace",
		func(t *testing.T, w *wired) string {
			create(t, w.a, core.CreateOptions{})
			return fmt.Sprintf("woken %d", w.eng.FireEvent("deploy-done", `{"ok":true}`))
		},
		func(t *testing.T, w *wired) string {
			create(t, w.a, core.CreateOptions{})
			n, err := w.c.Signal(ctxFor(t), "deploy-done", json.RawMessage(`{"ok":true}`))
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprintf("woken %d", n)
		}},
	{"an instance made by hand, branched, and a file copied in it",
		func(t *testing.T, w *wired) string {
			in, err := w.caller().CreateInstance(instances.Copy, "box")
			if err != nil {
				return errWord(err)
			}
			_, dup := w.caller().CreateInstance(instances.Copy, "box")
			_, branch := w.caller().BranchInstance("box", "try")
			if err := os.WriteFile(filepath.Join(in.Path, "a.txt"), []byte("a"), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := w.eng.FilesOf("box")
			if err != nil {
				t.Fatal(err)
			}
			st, cerr := f.Copy("operator", "a.txt", "b.txt")
			_, exists := f.Copy("operator", "a.txt", "b.txt")
			b, _ := os.ReadFile(filepath.Join(in.Path, "b.txt")) // absent is seen below
			return fmt.Sprintf("%s %s ready %v; again %s; branch %s; copy %d file(s) %d bytes %s, b.txt %q; again refused %v",
				in.ID, in.Kind, in.Ready, errWord(dup), errWord(branch), st.Files, st.Bytes, errWord(cerr), b, exists != nil)
		},
		func(t *testing.T, w *wired) string {
			ctx := ctxFor(t)
			in, err := w.c.CreateInstance(ctx, client.CreateInstanceRequest{Kind: string(instances.Copy), ID: "box"})
			if err != nil {
				return errWord(err)
			}
			_, dup := w.c.CreateInstance(ctx, client.CreateInstanceRequest{Kind: string(instances.Copy), ID: "box"})
			_, branch := w.c.BranchInstance(ctx, "box", "try")
			if err := os.WriteFile(filepath.Join(in.Path, "a.txt"), []byte("a"), 0o644); err != nil {
				t.Fatal(err)
			}
			st, cerr := w.c.Files("box").Copy(ctx, "a.txt", "b.txt")
			_, exists := w.c.Files("box").Copy(ctx, "a.txt", "b.txt")
			b, _ := os.ReadFile(filepath.Join(in.Path, "b.txt")) // absent is seen below
			return fmt.Sprintf("%s %s ready %v; again %s; branch %s; copy %d file(s) %d bytes %s, b.txt %q; again refused %v",
				in.ID, in.Kind, in.Ready, errWord(dup), errWord(branch), st.Files, st.Bytes, errWord(cerr), b, exists != nil)
		}},
	{"the host's terminals",
		func(t *testing.T, w *wired) string {
			list, err := w.eng.Terminals()
			_, unknown := w.eng.Terminal("nosuch")
			return fmt.Sprintf("%d %s; unknown %s", len(list), errWord(err), errWord(unknown))
		},
		func(t *testing.T, w *wired) string {
			ctx := ctxFor(t)
			list, err := w.c.Terminals(ctx)
			_, unknown := w.c.Terminal(ctx, "nosuch")
			return fmt.Sprintf("%d %s; unknown %s", len(list), errWord(err), errWord(unknown))
		}},
	{"a workflow runs, suspends on its question, and resumes",
		func(t *testing.T, w *wired) string {
			list, err := w.wf.Workflows()
			run, serr := w.wf.Start(workflow.StartRequest{Workflow: "greet", Input: json.RawMessage(`{"who":"you"}`)})
			if serr != nil {
				return fmt.Sprintf("%d workflow(s) %s; start %s", len(list), errWord(err), errWord(serr))
			}
			got, gerr := w.wf.Wait(ctxFor(t), run.ID)
			resumed, rerr := w.wf.Resume(run.ID, "auto")
			_, unknown := w.wf.Get("nosuch")
			_, nowf := w.wf.Start(workflow.StartRequest{Workflow: "nosuch", Input: json.RawMessage(`{}`)})
			return fmt.Sprintf("%d workflow(s) %s; ran %s; resumed %s; unknown run %s; unknown workflow refused %v",
				len(list), errWord(err), runWord(got, gerr), runWord(resumed, rerr), errWord(unknown), nowf != nil)
		},
		func(t *testing.T, w *wired) string {
			ctx := ctxFor(t)
			list, err := w.c.Workflows(ctx)
			run, serr := w.c.StartWorkflow(ctx, "greet", client.WorkflowRunRequest{Input: json.RawMessage(`{"who":"you"}`)})
			if serr != nil {
				return fmt.Sprintf("%d workflow(s) %s; start %s", len(list), errWord(err), errWord(serr))
			}
			got, gerr := w.c.WorkflowRun(ctx, run.ID, 20*time.Second)
			resumed, rerr := w.c.ResumeWorkflowRun(ctx, run.ID, client.WorkflowResumeRequest{Approve: "auto"})
			_, unknown := w.c.WorkflowRun(ctx, "nosuch", 0)
			_, nowf := w.c.StartWorkflow(ctx, "nosuch", client.WorkflowRunRequest{Input: json.RawMessage(`{}`)})
			return fmt.Sprintf("%d workflow(s) %s; ran %s; resumed %s; unknown run %s; unknown workflow refused %v",
				len(list), errWord(err), runWord(&got, gerr), runWord(&resumed, rerr), errWord(unknown), nowf != nil)
		}},
	{"the host says it is up, its build, and the routes it serves",
		// In process there is no host: the engine's side says what a host
		// serving it must (its workspace, the build it was given, every
		// route of the API over it), and the remote sides read it back.
		func(t *testing.T, w *wired) string {
			srv := api.NewServer(w.eng, api.Options{Version: version})
			defer srv.Close()
			return fmt.Sprintf("ok %v %s build %s; %d operations", true, w.eng.Workspace(), version, len(srv.Routes()))
		},
		func(t *testing.T, w *wired) string {
			ctx := ctxFor(t)
			h, err := w.c.Health(ctx)
			if err != nil {
				t.Fatal(err)
			}
			v, err := w.c.Version(ctx)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := w.c.OpenAPI(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Paths map[string]map[string]json.RawMessage `json:"paths"`
			}
			if err := json.Unmarshal(raw, &doc); err != nil {
				t.Fatal(err)
			}
			ops := 0
			for _, p := range doc.Paths {
				ops += len(p)
			}
			return fmt.Sprintf("ok %v %s build %s; %d operations", h.OK, h.Workspace, v.Version, ops)
		}},
	{"a host given no configuration view says so",
		// The engine alone holds no configuration (the composition that
		// loads the files hands the host its view, tested through the
		// binary in cli): a server over it answers 404 not_found.
		func(t *testing.T, w *wired) string { return "not reported: " + client.CodeNotFound },
		func(t *testing.T, w *wired) string {
			_, err := w.c.Config(ctxFor(t))
			var p *client.Problem
			if !errors.As(err, &p) {
				t.Fatalf("config: %v", err)
			}
			return "not reported: " + p.Code
		}},
}

// actionsWord waits until session id's first approval is in Action
// required and says what the item is.
func actionsWord(t *testing.T, id string, list func() ([]core.ActionItem, error)) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		items, err := list()
		if err != nil {
			return errWord(err)
		}
		for _, it := range items {
			if it.SessionID == id && it.Interaction != nil {
				return fmt.Sprintf("%d item(s); %s %s %s", len(items), it.Kind, it.Interaction.Kind, it.Interaction.Tool)
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the approval never reached Action required")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
