package terminal

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	eterm "github.com/atelier-studio/atelier/terminal"
	"github.com/atelier-studio/atelier/themes"
)

func start(t *testing.T, command ...string) *Tab {
	t.Helper()
	env, err := eterm.NewLocal(eterm.LocalConfig{Workspace: t.TempDir(), Shell: "/bin/sh"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := env.Close(); err != nil {
			t.Error(err)
		}
	})
	msg := Start(env, themes.Build(themes.Dark(), true), 3, "sh", eterm.Size{Cols: 60, Rows: 10}, command)().(Started)
	if msg.Err != nil {
		t.Fatal(msg.Err)
	}
	if msg.ID != 3 || msg.Tab == nil {
		t.Fatalf("started %+v", msg)
	}
	t.Cleanup(msg.Tab.Close)
	msg.Tab.Focus()
	return msg.Tab
}

// until runs the tab's Wait commands until cond holds.
func until(t *testing.T, tab *Tab, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s:\n%s", what, ansi.Strip(strings.Join(tab.View(), "\n")))
		}
		cmd := tab.Wait()
		if cmd == nil {
			return
		}
		done := make(chan tea.Msg, 1)
		go func() { done <- cmd() }()
		select {
		case m := <-done:
			if ex, ok := m.(Exited); ok {
				tab.Exit(ex)
			}
		case <-time.After(200 * time.Millisecond):
			// Wait keeps waiting for a frame; check the condition again.
			go func() { <-done }()
		}
	}
}

func screenText(tab *Tab) string { return ansi.Strip(strings.Join(tab.View(), "\n")) }

func typeText(tab *Tab, s string) {
	for _, r := range s {
		tab.HandleKey(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func TestShellTypedThrough(t *testing.T) {
	tab := start(t)
	typeText(tab, "printf '\\033]0;my-title\\007'; echo hi-$((40+2))")
	tab.HandleKey(tea.KeyPressMsg{Code: tea.KeyEnter})
	until(t, tab, "the echo", func() bool { return strings.Contains(screenText(tab), "hi-42") })
	until(t, tab, "the title", func() bool { return tab.Title() == "my-title" })
	if l := tab.Label(20); !strings.Contains(l, "my-title") {
		t.Errorf("label %q should follow the title", l)
	}
	// ctrl+c reaches the program as a byte (the test may run with SIGINT
	// ignored, so the byte is checked, not the signal): cat -v shows it.
	typeText(tab, "stty -isig -echo; echo ready-$((3+3)); cat -v; stty sane")
	tab.HandleKey(tea.KeyPressMsg{Code: tea.KeyEnter})
	until(t, tab, "cat", func() bool { return strings.Contains(screenText(tab), "ready-6") })
	tab.HandleKey(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	typeText(tab, "x")
	tab.HandleKey(tea.KeyPressMsg{Code: tea.KeyEnter})
	tab.HandleKey(tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl})
	until(t, tab, "ctrl+c through cat -v", func() bool { return strings.Contains(screenText(tab), "^Cx") })

	typeText(tab, "echo back-$((5+5))")
	tab.HandleKey(tea.KeyPressMsg{Code: tea.KeyEnter})
	until(t, tab, "the shell after cat", func() bool { return strings.Contains(screenText(tab), "back-10") })

	tab.SetSize(40, 8)
	typeText(tab, "stty size; exit 3")
	tab.HandleKey(tea.KeyPressMsg{Code: tea.KeyEnter})
	until(t, tab, "the exit", tab.Exited)
	s := screenText(tab)
	if !strings.Contains(s, "8 40") || !strings.Contains(s, "exit code 3") {
		t.Errorf("after exit:\n%s", s)
	}
	if c := tab.HandleKey(tea.KeyPressMsg{Code: tea.KeyEnter}); c == nil || c.ID != 3 {
		t.Errorf("enter on an ended program should close the tab: %v", c)
	}
}

func TestStartFailureIsAnError(t *testing.T) {
	env, err := eterm.NewLocal(eterm.LocalConfig{Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := env.Close(); err != nil {
			t.Error(err)
		}
	}()
	msg := Start(env, themes.Build(themes.Dark(), true), 1, "nope", eterm.Size{Cols: 10, Rows: 5}, []string{"/no/such/program"})().(Started)
	if msg.Err == nil || msg.Tab != nil || !strings.Contains(msg.Err.Error(), "nope") {
		t.Fatalf("started %+v", msg)
	}
}
