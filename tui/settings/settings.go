package settings

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/notify"
	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/trigger/state"
	"github.com/atelier-studio/atelier/tui/keys"
)

// KeyMap is the settings tab's keys.
type KeyMap struct {
	Up, Down, Bottom, Trust, Distrust, Notify, TestChannels, RemoveRule, Destroy key.Binding
}

// DefaultKeyMap returns the tab's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:           keys.New("scroll up", "up", "k"),
		Down:         keys.New("scroll down", "down", "j"),
		Bottom:       keys.New("go to the end and follow the run log as it grows", "end", "G"),
		Trust:        keys.New("trust the workspace's .atelier.toml as it is now", "t"),
		Distrust:     keys.New("stop trusting it", "u"),
		Notify:       keys.New("cycle notifications: auto, bell, osc, none", "b"),
		TestChannels: keys.New("send a test notification through the channels ([notify]) that reach you when no studio is attached", "N"),
		RemoveRule:   keys.New("remove one of the workspace's \"always allow here\" rules", "R"),
		Destroy:      keys.New("destroy the workspace's .state/ (asks you to type the folder's name)", "D"),
	}
}

// Scope returns the keymap as data for help and docs.
func (k KeyMap) Scope() keys.Scope {
	return keys.Scope{Name: "Settings tab", About: "Opened with `,`: the configuration in force and where each value came from, " +
		"notifications and the channels that reach you when no studio is attached, the workspace's trust, destroy, " +
		"and the engine's run log as it grows.",
		Bindings: []key.Binding{k.Up, k.Down, k.Bottom, k.Trust, k.Distrust, k.Notify, k.TestChannels, k.RemoveRule, k.Destroy},
		Short:    []string{"t", "u", "b", "N", "D"}}
}

// Action is what the tab asks the root to do.
type Action interface{ settingsAction() }

// Trust asks to trust (or, On false, distrust) the workspace's file.
type Trust struct{ On bool }

// Notify asks to use another notification mode.
type Notify struct{ Mode string }

// Destroy asks to destroy the workspace's state (the root asks first).
type Destroy struct{}

// TestChannels asks to send a test notification through the channels.
type TestChannels struct{}

func (TestChannels) settingsAction() {}

// RemoveRule asks to pick a workspace rule to remove.
type RemoveRule struct{}

func (RemoveRule) settingsAction() {}

func (Trust) settingsAction()   {}
func (Notify) settingsAction()  {}
func (Destroy) settingsAction() {}

// NotifyModes are the notification modes, in the order b cycles them.
func NotifyModes() []string { return []string{"auto", "bell", "osc", "none"} }

// Pane is the settings tab.
type Pane struct {
	keys      KeyMap
	st        themes.Styles
	cfg       *config.Config
	workspace string
	trust     string // the trust state, or why it is unknown
	notify    string
	canDelete bool
	rules     []string // the workspace rules' lines (SetRules)
	// triggers are the host's triggers (SetTriggers), read once
	// triggersRead; triggersErr says why they could not be.
	triggers     []state.Trigger
	triggersRead bool
	triggersErr  string
	// The notification channels as the host reported them (nil until
	// then) or why it could not, and the last test's outcome.
	channels    *notify.Status
	channelsErr string
	testing     bool
	tested      []testLine // nil until a test
	// The run log's path, its newest lines (oldest first) and why it
	// could not be read; nil lines until the first read.
	runLogPath string
	runLog     []string
	runLogErr  string
	off        int
	maxOff     int  // the last line fits at this offset (as of the last View)
	follow     bool // stay at the end as the run log grows
	w, h       int
}

// New returns the tab; cfg may be nil.
func New(st themes.Styles, cfg *config.Config, workspace, notify string, canDestroy bool) *Pane {
	return &Pane{keys: DefaultKeyMap(), st: st, cfg: cfg, workspace: workspace, notify: notify, trust: "checking…", canDelete: canDestroy}
}

// KeyMap returns the tab's keys.
func (p *Pane) KeyMap() KeyMap { return p.keys }

// SetKeyMap replaces the keys (the configuration's overrides).
func (p *Pane) SetKeyMap(k KeyMap) { p.keys = k }

// SetStyles changes the styles (the theme changed).
func (p *Pane) SetStyles(st themes.Styles) { p.st = st }

// SetTrust shows the workspace's trust state (or why it is unknown).
func (p *Pane) SetTrust(state string) { p.trust = state }

