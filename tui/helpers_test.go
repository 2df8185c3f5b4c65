package tui

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/attach"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/tui/keys"
)

// clock is a test clock that moves only when told.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 3, 4, 9, 30, 0, 0, time.Local)} }

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

// step returns a clock that advances a second per reading, so records
// created in a row sort in that order.
func (c *clock) step() func() time.Time {
	return func() time.Time {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.t = c.t.Add(time.Second)
		return c.t
	}
}

// harnessT drives an App the way the program would, without a terminal.
type harnessT struct {
	t    *testing.T
	app  *App
	eng  *core.Engine
	quit bool
	raw  []string
	// clip is what the studio put on the clipboard (tea.SetClipboard).
	clip []string
}

// clipboardText reads the message of tea.SetClipboard, whose type Bubble
// Tea keeps to itself: a string kind named setClipboardMsg.
func clipboardText(msg tea.Msg) (string, bool) {
	v := reflect.ValueOf(msg)
	if v.Kind() != reflect.String || v.Type().Name() != "setClipboardMsg" {
		return "", false
	}
	return v.String(), true
}

type engineOpt func(*core.Options)

func newHarness(t *testing.T, ws string, w, h int, opts ...engineOpt) *harnessT {
	t.Helper()
	return newHarnessOn(t, ws, w, h, attach.Local, opts...)
}

// newHarnessOn is newHarness with the studio's seam to the engine made by
// seam (attach.Local, or attach.LocalHost with what a host runs beside).
func newHarnessOn(t *testing.T, ws string, w, h int, seam func(*core.Engine) attach.Engine, opts ...engineOpt) *harnessT {
	t.Helper()
	eo := core.Options{Agents: core.DemoResolver{Demo: &harness.Demo{Wait: 50 * time.Millisecond}}}
	for _, o := range opts {
		o(&eo)
	}
	eng, err := core.Open(ws, eo)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeEngine(t, eng) })
	app, err := New(Options{Engine: seam(eng), NoColor: true, Workspace: "/work/space"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(app.Close)
	hs := &harnessT{t: t, app: app, eng: eng}
	hs.run(app.Init())
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	return hs
}

// send delivers a message and runs what it returns. The run log's poll
// ticks at once (the harness drops the tick, which ends the poll).
func (h *harnessT) send(msg tea.Msg) {
	h.t.Helper()
	h.app.set.runLogEvery = time.Millisecond
	h.app.status.fade = 0 // the harness runs a timer's command at once: a message fades only where a test asks
	_, cmd := h.app.Update(msg)
	h.run(cmd)
}

// run executes a command and feeds its messages back, like the program.
// Ticks are dropped (tests move time themselves).
func (h *harnessT) run(cmd tea.Cmd) {
	h.t.Helper()
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case nil, tickMsg, runLogTick:
	case tea.BatchMsg:
		for _, c := range msg {
			h.run(c)
		}
	case tea.QuitMsg:
		h.quit = true
	case tea.RawMsg:
		h.raw = append(h.raw, msg.Msg.(string))
	default:
		if text, ok := clipboardText(msg); ok {
			h.clip = append(h.clip, text) // the program writes it out as OSC 52
			return
		}
		h.send(msg)
	}
}

// press types keys: single characters, or names like "enter", "tab".
func (h *harnessT) press(keys ...string) {
	h.t.Helper()
	for _, k := range keys {
		h.send(keyMsg(k))
	}
}

// typeText types every rune of s.
func (h *harnessT) typeText(s string) {
	h.t.Helper()
	for _, r := range s {
		h.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func keyMsg(k string) tea.KeyPressMsg {
	special := map[string]tea.KeyPressMsg{
		"enter": {Code: tea.KeyEnter}, "tab": {Code: tea.KeyTab}, "shift+tab": {Code: tea.KeyTab, Mod: tea.ModShift},
		"esc": {Code: tea.KeyEscape}, "up": {Code: tea.KeyUp}, "down": {Code: tea.KeyDown},
		"ctrl+c": {Code: 'c', Mod: tea.ModCtrl}, "ctrl+w": {Code: 'w', Mod: tea.ModCtrl}, "space": {Code: tea.KeySpace, Text: " "},
	}
	if m, ok := special[k]; ok {
		return m
	}
	if len([]rune(k)) > 1 {
		return keys.Press(k)
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

// pump applies the engine's pending events.
func (h *harnessT) pump(wait time.Duration) bool {
	h.t.Helper()
	select {
	case <-h.app.sub.Ready():
		evs := h.app.sub.Drain()
		if len(evs) == 1 && evs[0].Kind == core.EvResync {
			h.send(resyncMsg(h.app.eng.Snapshot()))
		} else {
			h.send(eventsMsg(evs))
		}
		return true
	case <-time.After(wait):
		return false
	}
}

// until pumps events until cond holds.
func (h *harnessT) until(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			h.t.Fatalf("timed out waiting for %s; screen:\n%s", what, h.screen())
		}
		h.pump(50 * time.Millisecond)
	}
}

// screen is the rendered studio without styles.
func (h *harnessT) screen() string { return ansi.Strip(h.app.Render()) }

func writeFiles(t *testing.T, root string, paths ...string) {
	t.Helper()
	for _, p := range paths {
		full := filepath.Join(root, p)
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
		} else {
			writeFile(t, full, "x\n")
		}
	}
}

// writeFile writes data to path, making the folders above it.
func writeFile(t testing.TB, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// closeEngine closes eng, failing the test or benchmark if Close fails.
func closeEngine(t testing.TB, eng *core.Engine) {
	t.Helper()
	if err := eng.Close(); err != nil {
		t.Error(err)
	}
}
