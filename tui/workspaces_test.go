package tui

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/attach"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/instances"
	"github.com/atelier-studio/atelier/internal/golden"
	sess "github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/workspaces"
)

// paneData is a fixed picture of a workspace with instances: a worktree
// two sessions share, a copy whose session ended (unused), one still
// measured and one whose summary failed.
func paneData() workspaces.Data {
	end := func(id, title string) sess.Session {
		return sess.Session{ID: id, Title: title, Status: sess.Ended, EndReason: sess.Completed}
	}
	return workspaces.Data{Loaded: true,
		Folder: []sess.Session{{ID: "s1", Title: "fix the flaky tests", Status: sess.Waiting}, end("s2", "write the docs")},
		Instances: []workspaces.Instance{
			{ID: "s3", Kind: instances.Worktree, Branch: "atelier/s3",
				Sessions: []sess.Session{{ID: "s3", Title: "refactor the engine", Status: sess.Paused}, {ID: "s4", Title: "review it", Status: sess.Created}},
				Summary:  &workspaces.Summary{Bytes: 3 << 20, Files: 4, Added: 120, Removed: 35}},
			{ID: "s5", Kind: instances.Copy, Sessions: []sess.Session{end("s5", "try the new parser")},
				Summary: &workspaces.Summary{Bytes: 1288 << 20}},
			{ID: "s6", Kind: instances.Copy},
			{ID: "s7", Kind: instances.Worktree, Branch: "atelier/s7", Err: "git: bad object"},
		}}
}

// TestGoldenWorkspaces draws the Workspaces tab at two sizes, the
// selection on the worktree, the file pane showing it.
func TestGoldenWorkspaces(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{100, 24}, {60, 14}} {
		p := workspaces.New(themes.Build(themes.Dark(), true))
		p.SetSize(sz.w, sz.h)
		p.Focus()
		p.SetData(paneData())
		p.Scroll(1)
		p.SetShowing("s3")
		lines := p.View()
		if len(lines) != sz.h {
			t.Fatalf("%d lines, want %d", len(lines), sz.h)
		}
		for i, l := range lines {
			if n := ansi.StringWidth(l); n > sz.w {
				t.Fatalf("line %d is %d wide, over %d: %q", i, n, sz.w, l)
			}
		}
		golden.Check(t, "workspaces-"+itoa(sz.w)+"x"+itoa(sz.h)+".txt", ansi.Strip(strings.Join(lines, "\n"))+"\n")
	}
}

// gitWorkspace makes a git repository with one commit of a.txt.
func gitWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "a.txt"), "one\ntwo\nthree\nfour\nfive\n")
	git(t, ws, "init", "-q", "-b", "main")
	git(t, ws, "add", ".")
	git(t, ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "first")
	return ws
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// instanceHarness is a studio on a git workspace whose instances live in
// a folder of the test.
func instanceHarness(t *testing.T) (*harnessT, string) {
	t.Helper()
	ws := gitWorkspace(t)
	root := t.TempDir()
	h := newHarness(t, ws, 140, 44, func(o *core.Options) { o.Instances.Root = root })
	return h, ws
}

// onInstance creates a session (not started) on a new worktree instance
// and writes the instance's work into its folder, as its agent would.
func onInstance(t *testing.T, h *harnessT, title string, files map[string]string) sess.Session {
	t.Helper()
	s, err := h.eng.Create(core.CreateOptions{Title: title, Instructions: "work", Isolation: core.IsolationWorktree})
	if err != nil {
		t.Fatal(err)
	}
	dir, err := h.eng.InstancePath(s.Instance)
	if err != nil {
		t.Fatal(err)
	}
	for p, data := range files {
		writeFile(t, filepath.Join(dir, p), data)
	}
	h.until("the session", func() bool { _, ok := h.app.live.recs[s.ID]; return ok })
	return s
}

