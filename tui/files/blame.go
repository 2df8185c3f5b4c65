package files

import (
	"context"
	"errors"
	"strconv"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/sessions/history"
)

// Blamer finds the history commit that last changed a workspace path. It
// does I/O (git), so the pane calls it only inside the commands it returns.
type Blamer func(ctx context.Context, path string) (history.Commit, error)

// Blamed answers a blame command: the commit that last changed Path, or
// why there is none. The root fills Title (the session's title) before it
// hands the answer to ApplyBlame.
type Blamed struct {
	Path   string
	Commit history.Commit
	Title  string
	Err    error
	gen    int
}

// blameTimeout bounds one blame: git on a huge history is slow, never
// endless.
const blameTimeout = 30 * time.Second

// blameCache keeps each path's answer until the history changes (a turn's
// commit, a restore): blames are asked for on selection, one path at a
// time, and never twice.
type blameCache struct {
	by       Blamer
	gen      int // bumped by Forget, so answers to older questions are dropped
	answers  map[string]Blamed
	inflight map[string]bool
}

// SetBlamer turns the blame line on; nil turns it off.
func (t *Tree) SetBlamer(b Blamer) {
	t.blame = blameCache{by: b, answers: map[string]Blamed{}, inflight: map[string]bool{}}
	t.clamp()
}

// BlameSelected returns the command that blames the selected entry, or nil
// when its answer is cached or on its way.
func (t *Tree) BlameSelected() tea.Cmd {
	c := &t.blame
	r, ok := t.selected()
	if c.by == nil || !ok || !t.loaded {
		return nil
	}
	p := r.Path
	if _, ok := c.answers[p]; ok || c.inflight[p] {
		return nil
	}
	c.inflight[p] = true
	by, gen := c.by, c.gen
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), blameTimeout)
		defer cancel()
		commit, err := by(ctx, p)
		return Blamed{Path: p, Commit: commit, Err: err, gen: gen}
	}
}

// ApplyBlame caches an answer; an answer to a question asked before the
// history changed is dropped.
func (t *Tree) ApplyBlame(b Blamed) {
	c := &t.blame
	if c.by == nil || b.gen != c.gen {
		return
	}
	delete(c.inflight, b.Path)
	c.answers[b.Path] = b
}

// ForgetBlame drops every cached answer: the history changed.
func (t *Tree) ForgetBlame() {
	c := &t.blame
	if c.by == nil {
		return
	}
	c.gen++
	c.answers = map[string]Blamed{}
	c.inflight = map[string]bool{}
}

// Blame returns the cached answer for a path.
func (t *Tree) Blame(p string) (Blamed, bool) {
	b, ok := t.blame.answers[p]
	return b, ok
}

// blameLine is the pane's last line: who last changed the selection.
func (t *Tree) blameLine() string {
	r, ok := t.selected()
	if !ok {
		return ""
	}
	b, ok := t.blame.answers[r.Path]
	var text string
	style := t.st.Subtle
	switch {
	case !ok:
		text = "history: …"
	case errors.Is(b.Err, history.ErrNotFound):
		text = "not in the history yet"
	case b.Err != nil:
		text, style = "history: "+b.Err.Error(), t.st.Error
	default:
		text, style = describeBlame(b), t.st.Accent
	}
	return style.Render(ansi.Truncate(text, max(t.w, 1), "…"))
}

// describeBlame words a blame: "◆ turn 3 of “fix-tests” · 12:01".
func describeBlame(b Blamed) string {
	c := b.Commit
	who := b.Title
	if who == "" {
		who = c.SessionID
	}
	stamp := " · " + c.Time.Local().Format("15:04")
	switch c.Kind {
	case history.KindTurn:
		return "◆ turn " + strconv.Itoa(c.Turn) + " of " + who + stamp
	case history.KindRestore:
		if who != "" {
			return "↺ restored for " + who + stamp
		}
		return "↺ restored by you" + stamp
	}
	// A snapshot: the workspace as the history began, or edits saved
	// before a restore.
	return "· not changed by a turn"
}
