package terminal

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	eterm "github.com/atelier-studio/atelier/terminal"
	"github.com/atelier-studio/atelier/terminal/screen"
	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/frame"
	"github.com/atelier-studio/atelier/tui/keys"
)

// Shells starts programs on a pty: an execution environment
// (terminal.Local on the host, a session's container).
type Shells interface {
	Shell(ctx context.Context, size eterm.Size, command []string) (eterm.PTY, error)
}

// KeyMap is the keys the tab keeps for itself; every other key goes to the
// program.
type KeyMap struct{ ScrollUp, ScrollDown, CloseExited, CopyMode key.Binding }

// DefaultKeyMap returns the tab's own keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		ScrollUp:    keys.New("scroll back through the output", "shift+pgup"),
		ScrollDown:  keys.New("scroll forward", "shift+pgdown"),
		CloseExited: keys.New("close the tab once the program has ended", "enter"),
		// The program has every other key, so copy mode is entered with
		// the keys released: ctrl+] then [, as tmux's prefix then [.
		CopyMode: keys.New("with the keys released (ctrl+]): copy mode, to select and copy from the screen and its scrollback", "["),
	}
}

// Scope returns the keymap as data for help and docs.
func (k KeyMap) Scope() keys.Scope {
	return keys.Scope{Name: "Terminal tab", About: "A shell in the workspace (`T` opens one on the host, `t` in a session's tab one in the session's environment — its container for a Docker session; `ctrl+o` in the editor runs $EDITOR in one). " +
		"A focused terminal passes every key to its program, `ctrl+c` and `esc` included, except `ctrl+]`, which gives the keys back to the studio. " +
		"The mouse wheel scrolls back. In copy mode (`ctrl+]` then `[`) the view holds still while the program goes on, and the keys are fixed: " +
		"arrows or `h` `j` `k` `l`, `w` `b` (words), `0` `$` (line), `g` `G` (top, bottom), `pgup` `pgdown` move the cursor over the screen and its scrollback; " +
		"`v` starts a selection, `V` a selection of whole lines; `y` or `enter` copies it to the clipboard (OSC 52); `esc` or `q` leaves. Attached to the workspace's host, a terminal outlives the studio: quitting leaves it running in the host (closing its tab ends it), and the next studio opens its tab again.",
		Bindings: []key.Binding{k.ScrollUp, k.ScrollDown, k.CloseExited, k.CopyMode}, TakesKeys: true}
}

// Messages of a terminal tab.
type (
	// Started answers Start: the tab, or why the program did not start.
	Started struct {
		ID   int
		Name string
		Tab  *Tab
		Err  error
		// Reattached says the tab is a terminal the host kept running
		// while no studio was open (Reattach): it opens without taking
		// the keys.
		Reattached bool
	}
	// Updated says the tab's screen has a new frame.
	Updated struct{ ID int }
	// Exited says the tab's program ended.
	Exited struct {
		ID   int
		Code int
		Err  error
	}
)

// Close asks the root to close the tab.
type Close struct{ ID int }

// Start runs command (the environment's shell when empty) on a pty of the
// given size and answers Started. name is the tab's label until the
// program sets a title.
func Start(env Shells, st themes.Styles, id int, name string, size eterm.Size, command []string) tea.Cmd {
	return launch(env, st, id, name, size, command, false)
}

// Reattach is Start for a program that already runs: env attaches to it
// (its Shell ignores the command), and Started says Reattached.
func Reattach(env Shells, st themes.Styles, id int, name string, size eterm.Size) tea.Cmd {
	return launch(env, st, id, name, size, nil, true)
}

