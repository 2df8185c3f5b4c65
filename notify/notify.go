package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"
)

// Kinds of Event.
const (
	KindApproval = "approval" // an approval was asked
	KindQuestion = "question" // a question was asked
	KindStuck    = "stuck"    // the watchdog reported a session stuck
	KindTest     = "test"     // the operator asked for a test
)

// Event is one notification. Its JSON is what a command reads on its
// standard input.
type Event struct {
	// Kind is KindApproval, KindQuestion, KindStuck or KindTest.
	Kind string `json:"kind"`
	// Workspace is the workspace's absolute path.
	Workspace string `json:"workspace"`
	// SessionID and Title name the session (empty for a test).
	SessionID string `json:"session_id,omitempty"`
	Title     string `json:"title,omitempty"`
	// InteractionID is the approval's, question's or stuck report's id:
	// `atelier sessions approve SESSION INTERACTION` answers it.
	InteractionID string `json:"interaction_id,omitempty"`
	// Summary is what is asked: the command or path of an approval, the
	// question, why the session is stuck. Redacted, one line, cut short.
	Summary string `json:"summary"`
	// Time is when it was asked.
	Time time.Time `json:"time"`
	// Act is the command line that opens the studio on the workspace,
	// where it can be answered.
	Act string `json:"act"`
}

// Settings are what the configuration says ([notify] in config.toml).
type Settings struct {
	// Command, when set, runs once per event with its JSON on stdin.
	Command []string
	// Desktop is "on", "off" or "auto" (notify-send when it is on PATH and
	// a desktop session is there); "" is "off".
	Desktop string
	// Events are the kinds notified; a test goes through whatever they are.
	Events []string
	// Timeout bounds one run of a channel; zero means DefaultTimeout.
	Timeout time.Duration
}

// DefaultTimeout bounds a channel's run when Settings.Timeout is zero.
const DefaultTimeout = 10 * time.Second

// DefaultCloseGrace bounds how long Close sends what is still queued when
// Options.CloseGrace is zero.
const DefaultCloseGrace = 5 * time.Second

// QueueSize is how many events may wait for the channels; more are dropped.
const QueueSize = 32

// maxOutput is how much of a channel's output the log keeps.
const maxOutput = 1 << 10

// Options configure a Notifier.
type Options struct {
	Settings
	// Logf receives what the channels did and why they failed; nil drops it.
	Logf func(format string, args ...any)
	// CloseGrace bounds how long Close goes on sending what is queued;
	// zero means DefaultCloseGrace.
	CloseGrace time.Duration
	// Getenv reads the environment that tells whether a desktop session is
	// there (DISPLAY, WAYLAND_DISPLAY, DBUS_SESSION_BUS_ADDRESS); nil means
	// os.Getenv. The channels' programs run with the process environment.
	Getenv func(string) string
}

// Notifier sends events through the channels. Its methods are safe from
// any goroutine.
type Notifier struct {
	opts  Options
	queue chan Event
	done  chan struct{}
	// ctx ends CloseGrace after Close: the run in flight is cut and the
	// events still queued are dropped.
	ctx  context.Context
	stop context.CancelFunc

	mu     sync.Mutex
	closed bool
}

// New returns a notifier and starts its goroutine; Close stops it.
func New(opts Options) *Notifier {
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	opts.Command = slices.Clone(opts.Command)
	opts.Events = slices.Clone(opts.Events)
	if opts.CloseGrace <= 0 {
		opts.CloseGrace = DefaultCloseGrace
	}
	ctx, stop := context.WithCancel(context.Background())
	n := &Notifier{opts: opts, queue: make(chan Event, QueueSize), done: make(chan struct{}), ctx: ctx, stop: stop}
	go n.run()
	return n
}

// Wants reports whether events of kind are notified: the settings list
// the kind and a channel is configured.
func (n *Notifier) Wants(kind string) bool {
	return slices.Contains(n.opts.Events, kind) && n.configured()
}

