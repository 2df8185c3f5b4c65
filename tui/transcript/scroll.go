package transcript

import "strings"

const gutter = 2 // the selection bar and a space

func (t *Transcript) valid(r ref) bool {
	return r.m >= 0 && r.m < len(t.entries) && r.i >= 0 && r.i < len(t.entries[r.m].items)
}

func (t *Transcript) next(r ref) (ref, bool) {
	if r.i+1 < len(t.entries[r.m].items) {
		return ref{r.m, r.i + 1}, true
	}
	if r.m+1 < len(t.entries) {
		return ref{r.m + 1, 0}, true
	}
	return r, false
}

func (t *Transcript) prev(r ref) (ref, bool) {
	if r.i > 0 {
		return ref{r.m, r.i - 1}, true
	}
	if r.m > 0 {
		return ref{r.m - 1, len(t.entries[r.m-1].items) - 1}, true
	}
	return r, false
}

func (t *Transcript) last() (ref, bool) {
	if len(t.entries) == 0 {
		return ref{}, false
	}
	m := len(t.entries) - 1
	return ref{m, len(t.entries[m].items) - 1}, true
}

func (t *Transcript) itemLines(r ref) []string {
	e := t.entries[r.m]
	return t.r.lines(e, e.items[r.i], max(t.w-gutter, 1))
}

// bottomAnchor returns the top position that shows the item end at the
// bottom of the screen, walking back only as far as one screen.
func (t *Transcript) bottomAnchor(end ref) (ref, int) {
	need := t.h
	r := end
	for {
		n := len(t.itemLines(r))
		if n >= need {
			return r, n - need
		}
		need -= n
		p, ok := t.prev(r)
		if !ok {
			return r, 0
		}
		r = p
	}
}

// pin turns following into an explicit anchor at the current bottom.
func (t *Transcript) pin() {
	if !t.follow {
		return
	}
	if end, ok := t.last(); ok {
		t.top, t.topOff = t.bottomAnchor(end)
	}
	t.follow = false
}

// ScrollBy moves the view n lines (negative is up). Reaching the end
// follows the newest line again.
func (t *Transcript) ScrollBy(n int) {
	if len(t.entries) == 0 || n == 0 {
		return
	}
	if n > 0 && t.follow {
		return
	}
	t.pin()
	if !t.valid(t.top) {
		t.top, t.topOff = ref{}, 0
	}
	for n < 0 {
		if t.topOff > 0 {
			step := min(-n, t.topOff)
			t.topOff -= step
			n += step
			continue
		}
		p, ok := t.prev(t.top)
		if !ok {
			break
		}
		t.top, t.topOff = p, len(t.itemLines(p))
	}
	for n > 0 {
		rest := len(t.itemLines(t.top)) - t.topOff
		if n < rest {
			t.topOff += n
			break
		}
		nx, ok := t.next(t.top)
		if !ok {
			t.topOff = max(len(t.itemLines(t.top))-1, 0)
			break
		}
		n -= rest
		t.top, t.topOff = nx, 0
	}
	if t.atEnd() {
		t.follow = true
	}
}

// atEnd reports whether the anchored view already shows the last line.
func (t *Transcript) atEnd() bool {
	r, off := t.top, t.topOff
	shown := 0
	for shown < t.h {
		shown += len(t.itemLines(r)) - off
		off = 0
		nx, ok := t.next(r)
		if !ok {
			return shown <= t.h
		}
		r = nx
	}
	return false
}

// Page scrolls by a screen.
func (t *Transcript) Page(dir int) { t.ScrollBy(dir * max(t.h-1, 1)) }

// Top shows the first message.
func (t *Transcript) Top() {
	if len(t.entries) == 0 {
		return
	}
	t.follow, t.top, t.topOff = false, ref{}, 0
	if t.atEnd() {
		t.follow = true
	}
}

// Bottom follows the newest line again.
func (t *Transcript) Bottom() { t.follow = true }

// Following reports whether the view sticks to the newest line.
func (t *Transcript) Following() bool { return t.follow }

// SelectStep moves the selection to the previous (-1) or next (+1) item
// worth selecting (a message's first item or a tool card) and scrolls it
// into view.
func (t *Transcript) SelectStep(dir int) {
	if len(t.entries) == 0 {
		return
	}
	if !t.hasSel || !t.valid(t.sel) {
		// The first press selects the newest selectable item.
		r, _ := t.last()
		for !t.selectable(r) {
			r, _ = t.prev(r)
		}
		t.sel, t.hasSel = r, true
		t.reveal()
		return
	}
	r := t.sel
	for {
		var ok bool
		if dir < 0 {
			r, ok = t.prev(r)
		} else {
			r, ok = t.next(r)
		}
		if !ok {
			break
		}
		if t.selectable(r) {
			t.sel = r
			break
		}
	}
	t.reveal()
}

func (t *Transcript) selectable(r ref) bool {
	e := t.entries[r.m]
	if r.i == 0 {
		return true
	}
	return e.items[r.i].kind == partItem && e.msg.Parts[e.items[r.i].part].Tool != nil
}

// ClearSelection drops the selection.
func (t *Transcript) ClearSelection() { t.hasSel = false }

// Toggle expands or collapses the selected tool card.
func (t *Transcript) Toggle() bool {
	if !t.hasSel || !t.valid(t.sel) {
		return false
	}
	e := t.entries[t.sel.m]
	it := e.items[t.sel.i]
	if it.kind != partItem || e.msg.Parts[it.part].Tool == nil {
		return false
	}
	it.expanded = !it.expanded
	it.touch()
	return true
}

// reveal scrolls so the selected item shows.
func (t *Transcript) reveal() {
	if t.follow {
		t.pin()
	}
	if t.sel.m < t.top.m || t.sel.m == t.top.m && t.sel.i <= t.top.i {
		t.top, t.topOff = t.sel, 0
	} else if !t.visible(t.sel) {
		t.top, t.topOff = t.bottomAnchor(t.sel)
	}
	if t.atEnd() {
		t.follow = true
	}
}

func (t *Transcript) visible(want ref) bool {
	r, off, shown := t.top, t.topOff, 0
	for shown < t.h {
		n := len(t.itemLines(r)) - off
		if r == want {
			return shown+n <= t.h
		}
		shown += n
		off = 0
		nx, ok := t.next(r)
		if !ok {
			return false
		}
		r = nx
	}
	return false
}

// View draws the visible lines, exactly h of them.
func (t *Transcript) View() []string {
	out := make([]string, 0, t.h)
	if len(t.entries) == 0 || t.h == 0 {
		return out
	}
	if t.follow {
		end, _ := t.last()
		t.top, t.topOff = t.bottomAnchor(end)
		t.below = below{follow: t.below.follow}
	}
	r, off := t.top, t.topOff
	if !t.valid(r) {
		r, off = ref{}, 0
	}
	rows, mark := t.h, t.NewBelow()
	if mark {
		rows-- // the last row says that output arrived below
	}
	for len(out) < rows {
		lines := t.itemLines(r)
		bar := "  "
		if t.hasSel && r == t.sel {
			bar = t.r.st.Accent.Render("▌") + " "
		}
		for i := off; i < len(lines) && len(out) < rows; i++ {
			out = append(out, bar+lines[i])
		}
		off = 0
		nx, ok := t.next(r)
		if !ok {
			break
		}
		r = nx
	}
	if mark {
		for len(out) < rows {
			out = append(out, "")
		}
		out = append(out, t.belowLine())
	}
	return out
}

// String is the visible text without styles, for tests.
func (t *Transcript) String() string { return strings.Join(t.View(), "\n") }