// SetRules gives the lines of the workspace's rules.
func (p *Pane) SetRules(lines []string) { p.rules = lines }

// SetChannels shows the notification channels, or why they are unknown.
func (p *Pane) SetChannels(st notify.Status, err error) {
	p.channels, p.channelsErr = &st, ""
	if err != nil {
		p.channels, p.channelsErr = nil, err.Error()
	}
}

// SetTesting says a test notification is on its way.
func (p *Pane) SetTesting() { p.testing = true }

// SetTested shows how each channel fared with the test, or why the test
// could not be sent.
func (p *Pane) SetTested(rs []notify.Result, err error) {
	p.testing, p.tested = false, []testLine{}
	switch {
	case err != nil:
		p.tested = append(p.tested, testLine{"could not be sent: " + err.Error(), false})
	case len(rs) == 0:
		p.tested = append(p.tested, testLine{"no channel to send it through", false})
	}
	for _, r := range rs {
		if r.Error != "" {
			p.tested = append(p.tested, testLine{r.Channel + " failed: " + r.Error, false})
		} else {
			p.tested = append(p.tested, testLine{r.Channel + " sent it", true})
		}
	}
}

// testLine is one line of a test's outcome.
type testLine struct {
	text string
	ok   bool
}

// SetNotify shows the notification mode.
func (p *Pane) SetNotify(mode string) { p.notify = mode }

// SetRunLog shows the engine's run log: its path and newest lines, oldest
// first, or why it could not be read.
func (p *Pane) SetRunLog(path string, lines []string, err error) {
	p.runLogPath, p.runLog, p.runLogErr = path, lines, ""
	if err != nil {
		p.runLogErr = err.Error()
	}
}

// RunLog returns the run log lines shown.
func (p *Pane) RunLog() []string { return p.runLog }

// SetSize sets the inside size.
func (p *Pane) SetSize(w, h int) { p.w, p.h = w, h }

// Scroll moves the view by n lines; reaching the end follows the run log.
func (p *Pane) Scroll(n int) {
	p.off = min(max(p.off+n, 0), p.maxOff)
	p.follow = p.off >= p.maxOff
}

// HandleKey acts on a key.
func (p *Pane) HandleKey(msg tea.KeyPressMsg) Action {
	k := p.keys
	switch {
	case key.Matches(msg, k.Up):
		p.Scroll(-1)
	case key.Matches(msg, k.Down):
		p.Scroll(1)
	case key.Matches(msg, k.Bottom):
		p.off, p.follow = p.maxOff, true
	case key.Matches(msg, k.Trust):
		return Trust{On: true}
	case key.Matches(msg, k.Distrust):
		return Trust{On: false}
	case key.Matches(msg, k.Notify):
		for i, m := range NotifyModes() {
			if m == p.notify {
				return Notify{Mode: NotifyModes()[(i+1)%len(NotifyModes())]}
			}
		}
		return Notify{Mode: NotifyModes()[0]}
	case key.Matches(msg, k.TestChannels):
		return TestChannels{}
	case key.Matches(msg, k.Destroy):
		return Destroy{}
	case key.Matches(msg, k.RemoveRule):
		return RemoveRule{}
	}
	return nil
}

// View returns the inside lines.
func (p *Pane) View() []string {
	lines := p.lines()
	p.maxOff = max(len(lines)-p.h, 0)
	p.off = min(p.off, p.maxOff)
	if p.follow {
		p.off = p.maxOff
	}
	out := lines[p.off:min(p.off+p.h, len(lines))]
	for i, l := range out {
		out[i] = ansi.Truncate(l, p.w, "…")
	}
	return out
}