func readWS(t *testing.T, ws, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ws, p))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestWorkspacesApplyWithPreview drives W → the list → a → the preview
// → y against a real engine on a real git workspace: nothing is written
// before the confirmation, everything after.
func TestWorkspacesApplyWithPreview(t *testing.T) {
	h, ws := instanceHarness(t)
	s := onInstance(t, h, "refactor", map[string]string{"a.txt": "one\ntwo\nTHREE\nfour\nfive\n", "b.txt": "new\n"})
	h.press("W")
	h.until("the instance measured", func() bool {
		return strings.Contains(h.screen(), s.Instance+" · worktree") && strings.Contains(h.screen(), "2 files +2 −1")
	})
	if sc := h.screen(); !strings.Contains(sc, "refactor") || !strings.Contains(sc, "the workspace folder · in place") {
		t.Fatalf("the tab lists the folder and the instance with its session:\n%s", sc)
	}
	h.press("down", "a")
	h.until("the preview", func() bool { return strings.Contains(h.screen(), "+ b.txt") })
	if sc := h.screen(); !strings.Contains(sc, "~ a.txt") || !strings.Contains(sc, "Write 2 files of instance "+s.Instance) {
		t.Fatalf("the preview names what it writes:\n%s", sc)
	}
	if _, err := os.Stat(filepath.Join(ws, "b.txt")); !os.IsNotExist(err) {
		t.Fatalf("the preview wrote: %v", err)
	}
	h.press("y")
	h.until("applied", func() bool { return strings.Contains(h.app.status.text, "applied instance "+s.Instance) })
	if got := readWS(t, ws, "a.txt"); got != "one\ntwo\nTHREE\nfour\nfive\n" {
		t.Fatalf("a.txt after the apply: %q", got)
	}
	if got := readWS(t, ws, "b.txt"); got != "new\n" {
		t.Fatalf("b.txt after the apply: %q", got)
	}
}

// TestWorkspacesConflictOffersThreeWay: the operator changed a file the
// instance changed too; the apply names it, and the 3-way apply merges
// both changes after its own preview.
func TestWorkspacesConflictOffersThreeWay(t *testing.T) {
	h, ws := instanceHarness(t)
	onInstance(t, h, "refactor", map[string]string{"a.txt": "one\ntwo\nthree\nfour\nFIVE\n"})
	writeFile(t, filepath.Join(ws, "a.txt"), "ONE\ntwo\nthree\nfour\nfive\n")
	h.press("W")
	h.until("the instance", func() bool { return strings.Contains(h.screen(), "1 file +1 −1") })
	h.press("down", "a")
	h.until("the conflict", func() bool { return strings.Contains(h.screen(), "conflict") })
	if sc := h.screen(); !strings.Contains(sc, "≠ a.txt") {
		t.Fatalf("the conflict names the file:\n%s", sc)
	}
	h.press("3")
	h.until("the 3-way preview", func() bool { return strings.Contains(h.screen(), "(merged 3-way)") })
	if got := readWS(t, ws, "a.txt"); got != "ONE\ntwo\nthree\nfour\nfive\n" {
		t.Fatalf("the preview wrote: %q", got)
	}
	h.press("y")
	h.until("applied", func() bool { return strings.Contains(h.app.status.text, "applied instance") })
	if got := readWS(t, ws, "a.txt"); got != "ONE\ntwo\nthree\nfour\nFIVE\n" {
		t.Fatalf("the merge: %q", got)
	}
}

// TestWorkspacesDiscardAsksTwiceForUnappliedWork: x asks; changes never
// applied make it ask again, by the instance's name; then the instance
// is gone and the tab says the folder alone.
func TestWorkspacesDiscardAsksTwiceForUnappliedWork(t *testing.T) {
	h, _ := instanceHarness(t)
	s := onInstance(t, h, "experiment", map[string]string{"b.txt": "draft\n"})
	if _, err := h.eng.As("test").CloseSession(s.ID); err != nil {
		t.Fatal(err)
	}
	h.press("W")
	h.until("unused", func() bool {
		return strings.Contains(h.screen(), s.Instance+" · worktree · unused") && strings.Contains(h.screen(), "1 file +1 −0 against its base")
	})
	h.press("down", "x")
	h.until("the first question", func() bool { return strings.Contains(h.screen(), "Discard instance "+s.Instance+"?") })
	h.press("y")
	h.until("the second question", func() bool { return strings.Contains(h.screen(), "never applied") })
	if sc := h.screen(); !strings.Contains(sc, "b.txt") || !strings.Contains(sc, "Type "+s.Instance+" to confirm") {
		t.Fatalf("the second question names the changes and asks for the name:\n%s", sc)
	}
	h.typeText(s.Instance)
	h.press("enter")
	h.until("discarded", func() bool { return strings.Contains(h.app.status.text, "discarded instance "+s.Instance) })
	h.until("the list read again", func() bool { return strings.Contains(h.screen(), "no instances") })
	if list, err := h.eng.As("test").ListInstances(); err != nil || len(list) != 0 {
		t.Fatalf("instances after the discard: %+v %v", list, err)
	}
}