func (n *Notifier) configured() bool {
	return len(n.opts.Command) > 0 || n.opts.Desktop == "on" || n.opts.Desktop == "auto"
}

// Post queues an event for the channels without waiting; it reports false
// when the event was dropped (the queue is full, or the notifier closed),
// which the log says too.
func (n *Notifier) Post(ev Event) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return false
	}
	select {
	case n.queue <- ev:
		return true
	default:
		n.opts.Logf("notify: dropped the %s of session %s: %d notifications are already waiting", ev.Kind, ev.SessionID, QueueSize)
		return false
	}
}

// Close stops taking events and waits until the queued ones are sent, for
// at most CloseGrace: then the run in flight is cut and what is left is
// dropped, counted in the log.
func (n *Notifier) Close() {
	n.mu.Lock()
	if !n.closed {
		n.closed = true
		close(n.queue)
	}
	n.mu.Unlock()
	t := time.AfterFunc(n.opts.CloseGrace, n.stop)
	<-n.done
	t.Stop()
	n.stop()
}

func (n *Notifier) run() {
	defer close(n.done)
	dropped := 0
	for ev := range n.queue {
		if n.ctx.Err() != nil {
			dropped++
			continue
		}
		for _, r := range n.send(n.ctx, ev) {
			if r.Error != "" {
				n.opts.Logf("notify: the %s channel failed on the %s of session %s: %s", r.Channel, ev.Kind, ev.SessionID, r.Error)
			} else {
				n.opts.Logf("notify: told of the %s %s of session %s through the %s channel", ev.Kind, ev.InteractionID, ev.SessionID, r.Channel)
			}
		}
	}
	if dropped > 0 {
		n.opts.Logf("notify: closing: %d notification(s) not sent", dropped)
	}
}

// Channel is a configured channel as the settings tab lists it.
type Channel struct {
	// Name is "desktop" or "command".
	Name string `json:"name"`
	// Detail says what it runs: notify-send's path, the command line.
	Detail string `json:"detail"`
	// Ready says whether events go through it now; Note says why not.
	Ready bool   `json:"ready"`
	Note  string `json:"note,omitempty"`
}

// Status is the notifier's configuration as it applies now.
type Status struct {
	// Events are the kinds notified.
	Events []string `json:"events"`
	// Channels are the configured channels (none: nothing is notified).
	Channels []Channel `json:"channels"`
	// Timeout bounds one run of a channel.
	Timeout string `json:"timeout"`
}

// Result is how one channel fared with an event.
type Result struct {
	Channel string `json:"channel"`
	// Error is why it failed, or "" when it was sent.
	Error string `json:"error,omitempty"`
}

// Status lists the channels and whether each is ready. It looks on PATH.
func (n *Notifier) Status() Status {
	st := Status{Events: slices.Clone(n.opts.Events), Channels: []Channel{}, Timeout: n.opts.Timeout.String()}
	if st.Events == nil {
		st.Events = []string{}
	}
	if d, ok := n.desktopChannel(); ok {
		st.Channels = append(st.Channels, d)
	}
	if len(n.opts.Command) > 0 {
		c := Channel{Name: "command", Detail: strings.Join(n.opts.Command, " "), Ready: true}
		if _, err := exec.LookPath(n.opts.Command[0]); err != nil {
			c.Ready, c.Note = false, err.Error()
		}
		st.Channels = append(st.Channels, c)
	}
	return st
}

// Test sends a test event through every configured channel now and says
// how each fared; ev's Kind is set to KindTest. It waits for the channels
// (each bounded by the timeout, or sooner by ctx).
func (n *Notifier) Test(ctx context.Context, ev Event) []Result {
	ev.Kind = KindTest
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	if ev.Summary == "" {
		ev.Summary = "a test of the notification channels: nothing waits on you"
	}
	return n.send(ctx, ev)
}