func (p *Pane) lines() []string {
	st := p.st
	head := func(s string) string { return st.Bold.Render(s) }
	var out []string
	out = append(out, head("Configuration"), st.Subtle.Render("  the values in force; a value without a file is the default"))
	if p.cfg == nil {
		out = append(out, st.Subtle.Render("  (the studio was started without the configuration: defaults apply)"))
	} else {
		entries := p.cfg.Effective()
		kw := 0
		for _, e := range entries {
			kw = max(kw, len(e.Key))
		}
		kw = min(kw, 40)
		for _, e := range entries {
			src := "default"
			if e.File != "" {
				src = e.File + ":" + strconv.Itoa(e.Line)
			}
			k := ansi.Truncate(e.Key, kw, "…")
			out = append(out, "  "+st.Accent.Render(k)+strings.Repeat(" ", kw-ansi.StringWidth(k)+1)+
				st.Base.Render("= "+e.Value)+st.Subtle.Render("  ("+src+")"))
		}
		for _, n := range p.cfg.Notices {
			out = append(out, "  "+st.Warning.Render("! "+n.Text))
		}
	}
	out = append(out, "", head("Notifications"),
		"  "+st.Base.Render(p.notify)+st.Subtle.Render("  · b cycles auto, bell, osc, none (for this run; ui.notifications in config.toml keeps it)"))
	out = append(out, p.channelLines()...)
	out = append(out, "", head("Workspace trust (.atelier.toml)"), "  "+p.trustLine()+st.Subtle.Render("  · t trusts it as it is now, u stops trusting it"))
	out = append(out, "", head("Always allowed here (workspace rules, yours)"))
	for _, l := range p.rules {
		out = append(out, st.Base.Render(l))
	}
	out = append(out, p.triggerLines()...)
	out = append(out, "", head("Destroy"))
	if p.canDelete {
		out = append(out, "  "+st.Base.Render("D removes ")+st.Bold.Render(".state/")+st.Base.Render(": every session, transcript and the history. ")+
			st.Error.Render("It cannot be undone."))
	} else {
		out = append(out, "  "+st.Subtle.Render("D asks, but this build cannot destroy yet: the engine has no Destroy."))
	}
	return append(out, p.runLogLines()...)
}

// channelLines is the notification channels' section.
func (p *Pane) channelLines() []string {
	st := p.st
	out := []string{"", st.Bold.Render("Channels") + st.Subtle.Render("  when no studio is attached, the host tells you through these · N sends a test")}
	switch {
	case p.channelsErr != "":
		return append(out, "  "+st.Error.Render(p.channelsErr))
	case p.channels == nil:
		return append(out, "  "+st.Subtle.Render("asking the host…"))
	}
	c := p.channels
	if len(c.Channels) == 0 {
		out = append(out, "  "+st.Subtle.Render("none: set [notify] command or desktop in config.toml"))
	} else {
		events := strings.Join(c.Events, ", ")
		if events == "" {
			events = "nothing (events = [])"
		}
		out = append(out, "  "+st.Base.Render("of "+events)+st.Subtle.Render("  · each run within "+c.Timeout))
	}
	for _, ch := range c.Channels {
		state := st.Success.Render("ready")
		if !ch.Ready {
			state = st.Warning.Render("not ready: " + ch.Note)
		}
		out = append(out, "  "+st.Accent.Render(fmt.Sprintf("%-8s", ch.Name))+" "+st.Base.Render(ch.Detail)+"  "+state)
	}
	switch {
	case p.testing:
		out = append(out, "  "+st.Subtle.Render("sending a test…"))
	case p.tested != nil:
		for _, l := range p.tested {
			tone := st.Success
			if !l.ok {
				tone = st.Warning
			}
			out = append(out, "  "+tone.Render("test: "+l.text))
		}
	}
	return out
}

// runLogLines is the last section: the run log's tail, live.
func (p *Pane) runLogLines() []string {
	st := p.st
	out := []string{"", st.Bold.Render("Run log") + st.Subtle.Render("  "+p.runLogPath+" · live, newest last")}
	switch {
	case p.runLogErr != "":
		return append(out, "  "+st.Error.Render(p.runLogErr))
	case p.runLog == nil:
		return append(out, "  "+st.Subtle.Render("reading…"))
	case len(p.runLog) == 0:
		return append(out, "  "+st.Subtle.Render("empty so far"))
	}
	for _, l := range p.runLog {
		out = append(out, "  "+st.Base.Render(l))
	}
	return out
}

func (p *Pane) trustLine() string {
	switch config.TrustState(p.trust) {
	case config.TrustTrusted:
		return p.st.Success.Render("trusted")
	case config.TrustUntrusted:
		return p.st.Warning.Render("not trusted: its agents and settings are ignored")
	case config.TrustChanged:
		return p.st.Warning.Render("changed since you trusted it: ignored until you trust it again")
	case config.TrustNone:
		return p.st.Subtle.Render("the workspace has no .atelier.toml")
	}
	return p.st.Subtle.Render(p.trust)
}
