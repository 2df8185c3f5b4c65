package settings

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/internal/golden"
	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/trigger/state"
)

// TestGoldenTriggers: the triggers' section lists each trigger the host
// reports with its condition, what it starts, its last firing (never
// fired, or the record's word) and a schedule's next time; before the
// host answers it says so, a failed request says why, and a host without
// triggers has no section.
func TestGoldenTriggers(t *testing.T) {
	st := themes.Build(themes.Dark(), true)
	cfg := &config.Config{Triggers: []config.Trigger{{Name: "deployed", OnEvent: "deploy", Agent: "quick"}}}
	p := New(st, cfg, "/ws", "auto", true)
	text := func() string { return ansi.Strip(strings.Join(p.triggerLines(), "\n")) }
	asking := text()
	at := time.Date(2026, 12, 2, 13, 0, 2, 0, time.Local)
	missedAt, next := at.Add(-30*time.Minute), at.Add(30*time.Minute)
	p.SetTriggers([]state.Trigger{
		{Name: "deployed", Condition: `on_event "deploy"`, Starts: "agent quick",
			Last: &state.Firing{State: "started", Time: at, Session: "2612021300aa"}},
		{Name: "nightly", Condition: `schedule "@every 30m"`, Starts: "the default agent", Next: &next,
			Last: &state.Firing{State: "missed", Time: missedAt, Missed: 3, Cause: "due 3 times (…) while no engine ran"}},
		{Name: "docs", Condition: `on_change "docs/**/*.md"`, Starts: "workflow review"},
	}, nil)
	got := asking + "\n\n" + text()
	p.SetTriggers(nil, errors.New("GET /v1/triggers: connection refused"))
	got += "\n\n" + text()
	if none := New(st, &config.Config{}, "/ws", "auto", true).triggerLines(); none != nil {
		t.Errorf("without triggers: %q", none)
	}
	quiet := New(st, &config.Config{}, "/ws", "auto", true)
	quiet.SetTriggers(nil, errors.New("GET /v1/triggers: connection refused"))
	if none := quiet.triggerLines(); none != nil {
		t.Errorf("a host that cannot say, with no trigger configured here: %q", none)
	}
	p.SetTriggers([]state.Trigger{}, nil)
	if none := p.triggerLines(); none != nil {
		t.Errorf("a host without triggers: %q", none)
	}
	got += "\n"
	golden.Check(t, "triggers.txt", got)
}