// TestFilePaneFollowsTheSessionsInstance: selecting a session on an
// instance shows that instance's files, titled with its name; selecting
// one in place shows the workspace's again.
func TestFilePaneFollowsTheSessionsInstance(t *testing.T) {
	h, _ := instanceHarness(t)
	if _, err := h.eng.Create(core.CreateOptions{Title: "in place", Instructions: "x"}); err != nil {
		t.Fatal(err)
	}
	s := onInstance(t, h, "isolated", map[string]string{"only-here.txt": "x\n"})
	h.until("both sessions", func() bool { return len(h.app.live.recs) == 2 })
	// The list shows the newest first: select the session on the instance.
	h.app.sessions.Select(s.ID)
	h.send(nil)
	h.until("the instance's files", func() bool {
		sc := h.screen()
		return h.app.inst.filesTitle() == "Files · instance "+s.Instance+" (worktree)" && strings.Contains(sc, "Files · instance") && strings.Contains(sc, "only-here.txt")
	})
	// Its files open read-only; the file operations stay the workspace's.
	h.app.setFocus(focusFiles)
	h.press("down", "enter")
	h.until("the read-only view", func() bool { return strings.Contains(h.screen(), "only-here.txt (read-only)") })
	h.press("esc", "d")
	if !strings.Contains(h.app.status.text, "the file pane shows instance "+s.Instance) || h.app.dlg.dialog != nil {
		t.Fatalf("a file operation on an instance's tree: %q (dialog %v)", h.app.status.text, h.app.dlg.dialog != nil)
	}
	dir, err := h.eng.InstancePath(s.Instance)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "only-here.txt")); err != nil {
		t.Fatal(err)
	}
	h.app.setFocus(focusSessions)
	h.press("down") // the session in place
	h.until("the workspace's files", func() bool {
		sc := h.screen()
		return !strings.Contains(sc, "Files · instance") && strings.Contains(sc, "a.txt") && !strings.Contains(sc, "only-here.txt")
	})
}

// TestFormCreatesASessionOnAWorktree: the new-session form's isolation
// field makes the session's own worktree instance.
func TestFormCreatesASessionOnAWorktree(t *testing.T) {
	h, _ := instanceHarness(t)
	h.press("n")
	h.typeText("isolated work")
	h.press("tab", "tab", "tab", "tab", "tab", "right", "enter") // title → task, agent, mode, access, isolation
	h.until("the session", func() bool { return len(h.app.live.recs) == 1 })
	var rec sess.Session
	for _, r := range h.app.live.recs {
		rec = r
	}
	if rec.Instance == "" {
		t.Fatalf("the session works in place: %+v", rec)
	}
	list, err := h.eng.As("test").ListInstances()
	if err != nil || len(list) != 1 || list[0].ID != rec.Instance || list[0].Kind != instances.Worktree {
		t.Fatalf("instances %+v %v", list, err)
	}
}

// TestWYieldsToAnApprovalsKey: W opens the Workspaces tab, but not in a
// pane that binds W itself (the Action required pane: always allow here).
func TestWYieldsToAnApprovalsKey(t *testing.T) {
	h := newHarness(t, t.TempDir(), 120, 40)
	h.app.setFocus(focusActions)
	h.press("W")
	if h.app.inst.workspacesTab() != nil {
		t.Fatal("W in the Action required pane opened the Workspaces tab")
	}
	h.app.setFocus(focusSessions)
	h.press("W")
	if h.app.inst.workspacesTab() == nil {
		t.Fatal("W in the sessions pane did not open the Workspaces tab")
	}
	if !strings.Contains(h.screen(), "instances") {
		t.Fatalf("the tab:\n%s", h.screen())
	}
}

// TestWorkspacesDiffFilesAndBranch: d opens the instance's diff in a diff
// tab, f shows its files in the file pane (and on the folder the
// workspace's again), b makes the branch the operator names.
func TestWorkspacesDiffFilesAndBranch(t *testing.T) {
	h, ws := instanceHarness(t)
	s := onInstance(t, h, "refactor", map[string]string{"b.txt": "from the instance\n"})
	h.press("W")
	h.until("the instance measured", func() bool { return strings.Contains(h.screen(), "1 file +1 −0") })
	h.press("down", "d")
	h.until("the diff tab", func() bool { return strings.Contains(h.screen(), "+from the instance") })
	if _, ok := h.app.tabs.current().(*diffTab); !ok {
		t.Fatalf("d opened %T", h.app.tabs.current())
	}
	h.press("W") // back to the tab
	h.press("f")
	h.until("the instance's files", func() bool { return h.app.inst.filesTitle() != "Files" && strings.Contains(h.screen(), "b.txt") })
	if h.app.scr.focus != focusFiles {
		t.Fatal("f gives the file pane the keys")
	}
	h.press("W", "up", "f")
	h.until("the workspace's files", func() bool { return h.app.inst.filesTitle() == "Files" && !strings.Contains(h.screen(), "b.txt") })
	h.press("W", "down", "b")
	h.until("the name asked", func() bool { return strings.Contains(h.screen(), "Branch from "+s.Instance) })
	h.press("ctrl+u")
	h.typeText("feature-x")
	h.press("enter")
	h.until("the branch", func() bool { return strings.Contains(h.app.status.text, "made branch") })
	out, err := exec.Command("git", "-C", ws, "show", "feature-x:b.txt").CombinedOutput()
	if err != nil || string(out) != "from the instance\n" {
		t.Fatalf("the branch holds the instance's work: %v %s", err, out)
	}
}

