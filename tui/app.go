package tui

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/attach"
	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/core"
	afiles "github.com/atelier-studio/atelier/files"
	eterm "github.com/atelier-studio/atelier/terminal"
	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/actions"
	"github.com/atelier-studio/atelier/tui/activity"
	"github.com/atelier-studio/atelier/tui/files"
	"github.com/atelier-studio/atelier/tui/sessions"
	"github.com/atelier-studio/atelier/tui/terminal"
)

// Options configure the studio.
type Options struct {
	// Rules keeps the operator's "always allow here" rules (W on an
	// approval); nil offers none.
	Rules *config.RulesStore
	// UIStateFile keeps what the operator chose in the studio (a theme,
	// the panes' widths; UIStateFile()); "" remembers nothing (tests).
	UIStateFile string
	// Engine runs the workspace's sessions: in this process
	// (attach.Local) or in the workspace's host (attach.Remote). The
	// studio does not close it: the caller does, after Run returns.
	Engine attach.Engine
	// Workspace is the workspace path as the operator named it; empty
	// uses the engine's. A relative one ("." from the command line) is
	// made absolute, so that messages name the folder, and the status
	// line shows the folder's name.
	Workspace string
	// Theme names a built-in theme ("dark", "light"); empty is dark.
	Theme string
	// NoColor draws with attributes only. NO_COLOR in the environment has
	// the same effect.
	NoColor bool
	// Agents are the agent names the new-session form offers, the default
	// first; empty offers "demo", or, attached to another machine, the
	// engine's default (EngineDefaultAgent).
	Agents []string
	// Execution is the default execution environment shown in the status
	// line ("local" when empty).
	Execution string
	// Files is the workspace as the file tree, the editor and the watcher
	// read it; nil opens one on the engine's workspace (and closes it
	// with the App). Attached to another machine's engine it is that
	// engine's (attach.RemoteFiles).
	Files attach.Files
	// Now is the clock (tests fix it); nil uses time.Now.
	Now func() time.Time
	// Config is the configuration in force, for the settings tab (values
	// and where each came from), the theme (ui.theme, a theme file) and
	// notifications; nil shows defaults.
	Config *config.Config
	// Destroy removes the workspace's .state/ (its sessions and history)
	// after the operator confirmed it by typing the folder's name; the
	// engine's sessions must be stopped first. Nil: the settings tab says
	// destroy is not available.
	Destroy func() error
	// Attached says the engine runs in the workspace's host: quitting
	// leaves its sessions running there (and says so on the terminal).
	Attached bool
	// Remote is the address of the engine when it runs on another machine
	// (`atelier attach URL`), "" for this machine's workspace. The studio
	// then touches no folder of this machine for the workspace: its files
	// come from Files (required), its terminals from the host, and it
	// keeps no activity or tabs for the next studio. The status line says
	// where it is attached.
	Remote string
	// Leave, when set, receives what the operator chose, quitting an
	// in-process studio, for its running sessions: LeaveHandOver asks the
	// caller to start a detached host once the engine is closed.
	Leave *Leave
	// Program adds Bubble Tea options to Run's program: an embedding
	// program's input and output, or a test's message filter.
	Program []tea.ProgramOption
}

// Leave is what happens to an in-process studio's running sessions when
// it quits.
type Leave int

const (
	// LeaveStop stops their turns at a safe point as the engine closes;
	// the next engine on the workspace resumes them.
	LeaveStop Leave = iota
	// LeaveHandOver hands them to a detached host, which runs them on.
	LeaveHandOver
)

// ErrNoEngine is returned by New and Run without an engine.
var ErrNoEngine = errors.New("tui: no engine")

// ErrNoFiles is returned by New attached to another machine's engine
// without its files (Options.Files).
var ErrNoFiles = errors.New("tui: no files of the remote workspace")

// focus names the pane with the keys.
type focus int

const (
	focusSessions focus = iota
	focusFiles
	focusCenter
	focusActivity
	focusActions
	focusCount
)

// App is the studio's root model.
type App struct {
	*studio // what the parts share (studio.go)
	sub     attach.Feed
	ticking bool // a tick is scheduled (ensureTick)
	// autoTheme: the theme follows the terminal's background.
	autoTheme bool

	// The panes, each a plain struct of its own package.
	sessions *sessions.List
	files    *files.Tree
	ignore   *afiles.Ignore    // shared by the tree and the watcher
	ownWS    *afiles.Workspace // opened by New, closed by Close
	activity *activity.Pane
	actions  *actions.Pane

	// The parts the root routes to, each owning its state.
	scr  *screen        // the screen's size, the focus and the panes' arrangement (layout.go)
	view *chrome        // what no pane draws: the tab bar, the status line, the dialog (chrome.go)
	ctl  *controlPart   // what the operator asks of sessions (control.go)
	work *workPart      // the editors, the terminals and the file tree's operations (work.go)
	inst *instancesPart // the workspace's instances and what the file pane follows (instances.go)
	hist *historyPart   // a session's turn history and its restores (historypart.go)
	set  *settingsPart  // the settings tab, the rules, the runs, notifications (settings.go)
	mem  *tabMemory     // the tabs kept for the next studio and taken back (tabstate.go)
	at   *mentionPart   // the paths an "@" completes (mentionpaths.go)
}

