package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/attach"
	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/harness"
	sess "github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/themes"
)

// TestDemoSessionThroughTheStudio runs the demo agent from the form to its
// end with the operator's keys only: approve the command and the write in
// Action required, take the question's default, and watch it complete.
func TestDemoSessionThroughTheStudio(t *testing.T) {
	ws := t.TempDir()
	h := newHarness(t, ws, 120, 40)
	h.newDemo("greet", "say hello")
	if h.app.dlg.dialog != nil {
		t.Fatalf("the form should close on enter:\n%s", h.screen())
	}
	h.until("streamed text", func() bool { return strings.Contains(h.screen(), "Here is my plan") })
	if h.app.scr.focus != focusCenter || h.app.tabs.len() != 1 {
		t.Fatalf("the new session's tab should open with focus (focus %d, %d tabs)", h.app.scr.focus, h.app.tabs.len())
	}
	h.until("the exec approval", func() bool { return strings.Contains(h.screen(), "$ ls -la") })
	if !strings.Contains(h.screen(), "approve?") {
		t.Errorf("the sessions list should say the session waits on an approval:\n%s", h.screen())
	}

	h.app.setFocus(focusActions)
	h.press("a")
	h.until("the question", func() bool { return strings.Contains(h.screen(), "t take hello") })
	if !strings.Contains(h.screen(), "you: allowed once exec `ls -la`") {
		t.Errorf("the decision should be logged in the activity stream:\n%s", h.screen())
	}
	h.press("t")
	h.until("the write approval", func() bool { return strings.Contains(h.screen(), harness.DemoFile+" (+5 -0)") })
	if !strings.Contains(h.screen(), "+The task was: say hello") {
		t.Errorf("a write approval shows its diff first:\n%s", h.screen())
	}
	h.press("A")
	h.until("the end", func() bool { return h.app.live.recs[h.app.tabs.visibleSession()].Status == sess.Ended })
	rec := h.app.live.recs[h.app.tabs.visibleSession()]
	if rec.EndReason != sess.Completed {
		t.Fatalf("ended %s: %s", rec.EndReason, rec.Error)
	}
	h.until("the last words", func() bool { return strings.Contains(h.screen(), "the whole demo.") })
	if b, err := os.ReadFile(filepath.Join(ws, harness.DemoFile)); err != nil || !strings.Contains(string(b), "say hello") || !strings.HasSuffix(string(b), "\nHello!\n") {
		t.Fatalf("demo file (ending with the answer) %q %v", b, err)
	}
	s := h.screen()
	for _, want := range []string{"✓ done", "▸ exec ✓ done  ls -la", "Nothing waits on you.", "greet: completed"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
}

// TestQuitAsksWhileASessionRuns: an in-process studio asks what becomes of
// its running sessions (hand them over, pause, cancel, keep the studio);
// an attached one quits at once and says they keep running in the host.
func TestQuitAsksWhileASessionRuns(t *testing.T) {
	h := newHarness(t, t.TempDir(), 120, 40)
	h.press("q")
	if !h.quit {
		t.Fatal("with nothing running, q quits at once")
	}
	start := func() *harnessT {
		h := newHarness(t, t.TempDir(), 120, 40)
		h.press("n")
		h.typeText("long one")
		h.press("enter")
		h.until("the approval", func() bool { return strings.Contains(h.screen(), "$ ls -la") })
		h.app.setFocus(focusSessions)
		return h
	}
	h = start()
	leave := LeaveStop
	h.app.opts.Leave = &leave
	h.press("q")
	if h.quit || !strings.Contains(h.screen(), "1 session is running") || !strings.Contains(h.screen(), "hand them over") {
		t.Fatalf("q while a session runs should ask first:\n%s", h.screen())
	}
	h.press("k")
	if h.quit || h.app.dlg.dialog != nil {
		t.Fatal("k keeps the studio open")
	}
	h.press("q", "h")
	if !h.quit || leave != LeaveHandOver {
		t.Fatalf("h quits asking for a hand-over (quit %v, leave %v)", h.quit, leave)
	}

	h = start()
	id := h.app.live.running()[0]
	h.press("q", "c")
	if !h.quit {
		t.Fatal("c quits")
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		rec, err := h.eng.Session(id)
		if err == nil && rec.Status == sess.Ended {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("c cancels the running sessions before quitting: %+v %v", rec.Status, err)
		}
	}

	h = start()
	h.app.opts.Attached = true
	h.press("q")
	if !h.quit || !strings.Contains(h.app.exitNote, "1 session keeps running") || !strings.Contains(h.app.exitNote, "atelier serve --stop") {
		t.Fatalf("attached, q quits at once and says what runs on (quit %v, note %q)", h.quit, h.app.exitNote)
	}
}

func TestCancelAsksAndSaysItIsIrreversible(t *testing.T) {
	h := newHarness(t, t.TempDir(), 120, 40)
	h.press("n")
	h.typeText("to cancel")
	h.press("enter")
	h.until("the approval", func() bool { return strings.Contains(h.screen(), "$ ls -la") })
	h.press("x")
	if !strings.Contains(h.screen(), "cannot be resumed") {
		t.Fatalf("cancel should ask and say it cannot be undone:\n%s", h.screen())
	}
	h.press("y")
	h.until("cancelled", func() bool { return h.app.live.recs[h.app.tabs.visibleSession()].Status == sess.Ended })
	if r := h.app.live.recs[h.app.tabs.visibleSession()].EndReason; r != sess.Cancelled {
		t.Fatalf("end reason %s", r)
	}
	h.until("the interrupted card", func() bool { return strings.Contains(h.screen(), "interrupted") })
}

func TestFocusMovesByKeysAndMouse(t *testing.T) {
	h := newHarness(t, t.TempDir(), 120, 40)
	order := []focus{focusFiles, focusActivity, focusActions, focusSessions}
	for _, want := range order { // the centre is skipped while it has no tab
		h.press("tab")
		if h.app.scr.focus != want {
			t.Fatalf("tab: focus %d, want %d", h.app.scr.focus, want)
		}
	}
	h.press("shift+tab")
	if h.app.scr.focus != focusActions {
		t.Fatalf("shift+tab: focus %d", h.app.scr.focus)
	}
	ar := h.app.scr.areas()
	h.send(tea.MouseClickMsg{X: ar.files.x + 3, Y: ar.files.y + 2, Button: tea.MouseLeft})
	if h.app.scr.focus != focusFiles {
		t.Fatalf("a click on the files pane focuses it (focus %d)", h.app.scr.focus)
	}
	h.press("?")
	if !strings.Contains(h.screen(), "list the open folders again") {
		t.Fatalf("? shows the focused pane's keys:\n%s", h.screen())
	}
	h.press("esc")
	if h.app.dlg.dialog != nil {
		t.Fatal("any key closes the help")
	}
}

func TestNotifiesWhenAwayOnly(t *testing.T) {
	h := newHarness(t, t.TempDir(), 120, 40)
	h.send(tea.BlurMsg{})
	h.press("n")
	h.typeText("bell")
	h.press("enter")
	h.until("the approval", func() bool { return strings.Contains(h.screen(), "$ ls -la") })
	if len(h.raw) == 0 || !strings.Contains(h.raw[0], "\a") || !strings.Contains(h.raw[0], "\x1b]9;") || !strings.Contains(h.raw[0], "\x1b]777;notify;") {
		t.Fatalf("a blurred terminal gets a bell and OSC 9/777: %q", h.raw)
	}
	n := len(h.raw)
	h.send(tea.FocusMsg{})
	h.app.setFocus(focusActions)
	h.press("a")
	h.until("the question", func() bool { return strings.Contains(h.screen(), "Which greeting") })
	if len(h.raw) != n {
		t.Fatalf("an item already in sight rings nothing: %q", h.raw[n:])
	}
}

// TestApproveInTheSessionTab: the demo's approvals and its question are
// answered from the card at the foot of the session's tab, the tab keeping
// the keys: a allows the exec, enter opens the question's answer with its
// default as a placeholder, A allows the write for the session.
func TestApproveInTheSessionTab(t *testing.T) {
	ws := t.TempDir()
	h := newHarness(t, ws, 120, 40)
	h.newDemo("greet", "say hello")
	h.until("the exec approval's card", func() bool { return strings.Contains(h.screen(), "⚠ approval: exec `ls -la`") })
	if h.app.scr.focus != focusCenter {
		t.Fatalf("the session's tab should have the keys (focus %d)", h.app.scr.focus)
	}
	if !strings.Contains(h.screen(), "exec ⚠ waiting for approval") {
		t.Errorf("the exec's card should say it waits for the approval:\n%s", h.screen())
	}
	h.press("a")
	h.until("the question's card", func() bool { return strings.Contains(h.screen(), "? question:") })
	if !strings.Contains(h.screen(), "you: allowed once exec `ls -la`") {
		t.Errorf("the decision should be logged in the activity stream:\n%s", h.screen())
	}
	h.press("enter")
	if h.app.dlg.dialog == nil {
		t.Fatalf("enter on a question should open its answer:\n%s", h.screen())
	}
	h.press("enter") // the default
	h.until("the write approval's card", func() bool { return strings.Contains(h.screen(), "⚠ approval: write_file "+harness.DemoFile) })
	h.press("A")
	h.until("the end", func() bool { return h.app.live.recs[h.app.tabs.visibleSession()].Status == sess.Ended })
	if rec := h.app.live.recs[h.app.tabs.visibleSession()]; rec.EndReason != sess.Completed {
		t.Fatalf("ended %s: %s", rec.EndReason, rec.Error)
	}
	if strings.Contains(h.screen(), "⚠ approval") || strings.Contains(h.screen(), "? question") {
		t.Errorf("a card stayed after everything was answered:\n%s", h.screen())
	}
}

// TestWaitingShowsWithThePanesHidden: on a narrow terminal whose side
// panes are hidden, what waits on the operator is in the tab header and
// the status line with the key that shows it, not only in the hidden
// Action required pane; showing the panes removes the mark.
func TestWaitingShowsWithThePanesHidden(t *testing.T) {
	h := newHarness(t, t.TempDir(), 90, 30)
	h.newDemo("greet", "say hello")
	h.until("the approval", func() bool { return len(h.app.actions.Items()) == 1 })
	if !strings.Contains(h.screen(), "Action required") || strings.Contains(h.screen(), "⚠ 1 waiting") {
		t.Fatalf("with the panes shown, only the Action required pane says it:\n%s", h.screen())
	}
	h.press("\\")
	if !h.app.scr.collapsed() {
		t.Fatalf("\\ should hide the side panes:\n%s", h.screen())
	}
	s := h.screen()
	lines := strings.Split(s, "\n")
	if !strings.Contains(lines[0], "⚠ 1 waiting · \\") {
		t.Errorf("the tab header should say what waits:\n%s", s)
	}
	if last := lines[len(lines)-1]; !strings.Contains(last, "⚠ 1 waiting · \\") {
		t.Errorf("the status line should say what waits: %q", last)
	}
	h.press("\\")
	if h.app.scr.collapsed() || strings.Contains(h.screen(), "⚠ 1 waiting") {
		t.Errorf("with the panes shown, the Action required pane says it:\n%s", h.screen())
	}
}

// TestWaitingShowsInOnePane: on a terminal too small for every pane, what
// waits on the operator is counted in the header and said in the status
// line with the key that reaches Action required, until it is shown.
func TestWaitingShowsInOnePane(t *testing.T) {
	h := newHarness(t, t.TempDir(), 60, 20)
	h.newDemo("greet", "say hello")
	h.until("the approval", func() bool { return len(h.app.actions.Items()) == 1 })
	h.app.setFocus(focusSessions)
	lines := strings.Split(h.screen(), "\n")
	if !strings.Contains(lines[0], "Actions 1") {
		t.Errorf("the header should count what waits: %q", lines[0])
	}
	if last := lines[len(lines)-1]; !strings.Contains(last, "⚠ 1 waiting · tab") {
		t.Errorf("the status line should say what waits and the key: %q", last)
	}
	for range 4 {
		if h.app.scr.focus == focusActions {
			break
		}
		h.press("tab")
	}
	s := h.screen()
	if h.app.scr.focus != focusActions || !strings.Contains(strings.Split(s, "\n")[1], "Action required") || strings.Contains(s, "⚠ 1 waiting") {
		t.Fatalf("tab should reach Action required, and the mark go:\n%s", s)
	}
}

// TestZoom: z gives the focused pane the whole screen, the zoom follows
// the focus, and z again brings the layout back.
func TestZoom(t *testing.T) {
	h := newHarness(t, t.TempDir(), 120, 40)
	h.app.setFocus(focusSessions)
	h.press("z")
	s := h.screen()
	first := strings.Split(s, "\n")[0]
	if !strings.HasPrefix(first, "╭─ Sessions") || strings.Contains(s, "Action required") || strings.Contains(s, "Files") {
		t.Fatalf("zoomed on the sessions pane:\n%s", s)
	}
	if w := ansi.StringWidth(first); w != 120 {
		t.Fatalf("the zoomed pane is %d wide, want the screen's 120", w)
	}
	if !strings.Contains(s, "z unzoom") {
		t.Errorf("the status line should say how to unzoom:\n%s", s)
	}
	h.press("tab")
	if s := h.screen(); !strings.HasPrefix(s, "╭─ Files") || strings.Contains(s, "Sessions") {
		t.Fatalf("the zoom should follow the focus to the files pane:\n%s", s)
	}
	h.press("z")
	s = h.screen()
	for _, want := range []string{"Sessions", "Files", "Action required", "Welcome"} {
		if !strings.Contains(s, want) {
			t.Errorf("unzoomed, the screen lacks %q:\n%s", want, s)
		}
	}
}

// TestStatusFadesAndMessagesKeepsIt: a status message fades after its
// time unless a newer one replaced it, and :messages (ctrl+l) shows the
// recent ones whole, newest first, however long.
func TestStatusFadesAndMessagesKeepsIt(t *testing.T) {
	h := newHarness(t, t.TempDir(), 120, 40)
	long := "a very long message " + strings.Repeat("that goes on ", 20) + "and ends here"
	h.app.status.set("first", false)
	h.app.status.set(long, true)
	h.app.status.fade = time.Millisecond
	_, cmd := h.app.Update(tea.WindowSizeMsg{Width: 120, Height: 40}) // an Update that follows the messages
	if cmd == nil {
		t.Fatal("a new message schedules its fade")
	}
	var msgs []tea.Msg
	switch m := cmd().(type) {
	case tea.BatchMsg:
		for _, c := range m {
			if c != nil {
				msgs = append(msgs, c())
			}
		}
	default:
		msgs = append(msgs, m)
	}
	stale := statusFadeMsg(h.app.status.gen - 1)
	h.app.Update(stale)
	if h.app.status.text != long {
		t.Fatalf("the fade of an older message cleared the latest: %q", h.app.status.text)
	}
	for _, m := range msgs {
		h.app.Update(m)
	}
	if h.app.status.text != "" || strings.Contains(h.screen(), "a very long message") {
		t.Fatalf("the message did not fade: %q", h.app.status.text)
	}
	h.press("ctrl+l")
	if h.app.dlg.dialog == nil {
		t.Fatal("ctrl+l should open the messages")
	}
	s := h.screen()
	if !strings.Contains(s, "✗ a very long message") || !strings.Contains(s, "and ends here") || !strings.Contains(s, "first") ||
		strings.Index(s, "a very long") > strings.Index(s, "first") {
		t.Fatalf("the messages, whole and newest first:\n%s", s)
	}
}

// TestTabStripShowsTheActiveTab: with more tabs than fit, the strip keeps
// the active one in view and marks the hidden ones on each side; ctrl+t
// lists every tab and jumps to the one chosen.
func TestTabStripShowsTheActiveTab(t *testing.T) {
	h := newHarness(t, t.TempDir(), 120, 40)
	var ids []string
	for i := 1; i <= 12; i++ {
		rec, err := h.eng.Create(core.CreateOptions{Title: fmt.Sprintf("task-%02d", i), Instructions: "x"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, rec.ID)
	}
	h.until("the sessions", func() bool { return len(h.app.live.recs) == 12 })
	for _, id := range ids {
		h.run(h.app.openSession(id, false))
	}
	header := func() string { return strings.Split(h.screen(), "\n")[0] }
	if s := header(); !strings.Contains(s, "task-12") || !strings.Contains(s, "‹ ") || strings.Contains(s, "task-01") {
		t.Fatalf("the last tab is active: it shows, with the hidden ones marked before it:\n%s", s)
	}
	h.app.selectTab(0)
	if s := header(); !strings.Contains(s, "task-01") || !strings.Contains(s, " ›") || strings.Contains(s, "‹") {
		t.Fatalf("the first tab active:\n%s", s)
	}
	h.press("ctrl+t")
	if h.app.dlg.dialog == nil {
		t.Fatal("ctrl+t should list the open tabs")
	}
	s := h.screen()
	for _, want := range []string{"task-01", "task-07", "task-12"} {
		if !strings.Contains(s, want) {
			t.Errorf("the list lacks %s:\n%s", want, s)
		}
	}
	h.typeText("task-09")
	h.press("enter")
	if st, ok := h.app.tabs.current().(*sessionTab); !ok || st.Record().Title != "task-09" || !strings.Contains(header(), "task-09") {
		t.Fatalf("the jump: %s", header())
	}
}

// TestChoicesAreKept: a theme chosen in the palette and a side pane
// widened with + apply at once and come back in the next studio, from the
// UI state file, not from config.toml.
func TestChoicesAreKept(t *testing.T) {
	ws := t.TempDir()
	file := filepath.Join(t.TempDir(), "ui.json")
	h := newHarness(t, ws, 120, 40)
	h.app.opts.UIStateFile = file
	h.press(":")
	h.typeText("theme: light")
	h.press("enter")
	if h.app.autoTheme || h.app.ui.Theme != "light" {
		t.Fatalf("the palette's theme: auto %v, %q", h.app.autoTheme, h.app.ui.Theme)
	}
	h.app.setFocus(focusSessions)
	before := h.app.scr.areas().sessions.w
	h.press("+", "+", "+")
	if w := h.app.scr.areas().sessions.w; w != before+6 {
		t.Fatalf("+ three times: the left column is %d wide, want %d", w, before+6)
	}
	h.press("-")
	want := before + 4
	b, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(b), `"theme": "light"`) || !strings.Contains(string(b), fmt.Sprintf(`"left": %d`, want)) {
		t.Fatalf("the UI state file: %s, %v", b, err)
	}

	next, err := New(Options{Engine: attach.Local(h.eng), UIStateFile: file})
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	next.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	light := themes.Build(themes.Light(), false)
	if next.autoTheme || next.st.Base.GetForeground() != light.Base.GetForeground() {
		t.Errorf("the next studio's theme is not the light one chosen")
	}
	if w := next.scr.areas().sessions.w; w != want {
		t.Errorf("the next studio's left column is %d wide, want %d", w, want)
	}
}

// newDemo makes a session of the demo agent through the new-session form,
// as the operator would: n, the title, tab, the task, enter.
func (h *harnessT) newDemo(title, task string) {
	h.t.Helper()
	h.press("n")
	h.typeText(title)
	h.press("tab")
	h.typeText(task)
	h.press("enter")
}

// TestAlwaysAllowHere: W on the demo's exec approval keeps a workspace
// rule and allows the call; the settings tab lists the rule, and R there
// removes it.
func TestAlwaysAllowHere(t *testing.T) {
	ws := t.TempDir()
	h := newHarness(t, ws, 120, 40)
	store := config.NewRulesStore(filepath.Join(t.TempDir(), config.RulesFileName))
	h.app.opts.Rules = store
	h.newDemo("greet", "say hello")
	h.until("the exec approval's card", func() bool { return strings.Contains(h.screen(), "W always here") })
	h.press("W")
	h.until("the question", func() bool { return strings.Contains(h.screen(), "? question:") })
	rules, err := store.Rules(h.eng.Workspace())
	if err != nil || len(rules) != 1 || rules[0].String() != "exec `ls -la`" {
		t.Fatalf("the rule kept: %+v, %v", rules, err)
	}
	if !strings.Contains(h.screen(), "always allowed here: exec `ls -la`") {
		t.Errorf("the activity should say what was kept:\n%s", h.screen())
	}
	h.press("ctrl+]") // nothing takes keys; harmless
	h.press(",")
	h.until("the rule in the settings tab", func() bool { return strings.Contains(h.screen(), "exec `ls -la`  (since") })
	h.press("R")
	if h.app.dlg.dialog == nil {
		t.Fatal("R should list the rules to remove one")
	}
	h.press("enter")
	if rules, err := store.Rules(h.eng.Workspace()); err != nil || len(rules) != 0 {
		t.Fatalf("after the removal: %+v, %v", rules, err)
	}
}

// TestCompactKey: C in a session's tab asks the engine for a compaction of
// that session (here refused by the engine, which has fewer than three
// turns to compact: the request is what the key must make).
func TestCompactKey(t *testing.T) {
	h := newHarness(t, t.TempDir(), 120, 40)
	rec, err := h.eng.Create(core.CreateOptions{Title: "long talk", Instructions: "hello", Mode: "continuous",
		Approval: core.PolicyAuto, AutoStart: true})
	if err != nil {
		t.Fatal(err)
	}
	h.until("the session parked on its question", func() bool { return len(h.app.actions.Items()) == 1 })
	h.app.setFocus(focusSessions)
	h.press("enter")
	h.until("its tab", func() bool { return h.app.tabs.sessionIndex(rec.ID) >= 0 })
	h.press("C")
	ctls, _, err := controlsOf(t, h.eng.Workspace(), rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range ctls {
		if c.Kind == sess.CtlCompact {
			return
		}
	}
	t.Fatalf("C made no compaction request: %+v", ctls)
}

// controlsOf reads a session's recorded controls from its log, as the
// engine wrote them.
func controlsOf(t *testing.T, ws, id string) ([]sess.Control, []sess.Repair, error) {
	t.Helper()
	st, err := sess.Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	return st.Log(id).Controls()
}

// TestAllowCommandsStartingWith: S on a command's approval asks which
// leading words to allow for the session, proposing the command's own;
// the grant is of them, and the grants list names its scope.
func TestAllowCommandsStartingWith(t *testing.T) {
	h := newHarness(t, t.TempDir(), 240, 40)
	h.newDemo("greet", "say hello")
	h.until("the exec approval's card", func() bool { return strings.Contains(h.screen(), "⚠ approval: exec `ls -la`") })
	if !strings.Contains(h.screen(), "S allow a prefix…") {
		t.Errorf("a command's card should offer its prefix:\n%s", h.screen())
	}
	h.press("S")
	if h.app.dlg.dialog == nil || !strings.Contains(h.screen(), "Allow commands starting with…") {
		t.Fatalf("S should ask which words:\n%s", h.screen())
	}
	h.press("enter") // the proposed "ls"
	h.until("the question's card", func() bool { return strings.Contains(h.screen(), "? question:") })
	h.press("enter", "enter") // its default
	h.until("the write approval's card", func() bool { return strings.Contains(h.screen(), "⚠ approval: write_file "+harness.DemoFile) })
	id := h.app.tabs.visibleSession()
	if g, err := h.app.eng.Grants(id); err != nil || len(g) != 1 || g[0] != "exec:ls:*" {
		t.Fatalf("grants %q, %v", g, err)
	}
	if strings.Contains(h.screen(), "S allow a prefix…") {
		t.Errorf("a write's card should not offer a prefix:\n%s", h.screen())
	}
	h.press(h.app.km.session.Grants.Keys()[0])
	h.until("the grants list", func() bool { return strings.Contains(h.screen(), "exec:ls:* · commands starting with `ls`") })
}
