package tui

import (
	"errors"
	"path/filepath"

	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/dialog"
	"github.com/atelier-studio/atelier/tui/keys"
	"github.com/atelier-studio/atelier/tui/settings"
)

// settingsTab is the settings tab.
type settingsTab struct{ *settings.Pane }

// Label implements tab.
func (t *settingsTab) Label(int) string { return "⚙ settings" }

// Focus implements tab.
func (t *settingsTab) Focus() {}

// Blur implements tab.
func (t *settingsTab) Blur() {}

// TakesText implements tab.
func (t *settingsTab) TakesText() bool { return false }

// Scope implements tab.
func (t *settingsTab) Scope() keys.Scope { return t.KeyMap().Scope() }

// Messages of the settings tab's commands.
type (
	// trustMsg is the workspace's trust state after a look or a change.
	trustMsg struct {
		state config.TrustState
		did   string
		err   error
	}
	// destroyedMsg is the outcome of a destroy.
	destroyedMsg struct{ err error }
	// intentDestroy is the destroy confirmation's intent.
	intentDestroy struct{}
)

// openSettings shows the settings tab, opening it when needed.
func (a *App) openSettings() tea.Cmd {
	for i, t := range a.tabs {
		if _, ok := t.(*settingsTab); ok {
			a.selectTab(i)
			a.setFocus(focusCenter)
			return a.trust(0)
		}
	}
	t := &settingsTab{settings.New(a.st, a.opts.Config, a.opts.Workspace, a.notify, a.opts.Destroy != nil)}
	t.SetKeyMap(a.km.settings)
	t.SetLog(a.activity.Newest(50))
	a.addTab(t)
	return a.trust(0)
}

// trust looks at (op 0), grants (1) or withdraws (-1) the trust of the
// workspace's .atelier.toml, in a command: the trust store is a file.
func (a *App) trust(op int) tea.Cmd {
	cfg, ws := a.opts.Config, a.eng.Workspace()
	return func() tea.Msg {
		if cfg == nil || cfg.UserFile == "" {
			return trustMsg{err: errNoConfig}
		}
		store := config.NewTrustStore(filepath.Join(filepath.Dir(cfg.UserFile), config.TrustFileName))
		var did string
		var err error
		switch op {
		case 1:
			did, err = "trusted .atelier.toml (restart the studio to load its agents)", store.Trust(ws)
		case -1:
			did, err = "stopped trusting .atelier.toml (restart the studio to drop its agents)", store.Distrust(ws)
		}
		if err != nil {
			return trustMsg{err: err}
		}
		state, err := store.State(ws)
		return trustMsg{state: state, did: did, err: err}
	}
}

// errNoConfig says the studio was given no configuration.
var errNoConfig = errors.New("unknown: the studio was started without its configuration")

func (a *App) settingsTab() *settingsTab {
	for _, t := range a.tabs {
		if st, ok := t.(*settingsTab); ok {
			return st
		}
	}
	return nil
}

// settingsResult takes the answers of the settings tab's commands.
func (a *App) settingsResult(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case trustMsg:
		t := a.settingsTab()
		switch {
		case msg.err != nil && t != nil:
			t.SetTrust(msg.err.Error())
		case t != nil:
			t.SetTrust(string(msg.state))
		}
		if msg.err != nil && msg.err != errNoConfig {
			a.setStatus("trust: "+msg.err.Error(), true)
		} else if msg.did != "" {
			a.setStatus(msg.did, false)
		}
		return nil, true
	case destroyedMsg:
		if msg.err != nil {
			a.setStatus("destroy: "+msg.err.Error(), true)
			return nil, true
		}
		// The engine is closed and its state gone: nothing is left to run
		// or show, so the studio quits and Run says why on the terminal.
		a.setStatus("the workspace's .state/ was destroyed", false)
		a.log("", "workspace state destroyed by you", themes.ToneError)
		a.exitNote = "atelier: the studio closed because you destroyed the state of " + a.opts.Workspace +
			": its sessions, transcripts and history are gone and its engine is closed. Your own files were not touched; " +
			"open the studio again to start afresh."
		return tea.Quit, true
	}
	return nil, false
}

// settingsAction carries out what the settings tab asked.
func (a *App) settingsAction(act settings.Action) tea.Cmd {
	switch act := act.(type) {
	case settings.Trust:
		if act.On {
			return a.trust(1)
		}
		return a.trust(-1)
	case settings.Notify:
		a.notify = act.Mode
		if t := a.settingsTab(); t != nil {
			t.SetNotify(act.Mode)
		}
		a.setStatus("notifications: "+act.Mode, false)
	case settings.Destroy:
		name := filepath.Base(a.eng.Workspace())
		a.dialog = dialog.NewTyped(a.st, "Destroy the workspace's state", []string{
			"This removes " + filepath.Join(a.eng.Workspace(), ".state") + ": every session, its transcript and audit log, and the workspace history.",
			"Running sessions are stopped first. Your own files are not touched. It cannot be undone.",
		}, name, intentDestroy{})
	}
	return nil
}

// destroy runs the confirmed destroy.
func (a *App) destroy() tea.Cmd {
	if a.opts.Destroy == nil {
		a.setStatus("destroy is not available yet: the engine has no Destroy; nothing was removed", true)
		return nil
	}
	f := a.opts.Destroy
	return func() tea.Msg { return destroyedMsg{err: f()} }
}