func launch(env Shells, st themes.Styles, id int, name string, size eterm.Size, command []string, again bool) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithCancel(context.Background())
		p, err := env.Shell(ctx, size, command)
		if err != nil {
			cancel()
			return Started{ID: id, Name: name, Err: fmt.Errorf("start %s: %w", name, err)}
		}
		scr, err := screen.New(p, screen.Options{Size: size})
		if err != nil {
			cancel()
			_ = p.Close() // best effort: the screen's error is the one to report
			return Started{ID: id, Name: name, Err: fmt.Errorf("start %s: %w", name, err)}
		}
		t := &Tab{keys: DefaultKeyMap(), id: id, st: st, name: name, scr: scr, pty: p, cancel: cancel,
			closed: make(chan struct{}), w: size.Cols, h: size.Rows}
		return Started{ID: id, Name: name, Tab: t, Reattached: again}
	}
}

// Tab is one terminal tab.
type Tab struct {
	keys    KeyMap
	id      int
	st      themes.Styles
	name    string
	scr     *screen.Screen
	pty     eterm.PTY
	cancel  context.CancelFunc
	closed  chan struct{}
	w, h    int
	back    int // lines scrolled back; 0 is the live screen
	copy    *copyMode
	focused bool
	exited  bool
	code    int
	err     error
}

// ID returns the id the root gave the tab.
func (t *Tab) ID() int { return t.id }

// KeyMap returns the tab's own keys.
func (t *Tab) KeyMap() KeyMap { return t.keys }

// SetKeyMap replaces the keys (the configuration's overrides).
func (t *Tab) SetKeyMap(k KeyMap) { t.keys = k }

// SetStyles changes the styles (the theme changed).
func (t *Tab) SetStyles(st themes.Styles) { t.st = st }

// Wait returns the command that waits for the screen's next frame or the
// program's end. The root runs it again after each Updated.
func (t *Tab) Wait() tea.Cmd {
	if t.exited {
		return nil
	}
	scr, closed, p, id := t.scr, t.closed, t.pty, t.id
	return func() tea.Msg {
		select {
		case <-scr.Updates():
			return Updated{ID: id}
		case <-scr.Done():
			// The program's last output may still be on its way to a
			// frame (frames are drawn at most 60 times a second).
			select {
			case <-scr.Updates():
			case <-time.After(100 * time.Millisecond):
			}
			code, err := p.Wait()
			if err == nil {
				err = scr.Err()
			}
			return Exited{ID: id, Code: code, Err: err}
		case <-closed:
			return nil
		}
	}
}

// Exit records the program's end.
func (t *Tab) Exit(msg Exited) { t.exited, t.code, t.err = true, msg.Code, msg.Err }

// Exited reports whether the program ended.
func (t *Tab) Exited() bool { return t.exited }

// Title is what the program calls itself (its OSC 0/2 title), or the name
// it was started with.
func (t *Tab) Title() string {
	if f := t.scr.Frame(); f != nil && strings.TrimSpace(f.Title) != "" {
		return f.Title
	}
	return t.name
}

// Label is the tab's label.
func (t *Tab) Label(width int) string {
	mark := "$ "
	if t.exited {
		mark = "✓ "
		if t.code != 0 || t.err != nil {
			mark = "✗ "
		}
	}
	return ansi.Truncate(mark+t.Title(), width, "…")
}

// SetSize sets the inside size and resizes the pty to it (the program
// sees SIGWINCH).
func (t *Tab) SetSize(w, h int) {
	if w == t.w && h == t.h || w <= 0 || h <= 0 {
		return
	}
	t.w, t.h = w, h
	if !t.exited {
		_ = t.scr.Resize(eterm.Size{Cols: w, Rows: h})
	}
}

// Focus gives the tab the keys.
func (t *Tab) Focus() { t.focused = true }

// Blur takes them away.
func (t *Tab) Blur() { t.focused = false }

// Scroll moves through the scrollback by n lines (the mouse wheel).
func (t *Tab) Scroll(n int) {
	t.back = min(max(t.back-n, 0), t.scr.ScrollbackLen())
}

