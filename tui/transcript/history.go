package transcript

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/sessions/history"
	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/keys"
)

// Turn is one commit of a session's history (a turn's, or a restore made
// for the session) with the files it changed.
type Turn struct {
	Commit history.Commit
	Files  []history.FileChange
	// FilesErr says why the files could not be listed.
	FilesErr string
	// Pending: the files are not loaded yet (they load as the list
	// scrolls near).
	Pending bool
}

// filesBatch is how many commits' files one LoadFiles asks for.
const filesBatch = 20

// HistoryKeyMap is the keys of a session tab while it shows its turn
// history.
type HistoryKeyMap struct {
	Up, Down, PageUp, PageDown, Top, Bottom, Open, Restore, Before, Back key.Binding
}

// DefaultHistoryKeyMap returns the history's keys.
func DefaultHistoryKeyMap() HistoryKeyMap {
	return HistoryKeyMap{
		Up:       keys.New("previous turn or file", "up", "k"),
		Down:     keys.New("next turn or file", "down", "j"),
		PageUp:   keys.New("page up", "pgup", "ctrl+b"),
		PageDown: keys.New("page down", "pgdown", "ctrl+f"),
		Top:      keys.New("newest turn (the first row)", "home", "g"),
		Bottom:   keys.New("oldest turn's last row", "end", "G"),
		Open:     keys.New("open the selected file's diff in a tab (on a turn: the whole turn's diff)", "enter"),
		Restore:  keys.New("restore the workspace to after the selected turn (on a file: only that file); previews first", "R"),
		Before:   keys.New("undo: restore to before the selected turn, undoing it and what came after (on a restore: undo the restore); previews first", "b"),
		Back:     keys.New("back to the transcript", "h", "esc"),
	}
}

// Scope returns the keymap as data for help and docs.
func (k HistoryKeyMap) Scope() keys.Scope {
	return keys.Scope{
		Name: "Session history",
		About: "A session tab's turn history (`h` in the tab): each turn's commit, newest first, with the files it changed, " +
			"and the restores made from it. The session's controls (`p`, `r`, `s`, `x`, `t`…) still act.",
		Bindings: []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Open, k.Restore, k.Before, k.Back},
		Short:    []string{"enter", "R", "b", "h/esc"},
	}
}

// histRow is one line of the list: a commit (file -1) or one of its files.
type histRow struct{ turn, file int }

// History is the turn list of a session tab. It holds what the root
// loaded (History.Log and Changes, in a command) and draws only the
// visible rows.
type History struct {
	keys   HistoryKeyMap
	st     themes.Styles
	id     string
	title  string
	turns  []Turn
	rows   []histRow
	loaded bool
	err    string
	more   int             // commits left out of the list
	asked  map[string]bool // commits whose files were asked for
	sel    int
	off    int
	w, h   int
}

// NewHistory returns the empty history of a session; it shows once Set.
func NewHistory(st themes.Styles, id, title string) *History {
	return &History{keys: DefaultHistoryKeyMap(), st: st, id: id, title: title, asked: map[string]bool{}}
}

// KeyMap returns the history's keys.
func (h *History) KeyMap() HistoryKeyMap { return h.keys }

// SetKeyMap replaces the keys (the configuration's overrides).
func (h *History) SetKeyMap(k HistoryKeyMap) { h.keys = k }

// SetStyles changes the styles (the theme changed).
func (h *History) SetStyles(st themes.Styles) { h.st = st }

// SetTitle follows the session's title.
func (h *History) SetTitle(title string) { h.title = title }

// Loaded reports whether the history was set at least once.
func (h *History) Loaded() bool { return h.loaded }

// Set takes the loaded history, newest first; more counts the commits
// left out. The selection stays on the commit (and file) it was on.
func (h *History) Set(turns []Turn, more int, err error) {
	h.loaded, h.err, h.more = true, "", more
	if err != nil {
		h.err = err.Error()
		return
	}
	h.asked = map[string]bool{}
	h.rebuild(turns)
}

// SetFiles takes the files of commits that were pending.
func (h *History) SetFiles(loaded []Turn) {
	turns := append([]Turn(nil), h.turns...)
	for _, l := range loaded {
		for i := range turns {
			if turns[i].Commit.Hash == l.Commit.Hash {
				turns[i].Files, turns[i].FilesErr, turns[i].Pending = l.Files, l.FilesErr, false
			}
		}
	}
	h.rebuild(turns)
}

