package core

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/terminal"
)

// keyedAgent is a scripted agent CLI that keeps a process per session: it
// records which sessions were closed in it.
type keyedAgent struct {
	*scripted.Agent
	mu     sync.Mutex
	closed []string
}

func (k *keyedAgent) CloseSession(id string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.closed = append(k.closed, id)
	return nil
}

func (k *keyedAgent) closedIDs() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.closed...)
}

// varsResolver builds agent "a" once per value of KEY a client handed over,
// as cli's resolver builds a harness per set of variables; "" is the
// host's own environment.
type varsResolver struct {
	mu    sync.Mutex
	built map[string]*keyedAgent
}

func (r *varsResolver) Resolve(agent string) (harness.Harness, AgentSettings, error) {
	return r.ResolveEnv(agent, nil)
}

func (r *varsResolver) ResolveEnv(agent string, env map[string]string) (harness.Harness, AgentSettings, error) {
	if agent != "a" {
		return nil, AgentSettings{}, fmt.Errorf("agent %q: %w", agent, ErrUnknownAgent)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	key := env["KEY"]
	h, ok := r.built[key]
	if !ok {
		h = &keyedAgent{Agent: &scripted.Agent{}}
		r.built[key] = h
	}
	return h, AgentSettings{Approval: PolicyAuto, Env: []string{"KEY=" + key}}, nil
}

func (r *varsResolver) agent(key string) *keyedAgent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.built[key]
}

// The variables a client hands over with a create or a send choose the
// agent of the session's next turns; a session keeps those it was handed
// until another client hands others, and its process in the agent of the
// old ones is ended so that one session never has two.
func TestHandedEnvChoosesTheAgent(t *testing.T) {
	res := &varsResolver{built: map[string]*keyedAgent{}}
	e, err := Open(t.TempDir(), Options{Agents: res, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer closeEngine(t, e)
	_, sub := e.Subscribe()
	defer sub.Close()
	r := &rig{t: t, e: e, sub: sub}

	rec, err := e.Create(CreateOptions{Agent: "a", AutoStart: true, Mode: sessions.Continuous, Instructions: "one",
		Env: map[string]string{"KEY": "client-one"}})
	if err != nil {
		t.Fatal(err)
	}
	r.status(rec.ID, sessions.Waiting)
	if a := res.agent("client-one"); a == nil || len(a.Requests()) != 1 {
		t.Fatalf("the first turn did not run in the agent of the creating client's variables: %+v", res.built)
	}
	// As the API does: hand the sender's variables over, send, and wait
	// for the turn's end.
	send := func(env map[string]string, text string, turn int) {
		t.Helper()
		if err := e.HandEnv(rec.ID, env); err != nil {
			t.Fatal(err)
		}
		if _, err := e.As("").Send(rec.ID, text); err != nil {
			t.Fatal(err)
		}
		r.until(fmt.Sprintf("turn %d's end", turn), func(ev Event) bool {
			return ev.Kind == EvSession && ev.Session.Turns == turn && ev.Session.Status == sessions.Waiting
		})
	}
	// A send with no variables keeps the session's.
	send(nil, "two", 2)
	if n := len(res.agent("client-one").Requests()); n != 2 {
		t.Fatalf("second turn: %d turns in the first client's agent, want 2", n)
	}
	if host := res.agent(""); host != nil && len(host.Requests()) > 0 {
		t.Fatalf("a turn ran with the host's own environment")
	}
	// Another client, another key: the next turn runs in its agent, and the
	// session's process in the first one is ended.
	send(map[string]string{"KEY": "client-two"}, "three", 3)
	if n := len(res.agent("client-two").Requests()); n != 1 {
		t.Fatalf("third turn: %d turns in the second client's agent, want 1", n)
	}
	for deadline := time.Now().Add(5 * time.Second); len(res.agent("client-one").closedIDs()) != 1; {
		if time.Now().After(deadline) {
			t.Fatal("the session's process in the first client's agent was not closed")
		}
		time.Sleep(5 * time.Millisecond)
	}
	// The command tool and exec get the settings of the handed variables.
	e.mu.Lock()
	env, err := e.live[rec.ID].agentEnvLocked()
	e.mu.Unlock()
	if err != nil || len(env) != 1 || env[0] != "KEY=client-two" {
		t.Fatalf("agent env %v, %v", env, err)
	}
	if err := e.HandEnv("nope", map[string]string{"KEY": "x"}); err == nil {
		t.Fatal("HandEnv on an unknown session succeeded")
	}
}

// A create that names no agent, execution or image gets the configured
// ones, whichever client sent it (the API, MCP, a remote command line),
// and a create that names a bad pair is refused before anything is made.
func TestCreateTakesTheConfiguredDefaults(t *testing.T) {
	e, err := Open(t.TempDir(), Options{DefaultAgent: "a", Containers: dockerAnswers{},
		Agents: agentResolver{"a", &scripted.Model{}, AgentSettings{Execution: "docker", Image: "img:1"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer closeEngine(t, e)
	rec, err := e.Create(CreateOptions{Instructions: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Agent != "a" || rec.Execution != "docker" || rec.Image != "img:1" {
		t.Fatalf("defaults not taken: agent %q, execution %q, image %q", rec.Agent, rec.Execution, rec.Image)
	}
	if rec, err := e.Create(CreateOptions{Instructions: "x", Execution: "local"}); err != nil || rec.Image != "" {
		t.Fatalf("an explicit local execution: %+v, %v", rec, err)
	}
	for _, o := range []CreateOptions{
		{Execution: "local", Image: "img:2"},
		{Execution: "vm"},
	} {
		if _, err := e.Create(o); err == nil {
			t.Fatalf("create %+v was accepted", o)
		}
	}
	if n := len(e.Sessions()); n != 2 {
		t.Fatalf("%d sessions, want the 2 accepted", n)
	}
}

// dockerAnswers stands in for a Docker engine that answers and has every
// image, at the edge of the machine: for tests of what a create records,
// which make no container.
type dockerAnswers struct{}

func (dockerAnswers) Env(terminal.ContainerSpec) (terminal.Env, error) {
	return nil, errors.New("dockerAnswers makes no container")
}

func (dockerAnswers) Cleanup(context.Context, string, func(string) bool) ([]string, error) {
	return nil, nil
}

func (dockerAnswers) Ready(context.Context, string) error { return nil }
