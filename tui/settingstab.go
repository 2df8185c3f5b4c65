package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/notify"
	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/dialog"
	"github.com/atelier-studio/atelier/tui/keys"
	"github.com/atelier-studio/atelier/tui/settings"
)

// settingsTab is the settings tab.
type settingsTab struct {
	*settings.Pane
	r settingsRoot
}

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
	// channelsMsg is the host's notification channels.
	channelsMsg struct {
		status notify.Status
		err    error
	}
	// channelsTestedMsg is how each channel fared with a test.
	channelsTestedMsg struct {
		results []notify.Result
		err     error
	}
)

// openSettings shows the settings tab, opening it when needed.
func (sp *settingsPart) openSettings() tea.Cmd {
	if _, i := sp.tabs.settings(); i >= 0 {
		sp.r.selectTab(i)
		sp.r.setFocus(focusCenter)
		return sp.trust(0)
	}
	t := &settingsTab{Pane: settings.New(sp.st, sp.opts.Config, sp.opts.Workspace, sp.notify, sp.opts.Destroy != nil), r: sp}
	t.SetKeyMap(sp.km.settings)
	sp.r.addTab(t)
	sp.runLogGen++ // a new poll; one of an earlier tab stops at its next tick
	return tea.Batch(sp.trust(0), sp.readRunLog(runLogState{}), sp.loadRules(), sp.channels(), sp.loadTriggers())
}

// channelTimeout bounds asking the host for its channels; a test waits for
// the channels' own runs, each under the configured timeout.
const (
	channelTimeout     = 5 * time.Second
	channelTestTimeout = time.Minute
)

// channels asks the engine's host for its notification channels, in a
// command: it is a request.
func (sp *settingsPart) channels() tea.Cmd {
	eng := sp.eng
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), channelTimeout)
		defer cancel()
		st, err := eng.Notifications(ctx)
		return channelsMsg{status: st, err: err}
	}
}

// testChannels sends a test notification through the channels, in a
// command: it runs programs (in-process) or asks the host to.
func (sp *settingsPart) testChannels() tea.Cmd {
	eng := sp.eng
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), channelTestTimeout)
		defer cancel()
		rs, err := eng.TestNotifications(ctx)
		return channelsTestedMsg{results: rs, err: err}
	}
}

// trust looks at (op 0), grants (1) or withdraws (-1) the trust of the
// workspace's .atelier.toml, in a command: the trust store is a file.
func (sp *settingsPart) trust(op int) tea.Cmd {
	cfg, ws := sp.opts.Config, sp.eng.Workspace()
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

// The settings tab polls the engine's run log: a read in a command, then a
// tick, then the next read, for as long as the tab is open.
const (
	// runLogEvery is the pause between two reads (App.runLogEvery; tests
	// shorten it).
	runLogEvery = time.Second
	// runLogLines is how many of its newest lines the tab shows.
	runLogLines = 200
	// runLogTailBytes is how much of the file's end a read takes: enough
	// for runLogLines lines of a few hundred bytes.
	runLogTailBytes = 64 << 10
)

type (
	// runLogState is what a read saw of the file, so the next read skips
	// a file that did not change.
	runLogState struct {
		size int64
		mod  time.Time
	}
	// runLogMsg is a read of the run log.
	runLogMsg struct {
		gen   int
		state runLogState
		lines []string // nil when unchanged
		err   error
	}
	// runLogTick asks for the next read.
	runLogTick struct {
		gen   int
		state runLogState
	}
)

// errRemoteRunLog says the run log is on the engine's machine.
var errRemoteRunLog = errors.New("the run log is on the engine's machine: not available attached from another one")

// readRunLog reads the run log's newest lines in a command.
func (sp *settingsPart) readRunLog(prev runLogState) tea.Cmd {
	path, gen := sp.eng.RunLogPath(), sp.runLogGen
	if sp.opts.Remote != "" {
		return func() tea.Msg { return runLogMsg{gen: gen, err: errRemoteRunLog} }
	}
	return func() tea.Msg {
		st, lines, err := tailFile(path, prev)
		return runLogMsg{gen: gen, state: st, lines: lines, err: err}
	}
}

// tailFile returns the last runLogLines lines of a file, or nil lines when
// its size and time are still prev's.
func tailFile(path string, prev runLogState) (runLogState, []string, error) {
	f, err := os.Open(path)
	if err != nil {
		return runLogState{}, nil, fmt.Errorf("run log: %w", err)
	}
	defer func() { _ = f.Close() }() // opened to read: Close has nothing to add
	fi, err := f.Stat()
	if err != nil {
		return runLogState{}, nil, fmt.Errorf("run log: %w", err)
	}
	st := runLogState{size: fi.Size(), mod: fi.ModTime()}
	if st == prev {
		return st, nil, nil
	}
	from := max(st.size-runLogTailBytes, 0)
	buf := make([]byte, st.size-from)
	if _, err := f.ReadAt(buf, from); err != nil && !errors.Is(err, io.EOF) {
		return st, nil, fmt.Errorf("run log: %w", err)
	}
	text := strings.TrimRight(string(buf), "\n")
	if from > 0 { // the first line is cut
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			text = text[i+1:]
		}
	}
	lines := []string{}
	if text != "" {
		lines = strings.Split(text, "\n")
	}
	lines = lines[max(len(lines)-runLogLines, 0):]
	for i, l := range lines {
		lines[i] = clockTime(printable(l))
	}
	return st, lines, nil
}

// clockTime shows a line's leading RFC 3339 stamp as the local time of
// day, which is what a live tail needs and leaves room for the rest.
func clockTime(l string) string {
	stamp, rest, ok := strings.Cut(l, " ")
	if !ok {
		return l
	}
	t, err := time.Parse(time.RFC3339, stamp)
	if err != nil {
		return l
	}
	return t.Local().Format("15:04:05") + " " + rest
}

