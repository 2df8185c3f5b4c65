package core

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/sessions"
)

// envAgent prints the environment its spawned process sees.
type envAgent struct{}

func (envAgent) Name() string       { return "env" }
func (envAgent) Caps() harness.Caps { return harness.Caps{Boundary: harness.TurnBoundary} }
func (envAgent) Turn(ctx context.Context, req harness.TurnRequest, out harness.Emitter, h harness.Host) (harness.TurnResult, error) {
	p, err := h.Spawn(ctx, []string{"sh", "-c", "env"}, []string{"AGENT_SETTING=1"})
	if err != nil {
		return harness.TurnResult{}, err
	}
	b, _ := io.ReadAll(p.Stdout())
	if _, err := p.Wait(); err != nil {
		return harness.TurnResult{}, err
	}
	out.Text(string(b))
	return harness.TurnResult{Stop: harness.StopEnd}, nil
}

// TestAgentProcessGetsOnlyWhatItNeeds: an agent CLI started on the host
// sees the basics and its adapter's settings, not the rest of our
// environment (another provider's key, say).
func TestAgentProcessGetsOnlyWhatItNeeds(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-should-not-leak")
	r := newRig(t, MapResolver{"a": envAgent{}})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true}).ID
	r.status(id, sessions.Ended)
	msgs, _, _ := r.e.Transcript(id)
	env := msgs[len(msgs)-1].Text()
	if strings.Contains(env, "sk-should-not-leak") {
		t.Fatalf("the agent saw our other key:\n%s", env)
	}
	if !strings.Contains(env, "AGENT_SETTING=1") || !strings.Contains(env, "PATH=") {
		t.Fatalf("the agent lacks its settings or PATH:\n%s", env)
	}
}
