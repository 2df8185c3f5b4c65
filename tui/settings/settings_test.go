package settings

import (
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/internal/golden"
	"github.com/atelier-studio/atelier/notify"
	"github.com/atelier-studio/atelier/themes"
)

func view(p *Pane) string { return ansi.Strip(strings.Join(p.View(), "\n")) }

func logLines(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "10:00:00 line " + string(rune('a'+i%26))
	}
	return out
}

// TestRunLogFollowsItsEnd: G goes to the end and stays there as the log
// grows; scrolling up stops following.
func TestRunLogFollowsItsEnd(t *testing.T) {
	p := New(themes.Build(themes.Dark(), true), nil, "/ws", "auto", true)
	p.SetSize(60, 10)
	if v := view(p); !strings.Contains(v, "Configuration") {
		t.Fatalf("the tab starts at the top:\n%s", v)
	}
	p.SetRunLog(".state/engine.log", logLines(30), nil)
	p.View()
	p.HandleKey(tea.KeyPressMsg{Code: 'g' - 32, ShiftedCode: 'G', Mod: tea.ModShift, Text: "G"})
	p.SetRunLog(".state/engine.log", append(logLines(30), "10:00:01 the newest"), nil)
	v := view(p)
	if !strings.HasSuffix(v, "10:00:01 the newest") {
		t.Fatalf("following, the newest line is the last shown:\n%s", v)
	}
	p.HandleKey(tea.KeyPressMsg{Code: 'k', Text: "k"})
	p.SetRunLog(".state/engine.log", append(logLines(30), "10:00:01 the newest", "10:00:02 newer"), nil)
	if v := view(p); strings.Contains(v, "newer") {
		t.Fatalf("scrolled up, the view stays put:\n%s", v)
	}
	p.SetRunLog(".state/engine.log", nil, errors.New("run log: no such file"))
	p.HandleKey(tea.KeyPressMsg{Code: 'g' - 32, ShiftedCode: 'G', Mod: tea.ModShift, Text: "G"})
	if v := view(p); !strings.Contains(v, "run log: no such file") {
		t.Fatalf("a read error shows in place of the lines:\n%s", v)
	}
}

func TestGoldenSettingsWithRunLog(t *testing.T) {
	p := New(themes.Build(themes.Dark(), true), nil, "/ws", "bell", true)
	p.SetSize(72, 18)
	p.SetTrust("trusted")
	p.SetChannels(notify.Status{Events: []string{"approval", "question", "stuck"}, Timeout: "10s", Channels: []notify.Channel{
		{Name: "desktop", Detail: "/usr/bin/notify-send", Ready: true},
		{Name: "command", Detail: "/home/me/bin/hook --json", Note: `exec: "/home/me/bin/hook": no such file`}}}, nil)
	p.SetTested([]notify.Result{{Channel: "desktop"}, {Channel: "command", Error: "/home/me/bin/hook: no such file"}}, nil)
	p.SetRunLog(".state/engine.log", []string{
		"09:30:00 engine started (pid 4242)",
		"09:30:01 session 2603040930aa CREATED",
		"09:30:02 session 2603040930aa RUNNING active",
		"09:30:09 session 2603040930aa turn 1 committed 0123456789abcdef",
	}, nil)
	p.View()
	p.HandleKey(tea.KeyPressMsg{Code: 'g' - 32, ShiftedCode: 'G', Mod: tea.ModShift, Text: "G"})
	got := view(p)
	golden.Check(t, "settings-72x18.txt", got)
}

// TestChannelsSection: the channels as the host reports them, N asks for
// a test, and its outcome or why the channels are unknown.
func TestChannelsSection(t *testing.T) {
	p := New(themes.Build(themes.Dark(), true), nil, "/ws", "auto", true)
	p.SetSize(100, 60)
	if v := view(p); !strings.Contains(v, "asking the host…") {
		t.Fatalf("before the host answers:\n%s", v)
	}
	p.SetChannels(notify.Status{Events: []string{}, Channels: []notify.Channel{}}, nil)
	if v := view(p); !strings.Contains(v, "none: set [notify] command or desktop") {
		t.Errorf("without channels:\n%s", v)
	}
	if act := p.HandleKey(tea.KeyPressMsg{Code: 'n' - 32, ShiftedCode: 'N', Mod: tea.ModShift, Text: "N"}); act != (TestChannels{}) {
		t.Errorf("N asked %#v", act)
	}
	p.SetTesting()
	if v := view(p); !strings.Contains(v, "sending a test…") {
		t.Errorf("while testing:\n%s", v)
	}
	p.SetTested(nil, errors.New("the host does not answer"))
	if v := view(p); !strings.Contains(v, "test: could not be sent: the host does not answer") {
		t.Errorf("a failed test:\n%s", v)
	}
	p.SetChannels(notify.Status{}, errors.New("GET /v1/notify: connection refused"))
	if v := view(p); !strings.Contains(v, "connection refused") {
		t.Errorf("unknown channels:\n%s", v)
	}
}