// printable drops what would move the cursor or change colours.
func printable(s string) string {
	s = strings.ReplaceAll(ansi.Strip(s), "\t", "    ")
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
}

// runLogResult takes a read or a tick of the run log's poll; the poll ends
// when its tab is closed or a newer one started.
func (sp *settingsPart) runLogResult(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case runLogMsg:
		t := sp.settingsTab()
		if t == nil || msg.gen != sp.runLogGen {
			return nil
		}
		if msg.err != nil || msg.lines != nil {
			shown := sp.eng.RunLogPath()
			if rel, err := filepath.Rel(sp.eng.Workspace(), shown); err == nil {
				shown = rel
			}
			t.SetRunLog(shown, msg.lines, msg.err)
		}
		if errors.Is(msg.err, errRemoteRunLog) {
			return nil // nothing to poll
		}
		st, gen := msg.state, msg.gen
		return tea.Tick(sp.runLogEvery, func(time.Time) tea.Msg { return runLogTick{gen: gen, state: st} })
	case runLogTick:
		if sp.settingsTab() == nil || msg.gen != sp.runLogGen {
			return nil
		}
		return sp.readRunLog(msg.state)
	}
	return nil
}

// errNoConfig says the studio was given no configuration.
var errNoConfig = errors.New("unknown: the studio was started without its configuration")

func (sp *settingsPart) settingsTab() *settingsTab {
	t, _ := sp.tabs.settings()
	return t
}

// settingsResult takes the answers of the settings tab's commands.
func (sp *settingsPart) settingsResult(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case triggersMsg:
		if t := sp.settingsTab(); t != nil {
			t.SetTriggers(msg.triggers, msg.err)
		}
		return nil, true
	case trustMsg:
		t := sp.settingsTab()
		switch {
		case msg.err != nil && t != nil:
			t.SetTrust(msg.err.Error())
		case t != nil:
			t.SetTrust(string(msg.state))
		}
		if msg.err != nil && !errors.Is(msg.err, errNoConfig) {
			sp.status.set("trust: "+msg.err.Error(), true)
		} else if msg.did != "" {
			sp.status.set(msg.did, false)
		}
		return nil, true
	case runLogMsg, runLogTick:
		return sp.runLogResult(msg), true
	case channelsMsg:
		if t := sp.settingsTab(); t != nil {
			t.SetChannels(msg.status, msg.err)
		}
		return nil, true
	case channelsTestedMsg:
		if t := sp.settingsTab(); t != nil {
			t.SetTested(msg.results, msg.err)
		}
		sp.status.set(testedStatus(msg.results, msg.err))
		return nil, true
	case destroyedMsg:
		if msg.err != nil {
			sp.status.set("destroy: "+msg.err.Error(), true)
			return nil, true
		}
		// The engine is closed and its state gone: nothing is left to run
		// or show, so the studio quits and Run says why on the terminal.
		sp.status.set("the workspace's .state/ was destroyed", false)
		sp.act.log("", "workspace state destroyed by you", themes.ToneError)
		sp.exitNote = "atelier: the studio closed because you destroyed the state of " + sp.opts.Workspace +
			": its sessions, transcripts and history are gone and its engine is closed. Your own files were not touched; " +
			"open the studio again to start afresh."
		return tea.Quit, true
	}
	return nil, false
}

// settingsAction carries out what the settings tab asked.
func (sp *settingsPart) settingsAction(act settings.Action) tea.Cmd {
	switch act := act.(type) {
	case settings.RemoveRule:
		sp.pickRuleToRemove(sp.rules)
	case settings.Trust:
		if act.On {
			return sp.trust(1)
		}
		return sp.trust(-1)
	case settings.Notify:
		sp.notify = act.Mode
		if t := sp.settingsTab(); t != nil {
			t.SetNotify(act.Mode)
		}
		sp.status.set("notifications: "+act.Mode, false)
	case settings.TestChannels:
		if t := sp.settingsTab(); t != nil {
			t.SetTesting()
		}
		sp.status.set("sending a test notification…", false)
		return sp.testChannels()
	case settings.Destroy:
		name := filepath.Base(sp.eng.Workspace())
		sp.dlg.open(dialog.NewTyped(sp.st, "Destroy the workspace's state", []string{
			"This removes " + filepath.Join(sp.eng.Workspace(), ".state") + ": every session, its transcript and audit log, and the workspace history.",
			"Running sessions are stopped first. Your own files are not touched. It cannot be undone.",
		}, name), onOK(func(dialog.Result) tea.Cmd { return sp.destroy() }))
	}
	return nil
}

// destroy runs the confirmed destroy.
func (sp *settingsPart) destroy() tea.Cmd {
	if sp.opts.Destroy == nil {
		sp.status.set("destroy is not available yet: the engine has no Destroy; nothing was removed", true)
		return nil
	}
	f := sp.opts.Destroy
	return func() tea.Msg { return destroyedMsg{err: f()} }
}

// testedStatus is the status line after a test notification.
func testedStatus(rs []notify.Result, err error) (string, bool) {
	if err != nil {
		return "test notification: " + err.Error(), true
	}
	if len(rs) == 0 {
		return "test notification: no channel is configured ([notify] in config.toml)", true
	}
	var sent, failed []string
	for _, r := range rs {
		if r.Error != "" {
			failed = append(failed, r.Channel)
		} else {
			sent = append(sent, r.Channel)
		}
	}
	if len(failed) > 0 {
		return "test notification: " + strings.Join(failed, ", ") + " failed (the settings tab says why)", true
	}
	return "test notification sent through " + strings.Join(sent, ", "), false
}