// New builds the studio on an engine and subscribes to its live view.
func New(opts Options) (*App, error) {
	if opts.Engine == nil {
		return nil, ErrNoEngine
	}
	ui, uiErr := loadUIState(opts.UIStateFile)
	if opts.Theme == "" && ui.Theme != "" {
		opts.Theme = ui.Theme // chosen in the palette: it wins over the configuration's
	}
	pal, auto, err := pickTheme(opts)
	if err != nil {
		return nil, err
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Workspace == "" {
		opts.Workspace = opts.Engine.Workspace()
	} else if !filepath.IsAbs(opts.Workspace) {
		opts.Workspace = absWorkspace(opts.Workspace, opts.Engine.Workspace())
	}
	if opts.Execution == "" {
		opts.Execution = "local"
	}
	if opts.Remote != "" && len(opts.Agents) == 0 {
		opts.Agents = []string{EngineDefaultAgent}
	}
	var ownWS *afiles.Workspace
	switch {
	case opts.Files == nil && opts.Remote != "":
		return nil, fmt.Errorf("open the studio on %s: %w", opts.Remote, ErrNoFiles)
	case opts.Files == nil:
		ws, err := afiles.Open(opts.Engine.Workspace(), nil)
		if err != nil {
			return nil, fmt.Errorf("open the studio: %w", err)
		}
		opts.Files, ownWS = attach.LocalFiles(ws), ws
	}
	ignore := afiles.NewIgnore()
	st := themes.Build(pal, opts.NoColor)
	a := &App{
		studio:   &studio{opts: opts, eng: opts.Engine, st: st, km: defaultKeymaps(), now: opts.Now(), live: newLiveView(), home: homeDir(), ui: ui},
		sessions: sessions.New(st), files: files.New(st, afiles.NewTree(opts.Files, ignore)), ignore: ignore, ownWS: ownWS,
		activity: activity.New(st), actions: actions.New(st),
		autoTheme: auto,
	}
	a.status = statusLine{fade: statusFade, clock: func() time.Time { return a.opts.Now() }}
	a.act = &journal{opts: &a.opts, activity: a.activity}
	a.scr = &screen{ui: &a.ui}
	a.dlg.st, a.dlg.km = &a.st, &a.km
	a.inst = &instancesPart{studio: a.studio, r: a, files: a.files, sessions: a.sessions}
	a.hist = &historyPart{studio: a.studio, r: a, files: a.files}
	a.set = &settingsPart{studio: a.studio, r: a, sessions: a.sessions, actions: a.actions, scr: a.scr, notify: "auto", runLogEvery: runLogEvery}
	a.work = &workPart{studio: a.studio, r: a, files: a.files}
	a.view = &chrome{studio: a.studio, r: a, scr: a.scr, actions: a.actions}
	a.mem = &tabMemory{studio: a.studio, r: a, scr: a.scr, inst: a.inst, work: a.work}
	a.at = &mentionPart{studio: a.studio, ignore: ignore}
	a.ctl = &controlPart{studio: a.studio, r: a, hist: a.hist, work: a.work, set: a.set, at: a.at}
	a.inst.create = a.ctl.create
	a.set.callErr = a.ctl.callErr
	if uiErr != nil {
		a.status.set("the studio's remembered choices could not be read ("+uiErr.Error()+"): the defaults apply", true)
	}
	a.files.SetBlamer(blamer(a.eng))
	if opts.Config != nil && len(opts.Config.Keys) > 0 {
		if errs := a.km.override(opts.Config.Keys); len(errs) > 0 {
			a.status.set(strings.Join(errs, "; "), true)
		}
	}
	a.applyKeymaps()
	if opts.Config != nil && opts.Config.UI.Notifications != "" {
		a.set.notify = opts.Config.UI.Notifications
	}
	// The operator's own terminal on the host: their whole environment.
	// Attached to another machine, terminals are that machine's.
	if opts.Remote != "" {
		a.work.hostErr = "the workspace is on another machine"
	} else if host, err := eterm.NewLocal(eterm.LocalConfig{Workspace: opts.Engine.Workspace(), BaseEnv: os.Environ()}); err == nil {
		a.work.host = host
	} else {
		a.work.hostErr = err.Error()
	}
	a.act.opened = a.opts.Now()
	if opts.Remote == "" {
		a.act.actlog = openActivityLog(a.eng.Workspace())
	}
	snap, sub := a.eng.Subscribe()
	a.sub = sub
	a.applySnapshot(snap)
	a.live.told()
	// What opening the workspace repaired (torn lines cut, corrupt ones
	// skipped, unsafe files refused) is said once per session, in the
	// activity, where `sessions show` would say it.
	for _, rec := range snap.Sessions {
		for _, rp := range a.eng.Repairs(rec.ID) {
			a.act.log(rec.ID, "repaired when read: "+rp.String(), themes.ToneWarning)
		}
	}
	if n := a.eng.StateNotice(); n != "" {
		// A foreign or unwritable state: nothing in it runs; say so where
		// the operator looks first, and keep it in the activity.
		a.status.set(n, true)
		a.act.log("", n, themes.ToneError)
	}
	a.sessions.Focus()
	return a, nil
}

// Close ends the App's subscription (and closes the workspace it opened).
func (a *App) Close() {
	a.sub.Close()
	a.act.actlog.stop() // what it could not write, keep reports
	for _, tt := range a.tabs.terminals() {
		// Attached, the host keeps the terminals for the next studio.
		if !a.opts.Attached || !tt.Detach() {
			tt.Close()
		}
	}
	if a.work.host != nil {
		_ = a.work.host.Close() // kills the tabs' process groups: there is nothing to report
	}
	if a.ownWS != nil {
		_ = a.ownWS.Close() // releases the root's read-only descriptor: nothing to flush
	}
}

// Init lists the workspace's root folder and starts the clock if needed.
func (a *App) Init() tea.Cmd {
	ws := a.eng.Workspace()
	cmds := []tea.Cmd{a.files.Init(), a.ensureTick(), tea.RequestWindowSize, a.work.keptTerminals()}
	if !a.opts.Attached {
		// Attached, the host's view arrives as a resync once the feed has
		// reached a host (maybe one it started): the runs are read then.
		cmds = append(cmds, a.set.loadRuns())
	}
	if a.opts.Remote == "" { // the activity and tabs kept are this machine's
		cmds = append(cmds, func() tea.Msg { return loadActivity(ws) }, func() tea.Msg { return loadTabs(ws) })
	}
	cmds = append(cmds, a.inst.loadInstances()) // for the new-session form's choice of joining one
	if a.autoTheme {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	return tea.Batch(cmds...)
}

// Messages the root receives besides the terminal's.
type (
	// eventsMsg is a batch of live-view events from the bridge.
	eventsMsg []core.Event
	// resyncMsg is a fresh snapshot after the subscription overflowed.
	resyncMsg core.Snapshot
	// tickMsg drives spinners and countdowns.
	tickMsg time.Time
)

// Update routes one message.
func (a *App) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m, cmd := a.update(msg)
	if f := a.inst.followSelection(); f != nil {
		cmd = tea.Batch(cmd, f)
	}
	if f := a.status.fadeCmd(); f != nil {
		cmd = tea.Batch(cmd, f)
	}
	return m, cmd
}

func (a *App) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case statusFadeMsg:
		a.status.faded(msg)
		return a, nil
	case tea.WindowSizeMsg:
		a.scr.w, a.scr.h = msg.Width, msg.Height
		a.layout()
		return a, nil
	case tea.KeyPressMsg:
		return a, a.handleKey(msg)
	case tea.PasteMsg:
		a.paste(msg)
		return a, nil
	case tea.MouseClickMsg:
		return a, a.click(msg.Mouse())
	case tea.MouseWheelMsg:
		return a, a.wheel(msg.Mouse())
	case tea.MouseMotionMsg:
		a.motion(msg.Mouse())
		return a, nil
	case tea.MouseReleaseMsg:
		return a, a.release()
	case tea.FocusMsg:
		a.scr.termBlurred = false
		return a, nil
	case tea.BlurMsg:
		a.scr.termBlurred = true
		return a, nil
	case tickMsg:
		a.ticking = false
		a.setNow(time.Time(msg))
		return a, a.ensureTick()
	case eventsMsg:
		return a, a.applyEvents(msg)
	case resyncMsg:
		a.applySnapshot(core.Snapshot(msg))
		cmds := []tea.Cmd{a.ctl.reloadTabs(), a.mem.restoreTabs(a.mem.pendingTabs), a.set.loadRuns()}
		if a.set.settingsTab() != nil {
			cmds = append(cmds, a.set.loadTriggers()) // (re)connected: the host can say now
		}
		return a, tea.Batch(cmds...)
	case runsMsg:
		return a, a.set.runsLoaded(msg)
	case pathsMsg:
		return a, a.at.loaded(msg)
	case workflowsMsg:
		return a, a.set.pickWorkflow(msg)
	case runStartedMsg:
		return a, a.set.runStarted(msg)
	case firedMsg:
		a.set.fired(msg)
		return a, nil
	case files.Loaded:
		a.files.Apply(msg)
		return a, a.files.BlameSelected()
	case files.Changes:
		a.fileChanges(msg)
		return a, tea.Batch(a.work.checkEditors(msg), a.files.BlameSelected(), a.at.changed(msg))
	case tea.BackgroundColorMsg:
		a.background(msg.IsDark())
		return a, nil
	}
	if id, ok := tabMsgID(msg); ok {
		// A message for one tab goes to it; a tab that is gone drops it.
		if t := a.tabs.get(id); t != nil {
			return a, t.Update(msg)
		}
		return a, nil
	}
	if cmd, ok := a.inst.instanceResult(msg); ok {
		return a, cmd
	}
	if cmd, ok := a.workResult(msg); ok {
		return a, cmd
	}
	if cmd, ok := a.hist.historyResult(msg); ok {
		return a, cmd
	}
	return a, a.ctl.handleResult(msg)
}