// TestAttachedWorkspaces: attached to another machine's engine, the
// instance made there while the studio follows, the tab, the file pane's
// following and the apply go through its API.
func TestAttachedWorkspaces(t *testing.T) {
	far := gitWorkspace(t)
	h := farStudio(t, far)
	s := onInstance(t, h, "remote work", map[string]string{"b.txt": "far\n"})
	h.press("W")
	h.until("the instance measured", func() bool { return strings.Contains(h.screen(), "1 file +1 −0") })
	h.app.sessions.Select(s.ID)
	h.send(nil)
	h.until("the instance's files", func() bool { return h.app.inst.filesTitle() != "Files" && strings.Contains(h.screen(), "b.txt") })
	h.press("down", "a")
	h.until("the preview", func() bool { return strings.Contains(h.screen(), "+ b.txt") })
	h.press("y")
	h.until("applied", func() bool { return strings.Contains(h.app.status.text, "applied instance "+s.Instance) })
	if got := readWS(t, far, "b.txt"); got != "far\n" {
		t.Fatalf("b.txt on the far side: %q", got)
	}
}

// TestWorkspacesMeasureAgainWhenASessionStops: the tab's changes of an
// instance follow its sessions: when one stops, the instance is measured
// again (no polling).
func TestWorkspacesMeasureAgainWhenASessionStops(t *testing.T) {
	h, _ := instanceHarness(t)
	s := onInstance(t, h, "later", nil)
	h.press("W")
	h.until("measured", func() bool { return strings.Contains(h.screen(), "no changes") })
	dir, err := h.eng.InstancePath(s.Instance)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "late.txt"), "x\n")
	if _, err := h.eng.As("test").CloseSession(s.ID); err != nil {
		t.Fatal(err)
	}
	h.until("measured again", func() bool {
		return strings.Contains(h.screen(), s.Instance+" · worktree · unused") && strings.Contains(h.screen(), "1 file +1 −0 against its base")
	})
}

// TestLargeCopyAsksFirst: a session created with isolation copy over
// [instances] warn_size says how large the copy would be and waits for a
// yes; no keeps everything as it was, yes makes it. Under the size, the
// form creates at once.
func TestLargeCopyAsksFirst(t *testing.T) {
	h, _ := instanceHarness(t)
	h.app.eng = attach.LocalHost(h.eng, attach.LocalOptions{CopyWarnSize: 1})
	form := func(title string) {
		h.press("n")
		h.typeText(title)
		h.press("tab", "tab", "tab", "tab", "tab", "right", "right", "enter") // isolation: copy
	}
	form("too big")
	h.until("the question", func() bool {
		sc := h.screen()
		return strings.Contains(sc, "A large copy") && strings.Contains(sc, "warn_size")
	})
	h.press("n")
	if len(h.app.live.recs) != 0 {
		t.Fatalf("a session was created after no: %+v", h.app.live.recs)
	}
	if list, err := h.eng.As("test").ListInstances(); err != nil || len(list) != 0 {
		t.Fatalf("instances after no: %+v, %v", list, err)
	}
	form("too big, yes")
	h.until("the question again", func() bool { return strings.Contains(h.screen(), "A large copy") })
	h.press("y")
	h.until("the session", func() bool { return len(h.app.live.recs) == 1 })
	list, err := h.eng.As("test").ListInstances()
	if err != nil || len(list) != 1 || list[0].Kind != instances.Copy {
		t.Fatalf("instances after yes: %+v, %v", list, err)
	}

	h.app.eng = attach.LocalHost(h.eng, attach.LocalOptions{})
	form("small")
	h.until("the second session, unasked", func() bool { return len(h.app.live.recs) == 2 })
	if strings.Contains(h.screen(), "A large copy") {
		t.Fatalf("a copy under warn_size asked:\n%s", h.screen())
	}
}
