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
func (wp *workPart) keeper() (attach.Terminals, bool) {
	if !wp.opts.Attached {
		return nil, false
	}
	t, ok := wp.eng.(attach.Terminals)
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
func (wp *workPart) keptTerminals() tea.Cmd {
	terms, ok := wp.keeper()
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
func (wp *workPart) openedOwn(msg terminal.Started) tea.Cmd {
	if msg.Reattached || wp.termsOpening == 0 {
		return nil
	}
	wp.termsOpening--
	if wp.termsOpening > 0 || wp.keptLater == nil {
		return nil
	}
	later := *wp.keptLater
	wp.keptLater = nil
	return wp.reattach(later)
}

// reattach opens a tab for each kept terminal no tab shows yet.
func (wp *workPart) reattach(msg keptTerminalsMsg) tea.Cmd {
	if msg.err != nil {
		wp.act.log("", "the host's terminals could not be listed: "+msg.err.Error(), themes.ToneWarning)
		return nil
	}
	terms, ok := wp.keeper()
	if !ok {
		return nil
	}
	open := map[string]bool{}
	for _, tt := range wp.tabs.terminals() {
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
		wp.nextID++
		cmds = append(cmds, terminal.Reattach(keptShell{terms, t.ID}, wp.st, wp.nextID, name, wp.r.termSize()))
	}
	return tea.Batch(cmds...)
}