// workResult takes the messages of the editor, terminal and settings
// tabs; it reports whether msg was one.
func (a *App) workResult(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case files.Open:
		return a.work.openFile(msg.Path), true
	case files.Op:
		a.work.fileOp(msg)
		return nil, true
	case fileOpMsg:
		return a.work.fileOpDone(msg), true
	case files.Blamed:
		a.work.blamed(msg)
		return nil, true
	case fileReadMsg:
		return a.work.fileRead(msg), true
	case diskDiffMsg:
		return a.work.askDiskChange(msg), true
	case diskDiffTabMsg:
		a.work.showDiskDiff(msg)
		return nil, true
	case fileSavedMsg:
		return a.work.saved(msg), true
	case leftMsg:
		return a.left(msg), true
	case terminal.Started:
		if msg.Err != nil {
			a.status.set(msg.Err.Error(), true)
			return a.work.openedOwn(msg), true
		}
		msg.Tab.SetKeyMap(a.km.terminal)
		t := &termTab{Tab: msg.Tab, r: a}
		if msg.Reattached {
			a.tabs.add(t) // behind the tab in view: it does not take the keys
			a.status.set("reattached "+msg.Name+", kept running by the host", false)
			return t.Wait(), true
		}
		a.addTab(t)
		a.status.set(msg.Name+" started · ctrl+] gives the keys back to the studio", false)
		// After addTab: the tab's id keeps reattach from opening it twice.
		return tea.Batch(t.Wait(), a.work.openedOwn(msg)), true
	case keptTerminalsMsg:
		if a.work.termsOpening > 0 {
			// A terminal this studio opens may be in the list without its
			// tab knowing its id yet: wait for it (openedOwn).
			a.work.keptLater = &msg
			return nil, true
		}
		return a.work.reattach(msg), true
	case rulesMsg:
		if msg.err == nil {
			a.set.rules = msg.rules
		}
		if msg.what != "" || msg.err != nil {
			text, isErr := msg.what, msg.err != nil
			if isErr {
				text = "workspace rules: " + msg.err.Error()
			}
			a.status.set(text, isErr)
		}
		if t := a.set.settingsTab(); t != nil {
			t.SetRules(ruleLines(msg.rules, msg.err))
		}
		return nil, true
	case tabsLoaded:
		return a.mem.restoreTabs(msg.tabs), true
	case uiSaved:
		if msg.err != nil {
			a.status.set("the choice applies, but could not be kept for the next studio: "+msg.err.Error(), true)
		}
		return nil, true
	case activityLoaded:
		var earlier []activity.Entry
		for _, e := range msg.entries {
			if e.Time.Before(a.act.opened) {
				earlier = append(earlier, e)
			}
		}
		earlier = a.act.keepFirings(earlier, msg.firings)
		a.activity.Prepend(earlier)
		if msg.err != nil {
			a.act.log("", "the activity of earlier studios could not be read: "+msg.err.Error(), themes.ToneWarning)
		}
		return nil, true
	}
	return a.set.settingsResult(msg)
}

// setNow moves the studio's clock.
func (a *App) setNow(t time.Time) {
	if a.opts.Now != nil {
		t = a.opts.Now()
	}
	a.now = t
	a.sessions.SetNow(t)
	a.actions.SetNow(t)
	for _, st := range a.tabs.sessions() {
		st.SetNow(t)
	}
}

// ensureTick schedules the next tick while something animates.
func (a *App) ensureTick() tea.Cmd {
	if a.ticking || !a.animated() {
		return nil
	}
	a.ticking = true
	return tea.Tick(100*time.Millisecond, func(t time.Time) tea.Msg { return tickMsg(t) })
}

func (a *App) animated() bool {
	if a.sessions.Animated() {
		return true
	}
	return a.live.counting()
}

// say puts a line in the status line (termRoot).
func (a *App) say(text string, isErr bool) { a.status.set(text, isErr) }