// rebuild lays out the rows of turns; the selection stays on the commit
// (and file) it was on.
func (h *History) rebuild(turns []Turn) {
	var selHash, selPath string
	if r, ok := h.selected(); ok {
		selHash = h.turns[r.turn].Commit.Hash
		if r.file >= 0 {
			selPath = h.turns[r.turn].Files[r.file].Path
		}
	}
	h.turns = turns
	h.rows = h.rows[:0]
	for i, t := range turns {
		h.rows = append(h.rows, histRow{i, -1})
		if t.Commit.Hash == selHash && selPath == "" {
			h.sel = len(h.rows) - 1
		}
		for j, f := range t.Files {
			h.rows = append(h.rows, histRow{i, j})
			if t.Commit.Hash == selHash && f.Path == selPath {
				h.sel = len(h.rows) - 1
			}
		}
	}
	if selHash == "" {
		h.sel = 0
	}
	h.clamp()
}

// Turns returns the commits shown, newest first.
func (h *History) Turns() []Turn { return h.turns }

// SetSize sets the inside size.
func (h *History) SetSize(w, hgt int) { h.w, h.h = w, hgt; h.clamp() }

func (h *History) body() int { return max(h.h-1, 1) } // the first line is the heading

func (h *History) clamp() {
	n := len(h.rows)
	h.sel = min(max(h.sel, 0), max(n-1, 0))
	if h.sel < h.off {
		h.off = h.sel
	}
	if h.sel >= h.off+h.body() {
		h.off = h.sel - h.body() + 1
	}
	h.off = min(max(h.off, 0), max(n-h.body(), 0))
}

// Move moves the selection by n rows.
func (h *History) Move(n int) { h.sel += n; h.clamp() }

// Wants returns what the history needs loaded for the rows near the view
// (the files of commits still pending), asking for each commit once; nil
// when nothing.
func (h *History) Wants() Action {
	if len(h.rows) == 0 {
		return nil
	}
	first := h.rows[h.off].turn
	last := h.rows[min(h.off+h.body()+filesBatch/2, len(h.rows)-1)].turn
	var hashes []string
	for i := first; i < len(h.turns) && len(hashes) < filesBatch; i++ {
		t := h.turns[i]
		if i > last && len(hashes) == 0 {
			break
		}
		if t.Pending && !h.asked[t.Commit.Hash] {
			h.asked[t.Commit.Hash] = true
			hashes = append(hashes, t.Commit.Hash)
		}
	}
	if len(hashes) == 0 {
		return nil
	}
	return LoadFiles{ID: h.id, Commits: hashes}
}

func (h *History) selected() (histRow, bool) {
	if h.sel < 0 || h.sel >= len(h.rows) {
		return histRow{}, false
	}
	return h.rows[h.sel], true
}

// Selected returns the selected commit and, on a file row, the file.
func (h *History) Selected() (history.Commit, *history.FileChange, bool) {
	r, ok := h.selected()
	if !ok {
		return history.Commit{}, nil, false
	}
	t := h.turns[r.turn]
	if r.file < 0 {
		return t.Commit, nil, true
	}
	f := t.Files[r.file]
	return t.Commit, &f, true
}

// HandleKey acts on a key of the history; handled is false for a key that
// is none of its own (the tab's controls get it).
func (h *History) HandleKey(msg tea.KeyPressMsg) (act Action, handled bool) {
	k := h.keys
	switch {
	case key.Matches(msg, k.Up):
		h.Move(-1)
	case key.Matches(msg, k.Down):
		h.Move(1)
		return h.Wants(), true
	case key.Matches(msg, k.PageUp):
		h.Move(-h.body())
	case key.Matches(msg, k.PageDown):
		h.Move(h.body())
		return h.Wants(), true
	case key.Matches(msg, k.Top):
		h.Move(-keys.Far)
	case key.Matches(msg, k.Bottom):
		h.Move(keys.Far)
		return h.Wants(), true
	case key.Matches(msg, k.Open):
		return h.openDiff(), true
	case key.Matches(msg, k.Restore):
		return h.restore(false), true
	case key.Matches(msg, k.Before):
		return h.restore(true), true
	default:
		return nil, false
	}
	return nil, true
}

func (h *History) openDiff() Action {
	c, f, ok := h.Selected()
	if !ok {
		return nil
	}
	d := OpenDiff{ID: h.id, Commit: c.Hash, Title: h.title + " · " + Describe(c)}
	if f != nil {
		d.Paths = filePaths(f)
		d.Title = h.title + " · " + f.Path + " · " + Describe(c)
	}
	return d
}

// restore builds the restore the selected row asks for: to after its
// commit, or to before it (its parent).
func (h *History) restore(before bool) Action {
	c, f, ok := h.Selected()
	if !ok {
		return nil
	}
	r := Restore{ID: h.id, Commit: c.Hash, Label: "after " + Describe(c)}
	if before {
		r.Commit, r.Label = c.Parent, "before "+Describe(c)
		if c.Kind == history.KindRestore {
			r.Label += " (undoing it)"
		}
	}
	if f != nil {
		r.Paths = filePaths(f)
		r.Label = f.Path + " " + r.Label
	}
	return r
}

func filePaths(f *history.FileChange) []string {
	if f.OldPath != "" && f.OldPath != f.Path {
		return []string{f.Path, f.OldPath}
	}
	return []string{f.Path}
}

