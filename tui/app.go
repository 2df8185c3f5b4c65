package tui

import (
	"errors"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/core"
	afiles "github.com/atelier-studio/atelier/files"
	sess "github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/actions"
	"github.com/atelier-studio/atelier/tui/activity"
	"github.com/atelier-studio/atelier/tui/dialog"
	"github.com/atelier-studio/atelier/tui/files"
	"github.com/atelier-studio/atelier/tui/sessions"
)

// Options configure the studio.
type Options struct {
	// Engine runs the workspace's sessions. The studio does not close it:
	// the caller does, after Run returns, which leaves running sessions
	// resumable.
	Engine *core.Engine
	// Workspace is the workspace path as the operator named it (shown in
	// the status line); empty uses the engine's.
	Workspace string
	// Theme names a built-in theme ("dark", "light"); empty is dark.
	Theme string
	// NoColor draws with attributes only. NO_COLOR in the environment has
	// the same effect.
	NoColor bool
	// Agents are the agent names the new-session form offers, the default
	// first; empty offers "demo".
	Agents []string
	// Execution is the default execution environment shown in the status
	// line ("local" when empty).
	Execution string
	// Files is the workspace as the file tree reads it; nil opens one on
	// the engine's workspace (and closes it with the App).
	Files *afiles.Workspace
	// Now is the clock (tests fix it); nil uses time.Now.
	Now func() time.Time
}

// ErrNoEngine is returned by New and Run without an engine.
var ErrNoEngine = errors.New("tui: no engine")

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
	opts Options
	eng  *core.Engine
	sub  *core.Subscription
	st   themes.Styles
	keys GlobalKeyMap
	now  time.Time

	w, h  int
	focus focus

	sessions *sessions.List
	files    *files.Tree
	ignore   *afiles.Ignore    // shared by the tree and the watcher
	ownWS    *afiles.Workspace // opened by New, closed by Close
	activity *activity.Pane
	actions  *actions.Pane
	tabs     []tab
	active   int
	dialog   dialog.Dialog

	recs  map[string]sess.Session
	open  map[string]core.OpenInteraction // open interactions by id
	seq   uint64                          // the newest event applied
	shown map[string]bool                 // action-required items already seen

	opening     string // a session just created: open its tab when its record arrives
	status      string
	statusErr   bool
	ticking     bool
	termBlurred bool
}

// New builds the studio on an engine and subscribes to its live view.
func New(opts Options) (*App, error) {
	if opts.Engine == nil {
		return nil, ErrNoEngine
	}
	pal, err := themes.Named(opts.Theme)
	if err != nil {
		return nil, err
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Workspace == "" {
		opts.Workspace = opts.Engine.Workspace()
	}
	if opts.Execution == "" {
		opts.Execution = "local"
	}
	var ownWS *afiles.Workspace
	if opts.Files == nil {
		ws, err := afiles.Open(opts.Engine.Workspace(), nil)
		if err != nil {
			return nil, fmt.Errorf("open the studio: %w", err)
		}
		opts.Files, ownWS = ws, ws
	}
	ignore := afiles.NewIgnore()
	st := themes.Build(pal, opts.NoColor)
	a := &App{
		opts: opts, eng: opts.Engine, st: st, keys: DefaultGlobalKeyMap(), now: opts.Now(),
		sessions: sessions.New(st), files: files.New(st, afiles.NewTree(opts.Files, ignore)), ignore: ignore, ownWS: ownWS,
		activity: activity.New(st), actions: actions.New(st),
		recs: map[string]sess.Session{}, open: map[string]core.OpenInteraction{}, shown: map[string]bool{},
	}
	snap, sub := a.eng.Subscribe()
	a.sub = sub
	a.applySnapshot(snap)
	for id := range a.open {
		a.shown[id] = true
	}
	a.sessions.Focus()
	return a, nil
}

// Close ends the App's subscription (and closes the workspace it opened).
func (a *App) Close() {
	a.sub.Close()
	if a.ownWS != nil {
		a.ownWS.Close()
	}
}

// Init lists the workspace's root folder and starts the clock if needed.
func (a *App) Init() tea.Cmd {
	return tea.Batch(a.files.Init(), a.ensureTick(), tea.RequestWindowSize)
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
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		a.w, a.h = msg.Width, msg.Height
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
		a.wheel(msg.Mouse())
		return a, nil
	case tea.FocusMsg:
		a.termBlurred = false
		return a, nil
	case tea.BlurMsg:
		a.termBlurred = true
		return a, nil
	case tickMsg:
		a.ticking = false
		a.setNow(time.Time(msg))
		return a, a.ensureTick()
	case eventsMsg:
		return a, a.applyEvents(msg)
	case resyncMsg:
		a.applySnapshot(core.Snapshot(msg))
		return a, a.reloadTabs()
	case files.Loaded:
		a.files.Apply(msg)
		return a, nil
	case files.Changes:
		a.fileChanges(msg)
		return a, nil
	}
	return a, a.handleResult(msg)
}

// setNow moves the studio's clock.
func (a *App) setNow(t time.Time) {
	if a.opts.Now != nil {
		t = a.opts.Now()
	}
	a.now = t
	a.sessions.SetNow(t)
	a.actions.SetNow(t)
	for _, tb := range a.tabs {
		if st, ok := tb.(*sessionTab); ok {
			st.SetNow(t)
		}
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
	for _, it := range a.open {
		if it.Kind == sess.Park && it.Deadline != nil {
			return true
		}
	}
	return false
}

// setStatus shows a message in the status line; errors stand out.
func (a *App) setStatus(text string, isErr bool) { a.status, a.statusErr = text, isErr }