// send runs every ready channel on ev, one after the other.
func (n *Notifier) send(ctx context.Context, ev Event) []Result {
	out := []Result{}
	if d, ok := n.desktopChannel(); ok {
		r := Result{Channel: d.Name}
		switch {
		case d.Ready:
			r.Error = errText(n.desktop(ctx, d.Detail, ev))
		case n.opts.Desktop == "on" || ev.Kind == KindTest:
			r.Error = d.Note
		default:
			r = Result{} // auto, and no desktop here: not a failure
		}
		if r.Channel != "" {
			out = append(out, r)
		}
	}
	if len(n.opts.Command) > 0 {
		out = append(out, Result{Channel: "command", Error: errText(n.command(ctx, ev))})
	}
	return out
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// desktopChannel is the desktop channel as it stands, ok false when the
// settings turn it off.
func (n *Notifier) desktopChannel() (Channel, bool) {
	if n.opts.Desktop != "on" && n.opts.Desktop != "auto" {
		return Channel{}, false
	}
	c := Channel{Name: "desktop", Detail: "notify-send"}
	path, err := exec.LookPath("notify-send")
	switch {
	case err != nil:
		c.Note = "notify-send is not on PATH"
	case !n.hasDesktop():
		c.Detail = path
		c.Note = "no desktop session here (DISPLAY, WAYLAND_DISPLAY and DBUS_SESSION_BUS_ADDRESS are unset)"
	default:
		c.Detail, c.Ready = path, true
	}
	if n.opts.Desktop == "auto" && !c.Ready {
		c.Note += `; desktop = "auto" leaves it off`
	}
	return c, true
}

func (n *Notifier) hasDesktop() bool {
	for _, v := range []string{"DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS"} {
		if n.opts.Getenv(v) != "" {
			return true
		}
	}
	return false
}

// desktop shows ev with notify-send at path.
func (n *Notifier) desktop(ctx context.Context, path string, ev Event) error {
	title, body := Text(ev)
	urgency := "normal"
	if ev.Kind == KindStuck {
		urgency = "critical"
	}
	// "--" ends the options: a title or summary starting with "-" is text.
	return n.run1(ctx, []string{path, "--app-name=Atelier", "--urgency=" + urgency, "--", title, body}, nil)
}

// command runs the configured command with ev's JSON on its stdin.
func (n *Notifier) command(ctx context.Context, ev Event) error {
	b, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("encode the event: %w", err)
	}
	return n.run1(ctx, n.opts.Command, append(b, '\n'))
}

// run1 runs one program to its end within the timeout; its output goes
// to the log, cut short.
func (n *Notifier) run1(ctx context.Context, argv []string, stdin []byte) error {
	ctx, cancel := context.WithTimeout(ctx, n.opts.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	if stdin != nil {
		cmd.Stdin = strings.NewReader(string(stdin))
	}
	out := &capped{max: maxOutput}
	cmd.Stdout, cmd.Stderr = out, out
	// A program that leaves a child holding its output does not hold us.
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("%s did not finish within %s", argv[0], n.opts.Timeout)
	} else if err != nil {
		err = fmt.Errorf("%s: %w", argv[0], err)
	}
	if text := strings.TrimSpace(out.String()); text != "" {
		n.opts.Logf("notify: %s said: %s", argv[0], oneLine(text, maxOutput))
	}
	return err
}

// capped keeps the first max bytes written to it.
type capped struct {
	max int
	b   []byte
	cut bool
}

func (c *capped) Write(p []byte) (int, error) {
	room := c.max - len(c.b)
	if len(p) > room {
		c.b, c.cut = append(c.b, p[:max(room, 0)]...), true
	} else {
		c.b = append(c.b, p...)
	}
	return len(p), nil
}

func (c *capped) String() string {
	if c.cut {
		return string(c.b) + "…"
	}
	return string(c.b)
}
