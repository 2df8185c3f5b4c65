package screen

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/vt"

	"github.com/atelier-studio/atelier/terminal"
)

// Key is a key press to send to the program. It has the fields of Bubble
// Tea's tea.Key, so the studio converts one with Key(msg.Key()).
type Key = uv.Key

// Defaults of Options.
const (
	DefaultScrollback = 2000
	DefaultMaxFPS     = 60
)

// Options configure a Screen.
type Options struct {
	// Size is the initial size; the pty is set to it.
	Size terminal.Size
	// Scrollback caps the lines kept above the screen; zero means
	// DefaultScrollback.
	Scrollback int
	// MaxFPS caps frames per second; zero means DefaultMaxFPS.
	MaxFPS int
	// OnFrame, when set, is called (from the screen's goroutine) after each
	// new frame; it must not block. Updates offers the same as a channel.
	OnFrame func()
}

// Frame is one drawn state of the visible screen. Frames are immutable.
type Frame struct {
	// Lines are the rows, each exactly Cols cells wide, with SGR styles.
	Lines []string
	Cols  int
	Rows  int
	// CursorX and CursorY place the cursor; CursorVisible says whether the
	// program shows it (full-screen programs often hide it).
	CursorX, CursorY int
	CursorVisible    bool
	// AltScreen is set while the program uses the alternate screen.
	AltScreen bool
	// Title is the window title the program set, if any.
	Title string
	// Seq counts frames; a view redraws only when it changes.
	Seq uint64
}

// Screen is a terminal screen fed by a pty. Render, Frame and Updates are
// cheap and safe to call from the UI goroutine; the other methods are safe
// for concurrent use.
type Screen struct {
	pty      terminal.PTY
	interval time.Duration
	onFrame  func()

	mu    sync.Mutex // guards em and title
	em    *vt.Emulator
	title string

	frame   atomic.Pointer[Frame]
	dirty   atomic.Bool
	kick    chan struct{} // wakes the framer
	updates chan struct{}
	input   *queue

	done      chan struct{} // the pty's output ended
	stop      chan struct{} // Close was called
	closeOnce sync.Once
	wg        sync.WaitGroup
	readErr   error
}

// New starts a screen on p. The screen owns p from now on: Close closes it.
func New(p terminal.PTY, opts Options) (*Screen, error) {
	if !opts.Size.Valid() {
		return nil, fmt.Errorf("screen: %w: size %dx%d", terminal.ErrBadRequest, opts.Size.Cols, opts.Size.Rows)
	}
	if opts.Scrollback <= 0 {
		opts.Scrollback = DefaultScrollback
	}
	if opts.MaxFPS <= 0 {
		opts.MaxFPS = DefaultMaxFPS
	}
	s := &Screen{
		pty:      p,
		interval: time.Second / time.Duration(opts.MaxFPS),
		onFrame:  opts.OnFrame,
		em:       vt.NewEmulator(opts.Size.Cols, opts.Size.Rows),
		kick:     make(chan struct{}, 1),
		updates:  make(chan struct{}, 1),
		input:    newQueue(),
		done:     make(chan struct{}),
		stop:     make(chan struct{}),
	}
	s.em.SetScrollbackSize(opts.Scrollback)
	s.em.SetCallbacks(vt.Callbacks{Title: func(t string) { s.title = t }})
	s.frame.Store(s.draw(0))
	if err := p.Resize(opts.Size); err != nil {
		return nil, fmt.Errorf("screen: %w", err)
	}
	s.wg.Add(4)
	go s.readLoop()
	go s.replyLoop()
	go s.writeLoop()
	go s.frameLoop()
	return s, nil
}

// Render returns the latest frame's lines joined by newlines.
func (s *Screen) Render() string {
	return strings.Join(s.frame.Load().Lines, "\n")
}

// Frame returns the latest frame.
func (s *Screen) Frame() *Frame { return s.frame.Load() }

// Updates receives a value after new frames (several frames may share one),
// for a UI loop to wait on.
func (s *Screen) Updates() <-chan struct{} { return s.updates }

// Done is closed when the program's output ended (it exited).
func (s *Screen) Done() <-chan struct{} { return s.done }

// Err is what ended the output: nil for a normal end of file.
func (s *Screen) Err() error {
	select {
	case <-s.done:
		return s.readErr
	default:
		return nil
	}
}

