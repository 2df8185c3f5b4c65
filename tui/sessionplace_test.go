package tui

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/terminal"
)

// TestForksAndPlacesShow: a fork is marked in the sessions list, and a
// session's header says where it works when that is not the workspace
// folder on this machine: its instance's kind (a copy here) and its
// execution (docker, with its image). One in place and local says
// neither.
func TestForksAndPlacesShow(t *testing.T) {
	ws := t.TempDir()
	writeFiles(t, ws, "README.md")
	h := newHarness(t, ws, 120, 40, func(o *core.Options) { o.Containers = dockerAnswers{} })
	plain, err := h.eng.Create(core.CreateOptions{Title: "in place", Agent: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	onCopy, err := h.eng.Create(core.CreateOptions{Title: "on a copy", Agent: "demo", Isolation: core.IsolationCopy})
	if err != nil {
		t.Fatal(err)
	}
	boxed, err := h.eng.Create(core.CreateOptions{Title: "in a box", Agent: "demo", Execution: "docker", Image: "alpine:3"})
	if err != nil {
		t.Fatal(err)
	}
	fork, err := h.eng.Fork(plain.ID, "", "the fork")
	if err != nil {
		t.Fatal(err)
	}
	h.until("the four sessions", func() bool { return len(h.app.live.recs) == 4 && h.app.live.recs[fork.ID].ForkOf != "" })
	s := h.screen()
	if !strings.Contains(s, "↳ the fork") || strings.Contains(s, "↳ in place") || strings.Contains(s, "↳ on a copy") {
		t.Fatalf("the fork, and only it, is marked in the list:\n%s", s)
	}

	header := func(id string) string {
		t.Helper()
		h.run(h.app.openSession(id, true))
		h.until("the instances", func() bool { return h.app.inst.insts.loaded })
		for _, l := range strings.Split(h.screen(), "\n") {
			if strings.Contains(l, " · demo · ") {
				return l
			}
		}
		t.Fatalf("no header line:\n%s", h.screen())
		return ""
	}
	if l := header(onCopy.ID); !strings.Contains(l, "read-write · copy") {
		t.Fatalf("the header names the copy the session works on: %q", l)
	}
	if l := header(boxed.ID); !strings.Contains(l, "read-write · docker alpine:3") {
		t.Fatalf("the header names the execution: %q", l)
	}
	if l := header(plain.ID); strings.Contains(l, "copy") || strings.Contains(l, "docker") || strings.Contains(l, "isolated") {
		t.Fatalf("in place and local, the header says neither: %q", l)
	}
}

// dockerAnswers stands in for a Docker engine that answers and has every
// image, at the edge of the machine: the test shows where a session works
// and makes no container.
type dockerAnswers struct{}

func (dockerAnswers) Env(terminal.ContainerSpec) (terminal.Env, error) {
	return nil, errors.New("dockerAnswers makes no container")
}

func (dockerAnswers) Cleanup(context.Context, string, func(string) bool) ([]string, error) {
	return nil, nil
}

func (dockerAnswers) Ready(context.Context, string) error { return nil }