// Describe names a commit for people: "turn 3", "the restore of 12:03:04".
func Describe(c history.Commit) string {
	switch c.Kind {
	case history.KindTurn:
		return "turn " + strconv.Itoa(c.Turn)
	case history.KindRestore:
		return "the restore of " + c.Time.Local().Format("15:04:05")
	}
	return "the snapshot of " + c.Time.Local().Format("15:04:05")
}

// View returns the history's lines, exactly its height.
func (h *History) View() []string {
	out := []string{h.heading()}
	switch {
	case h.err != "":
		out = append(out, h.st.Error.Render(ansi.Truncate("history: "+h.err, h.w, "…")))
	case !h.loaded:
		out = append(out, h.st.Subtle.Render("loading the history…"))
	case len(h.rows) == 0:
		out = append(out, h.st.Subtle.Render(ansi.Truncate("No commits yet: each turn's commit shows here when the turn ends.", h.w, "…")))
	default:
		for i := h.off; i < len(h.rows) && i-h.off < h.body(); i++ {
			out = append(out, h.row(h.rows[i], i == h.sel))
		}
		if h.more > 0 && len(out) < h.h {
			out = append(out, h.st.Subtle.Render("… "+strconv.Itoa(h.more)+" older commits not listed"))
		}
	}
	for len(out) < h.h {
		out = append(out, "")
	}
	return out[:max(h.h, 0)]
}

func (h *History) heading() string {
	n := 0
	for _, t := range h.turns {
		if t.Commit.Kind == history.KindTurn {
			n++
		}
	}
	k := h.keys
	hint := func(b key.Binding, what string) string {
		return h.st.Hint.Render(" · ") + h.st.Key.Render(b.Keys()[0]) + h.st.Hint.Render(" "+what)
	}
	turns := strconv.Itoa(n) + " turns"
	if n == 1 {
		turns = "1 turn"
	}
	text := h.st.Bold.Render("Turn history") + h.st.Subtle.Render(" · "+turns) +
		hint(k.Open, "diff") + hint(k.Restore, "restore after") + hint(k.Before, "before") + hint(k.Back, "back")
	return ansi.Truncate(text, h.w, "…")
}

func (h *History) row(r histRow, selected bool) string {
	t := h.turns[r.turn]
	var plain, styled string
	if r.file < 0 {
		plain, styled = h.commitRow(t)
	} else {
		plain, styled = h.fileRow(t.Files[r.file])
	}
	if selected {
		plain = ansi.Truncate(plain, h.w, "…")
		return h.st.Selected.Render(plain + strings.Repeat(" ", max(h.w-ansi.StringWidth(plain), 0)))
	}
	return ansi.Truncate(styled, h.w, "…")
}

func (h *History) commitRow(t Turn) (plain, styled string) {
	icon, what, tone := "◆ ", "turn "+strconv.Itoa(t.Commit.Turn), h.st.Bold
	switch t.Commit.Kind {
	case history.KindRestore:
		icon, what, tone = "↺ ", "restore", h.st.Accent
	case history.KindSnapshot:
		icon, what, tone = "· ", "snapshot", h.st.Subtle
	}
	stamp := t.Commit.Time.Local().Format("15:04:05")
	short := t.Commit.Hash
	if len(short) > 7 {
		short = short[:7]
	}
	files := strconv.Itoa(len(t.Files)) + " files"
	if len(t.Files) == 1 {
		files = "1 file"
	}
	switch {
	case t.FilesErr != "":
		files = "files: " + t.FilesErr
	case t.Pending:
		files = "files: …"
	}
	summary := strings.TrimSpace(t.Commit.Summary)
	plain = icon + what + "  " + stamp + "  " + short + "  " + files
	styled = tone.Render(icon+what) + "  " + h.st.Subtle.Render(stamp+"  "+short+"  "+files)
	if summary != "" {
		plain += "  " + summary
		styled += "  " + h.st.Base.Render(summary)
	}
	return plain, styled
}

func (h *History) fileRow(f history.FileChange) (plain, styled string) {
	mark, tone := "M", h.st.Warning
	switch f.Status {
	case history.Added:
		mark, tone = "A", h.st.Success
	case history.Deleted:
		mark, tone = "D", h.st.Error
	case history.Renamed:
		mark, tone = "R", h.st.Accent
	}
	name := f.Path
	if f.Status == history.Renamed && f.OldPath != "" {
		name = f.OldPath + " → " + f.Path
	}
	stat := "+" + strconv.Itoa(f.Additions) + " −" + strconv.Itoa(f.Deletions)
	if f.Binary {
		stat = "binary"
	}
	plain = "    " + mark + " " + name + "  " + stat
	styled = "    " + tone.Render(mark) + " " + h.st.Base.Render(name) + "  " + h.st.Subtle.Render(stat)
	return plain, styled
}