// SendKey types a key, encoded for the modes the program set.
func (s *Screen) SendKey(k Key) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.em.SendKey(vt.KeyPressEvent(k))
}

// SendText types text as is.
func (s *Screen) SendText(text string) {
	s.input.push([]byte(text))
}

// Paste pastes text, bracketed when the program asked for bracketed paste.
func (s *Screen) Paste(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.em.Paste(text)
}

// Resize resizes the screen and the pty behind it.
func (s *Screen) Resize(size terminal.Size) error {
	if !size.Valid() {
		return fmt.Errorf("screen resize: %w: size %dx%d", terminal.ErrBadRequest, size.Cols, size.Rows)
	}
	s.mu.Lock()
	s.em.Resize(size.Cols, size.Rows)
	s.mu.Unlock()
	s.changed()
	if err := s.pty.Resize(size); err != nil {
		return fmt.Errorf("screen resize: %w", err)
	}
	return nil
}

// ScrollbackLen is the number of lines kept above the screen.
func (s *Screen) ScrollbackLen() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.em.ScrollbackLen()
}

// RenderScrolled renders the screen as seen scrolled back by offset lines
// (0 is the live screen), for a view the user scrolls up.
func (s *Screen) RenderScrolled(offset int) string {
	if offset <= 0 {
		return s.Render()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sb := s.em.Scrollback().Lines()
	offset = min(offset, len(sb))
	rows := s.em.Height()
	lines := make([]string, 0, rows)
	for _, l := range sb[len(sb)-offset:] {
		if len(lines) == rows {
			break
		}
		lines = append(lines, l.Render())
	}
	var row uv.Line
	for y := 0; len(lines) < rows; y++ {
		row = s.line(row, y)
		lines = append(lines, row.Render())
	}
	return strings.Join(lines, "\n")
}

// Close hangs up the pty and stops the screen's goroutines.
func (s *Screen) Close() error {
	var err error
	s.closeOnce.Do(func() {
		close(s.stop)
		err = s.pty.Close()
		if pw, ok := s.em.InputPipe().(*io.PipeWriter); ok {
			_ = pw.Close() // always nil for an io.PipeWriter
		}
		s.input.close()
		s.wg.Wait()
	})
	return err
}

// feed parses program output.
func (s *Screen) feed(b []byte) {
	s.mu.Lock()
	_, _ = s.em.Write(b)
	s.mu.Unlock()
	s.changed()
}

func (s *Screen) changed() {
	s.dirty.Store(true)
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

func (s *Screen) readLoop() {
	defer s.wg.Done()
	buf := make([]byte, 64<<10)
	for {
		n, err := s.pty.Read(buf)
		if n > 0 {
			s.feed(buf[:n])
		}
		if err != nil {
			select {
			case <-s.stop: // closed by us: not the program's failure
			default:
				if !errors.Is(err, io.EOF) {
					s.readErr = err
				}
			}
			close(s.done)
			s.changed()
			return
		}
	}
}

// replyLoop drains what the emulator sends to the program (keys, pastes,
// answers to the program's queries) into the input queue, so the parser
// never blocks on a reply.
func (s *Screen) replyLoop() {
	defer s.wg.Done()
	buf := make([]byte, 4096)
	for {
		n, err := s.em.Read(buf)
		if n > 0 {
			s.input.push(append([]byte(nil), buf[:n]...))
		}
		if err != nil {
			return
		}
	}
}

// writeLoop writes queued input to the pty.
func (s *Screen) writeLoop() {
	defer s.wg.Done()
	for {
		b, ok := s.input.pop()
		if !ok {
			return
		}
		if _, err := s.pty.Write(b); err != nil {
			s.input.close()
			return
		}
	}
}

// frameLoop draws a frame when something changed, at most once per
// interval, and tells the UI when the frame differs from the last.
func (s *Screen) frameLoop() {
	defer s.wg.Done()
	var last time.Time
	for {
		select {
		case <-s.kick:
		case <-s.stop:
			return
		}
		if wait := time.Until(last.Add(s.interval)); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-s.stop:
				t.Stop()
				return
			}
		}
		if !s.dirty.Swap(false) {
			continue
		}
		last = time.Now()
		prev := s.frame.Load()
		next := s.draw(prev.Seq + 1)
		if next.same(prev) {
			continue
		}
		s.frame.Store(next)
		select {
		case s.updates <- struct{}{}:
		default:
		}
		if s.onFrame != nil {
			s.onFrame()
		}
	}
}