// HandleKey passes a key to the program, or acts on the tab's own keys.
func (t *Tab) HandleKey(msg tea.KeyPressMsg) *Close {
	switch {
	case key.Matches(msg, t.keys.ScrollUp):
		t.Scroll(-max(t.h-1, 1))
		return nil
	case key.Matches(msg, t.keys.ScrollDown):
		t.Scroll(max(t.h-1, 1))
		return nil
	case t.exited:
		if key.Matches(msg, t.keys.CloseExited) {
			return &Close{ID: t.id}
		}
		return nil
	}
	t.back = 0
	t.scr.SendKey(screen.Key(msg.Key()))
	return nil
}

// Paste pastes text into the program (bracketed when it asked for it).
func (t *Tab) Paste(msg tea.PasteMsg) {
	if !t.exited {
		t.back = 0
		t.scr.Paste(msg.Content)
	}
}

// View returns the inside lines: the program's screen, with the cursor
// drawn while the tab has the keys.
func (t *Tab) View() []string {
	if t.copy != nil {
		return t.copyView()
	}
	var lines []string
	f := t.scr.Frame()
	if t.back > 0 {
		lines = strings.Split(t.scr.RenderScrolled(t.back), "\n")
	} else {
		lines = append(lines, f.Lines...)
		if t.focused && f.CursorVisible && !t.exited && f.CursorY >= 0 && f.CursorY < len(lines) {
			lines[f.CursorY] = withCursor(t.st, lines[f.CursorY], f.CursorX)
		}
	}
	if t.exited {
		note := "[" + t.name + " ended"
		if t.err != nil {
			note += ": " + t.err.Error()
		} else {
			note += " with exit code " + strconv.Itoa(t.code)
		}
		note += " · enter closes the tab]"
		lines = append(trimBlank(lines, t.h-1), t.st.Subtle.Render(note))
	} else if t.back > 0 {
		lines = append(lines[:min(len(lines), max(t.h-1, 0))], t.st.Subtle.Render("↑ "+strconv.Itoa(t.back)+" lines back · typing returns"))
	}
	return frame.Fit(lines, t.w, t.h)
}

// trimBlank drops blank lines at the end and keeps the last n.
func trimBlank(lines []string, n int) []string {
	end := len(lines)
	for end > 0 && strings.TrimSpace(ansi.Strip(lines[end-1])) == "" {
		end--
	}
	lines = lines[:end]
	if len(lines) > n {
		lines = lines[len(lines)-max(n, 0):]
	}
	return lines
}

// withCursor draws the cursor as a reversed cell at column x.
func withCursor(st themes.Styles, line string, x int) string {
	w := ansi.StringWidth(line)
	if x < 0 || x >= w {
		return line
	}
	cell := ansi.Strip(ansi.Cut(line, x, x+1))
	if cell == "" {
		cell = " "
	}
	return ansi.Cut(line, 0, x) + st.Cursor.Render(cell) + ansi.Cut(line, x+1, w)
}

// Close ends the program and frees the pty. It waits for the screen's
// goroutines, so the root runs it in a command.
func (t *Tab) Close() {
	select {
	case <-t.closed:
		return
	default:
	}
	close(t.closed)
	t.cancel()
	_ = t.scr.Close()
}

// detacher is a pty whose program the host keeps (attach.Detacher).
type detacher interface {
	Detach() error
	TerminalID() string
}

// Detach leaves the program running where the host keeps it and frees
// the tab, so a studio that quits does not end its terminals; for a pty
// of this process it is Close. It reports whether the program was left
// running.
func (t *Tab) Detach() bool {
	d, ok := t.pty.(detacher)
	if ok && !t.exited {
		// A failure to close the connection leaves nothing to undo: the
		// host drops a client that went away.
		_ = d.Detach()
	}
	t.Close()
	return ok && !t.exited
}

// HostID is the host's id of the tab's terminal, "" for a pty of this
// process.
func (t *Tab) HostID() string {
	if d, ok := t.pty.(detacher); ok {
		return d.TerminalID()
	}
	return ""
}
