package tui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/attach"
	eterm "github.com/atelier-studio/atelier/terminal"
	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/terminal"
)

// Terminals that outlive the studio. Attached to a host, the studio's
// terminal tabs are programs the host owns (attach.Terminals): quitting
// detaches from them, and the next studio finds them still running and
// opens a tab for each, their scrollback replayed, as tmux's sessions
// come back. In-process, a terminal is the studio's own and ends with it.

// keeper returns the engine's terminals when the host keeps them.
func (a *App) keeper() (attach.Terminals, bool) {
	if !a.opts.Attached {
		return nil, false
	}
	t, ok := a.eng.(attach.Terminals)
	return t, ok
}

// hostShells starts programs the host keeps: in a session's environment,
// or in the workspace without one.
type hostShells struct {
	terms   attach.Terminals
	session string
	name    string
}

func (h hostShells) Shell(ctx context.Context, size eterm.Size, command []string) (eterm.PTY, error) {
	return h.terms.Shell(ctx, h.session, h.name, size, command)
}

// keptShell attaches to a terminal the host kept running.
type keptShell struct {
	terms attach.Terminals
	id    string
}

func (k keptShell) Shell(ctx context.Context, size eterm.Size, _ []string) (eterm.PTY, error) {
	return k.terms.Attach(ctx, k.id, size)
}

// keptTerminalsMsg lists the terminals the host kept running.
type keptTerminalsMsg struct {
	list []attach.Terminal
	err  error
}

// keptWait bounds how long a studio that has just started its host waits
// for it to answer the list of kept terminals (a new host keeps none).
const keptWait = 10 * time.Second

// keptTerminals asks the host, once it answers, which terminals it kept
// running for the studio; nothing in-process.
func (a *App) keptTerminals() tea.Cmd {
	terms, ok := a.keeper()
	if !ok {
		return nil
	}
	return func() tea.Msg {
		// Running waits for the host the studio has just started.
		ctx, cancel := context.WithTimeout(context.Background(), keptWait)
		defer cancel()
		list, err := terms.Running(ctx)
		return keptTerminalsMsg{list: list, err: err}
	}
}

// openedOwn counts a terminal this studio opened on the host as started
// (or failed) and, once none is opening, reattaches the kept terminals
// whose list came meanwhile: by then every tab of its own knows its id.
func (a *App) openedOwn(msg terminal.Started) tea.Cmd {
	if msg.Reattached || a.termsOpening == 0 {
		return nil
	}
	a.termsOpening--
	if a.termsOpening > 0 || a.keptLater == nil {
		return nil
	}
	later := *a.keptLater
	a.keptLater = nil
	return a.reattach(later)
}

// reattach opens a tab for each kept terminal no tab shows yet.
func (a *App) reattach(msg keptTerminalsMsg) tea.Cmd {
	if msg.err != nil {
		a.log("", "the host's terminals could not be listed: "+msg.err.Error(), themes.ToneWarning)
		return nil
	}
	terms, ok := a.keeper()
	if !ok {
		return nil
	}
	open := map[string]bool{}
	for _, tt := range a.tabs.terminals() {
		open[tt.HostID()] = true
	}
	var cmds []tea.Cmd
	for _, t := range msg.list {
		if open[t.ID] {
			continue
		}
		name := t.Name
		if name == "" {
			name = "terminal " + t.ID
		}
		a.nextID++
		cmds = append(cmds, terminal.Reattach(keptShell{terms, t.ID}, a.st, a.nextID, name, a.termSize()))
	}
	return tea.Batch(cmds...)
}
