package tui

import (
	"github.com/charmbracelet/x/ansi"
)

// Smallest terminal the studio draws in, and the smallest that shows every
// pane at once: between the two it shows one pane at a time (single).
const (
	MinWidth   = 40
	MinHeight  = 12
	FullWidth  = 80
	FullHeight = 24
)

// rect is a pane's outer box on the screen.
type rect struct{ x, y, w, h int }

func (r rect) contains(x, y int) bool { return x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h }

// inner is the content row of a screen row, or -1 on the border.
func (r rect) inner(y int) int {
	if y <= r.y || y >= r.y+r.h-1 {
		return -1
	}
	return y - r.y - 1
}

// areas is where each pane goes.
type areas struct {
	sessions, files, center, activity, actions rect
}

func clamp(v, lo, hi int) int { return min(max(v, lo), hi) }

// screen owns the studio's geometry: the terminal's size, the pane with
// the keys, and how the panes share the screen (collapsed sides, a
// zoomed pane, a side column's border being dragged). It computes where
// each pane goes from these and the side widths the operator chose (ui);
// the root sizes the panes from its areas and changes its state on keys,
// mouse and resizes.
type screen struct {
	ui    *UIState // the studio's: the side columns' widths
	w, h  int
	focus focus
	// sidesHidden: narrow, the side panes are collapsed.
	sidesHidden bool
	// zoomed: the focused pane or tab takes the whole screen (z).
	zoomed bool
	// drag is a side column's border held by the mouse.
	drag drag
	// termBlurred: the terminal the studio runs in lost the focus.
	termBlurred bool
	// copyMode: the mouse is released for the terminal's own selection.
	copyMode bool
	// sel is a text selection being dragged inside a pane.
	sel mouseSel
}

// NarrowWidth is the width below which the side panes may be collapsed
// (the Sides key toggles them; opening a tab collapses them).
const NarrowWidth = 100

// narrow reports whether the terminal is narrow.
func (sc *screen) narrow() bool { return sc.w < NarrowWidth }

// collapsed reports whether the side panes are hidden: narrow, and
// collapsed by the operator or by opening a tab.
func (sc *screen) collapsed() bool { return sc.narrow() && sc.sidesHidden && !sc.single() }

// single reports whether the terminal is too small for every pane at once
// but large enough for one: the focused pane takes the screen under a
// header naming the panes (singleHeader), and tab moves between them.
func (sc *screen) single() bool { return !sc.tooSmall() && (sc.w < FullWidth || sc.h < FullHeight) }

// onePane reports whether the focused pane takes the screen: zoomed, or
// single.
func (sc *screen) onePane() bool { return sc.zoomed || sc.single() }

// areas splits the screen: sessions over files on the left, the tabs in
// the centre, activity over Action required on the right, the status line
// at the bottom. Collapsed, the centre takes the whole width.
func (sc *screen) areas() areas {
	bodyH := sc.h - 1
	if sc.onePane() {
		// The focused pane takes the body (under the header, single);
		// the others have no room.
		top := 0
		if sc.single() {
			top = 1
		}
		full := rect{0, top, sc.w, bodyH - top}
		switch sc.focus {
		case focusSessions:
			return areas{sessions: full}
		case focusFiles:
			return areas{files: full}
		case focusActivity:
			return areas{activity: full}
		case focusActions:
			return areas{actions: full}
		}
		return areas{center: full}
	}
	if sc.collapsed() {
		return areas{center: rect{0, 0, sc.w, bodyH}}
	}
	left, right := sc.sideWidths()
	center := sc.w - left - right
	if sc.stacked() {
		return sc.stackedAreas(left, center, bodyH)
	}
	sessH := clamp(bodyH*45/100, 6, bodyH-5)
	actH := clamp(bodyH*60/100, 8, bodyH-5)
	return areas{
		sessions: rect{0, 0, left, sessH},
		files:    rect{0, sessH, left, bodyH - sessH},
		center:   rect{left, 0, center, bodyH},
		activity: rect{left + center, 0, right, bodyH - actH},
		actions:  rect{left + center, bodyH - actH, right, actH},
	}
}

// sideWidths are the left and right columns' widths: the remembered ones
// (UIState) when they leave the centre room, else a share of the screen.
// Stacked, there is no right column.
func (sc *screen) sideWidths() (left, right int) {
	if sc.stacked() {
		left = clamp(sc.w*22/100, 24, 40)
		if sc.ui.Left > 0 && sc.w-sc.ui.Left >= minCenter {
			left = sc.ui.Left
		}
		return left, 0
	}
	left = clamp(sc.w*22/100, 24, 40)
	right = clamp(sc.w*26/100, 28, 50)
	if sc.ui.Left > 0 {
		left = sc.ui.Left
	}
	if sc.ui.Right > 0 {
		right = sc.ui.Right
	}
	if sc.w-left-right < minCenter {
		left = clamp(sc.w*22/100, 24, 40)
		right = clamp(sc.w*26/100, 28, 50)
	}
	return left, right
}

func (sc *screen) tooSmall() bool { return sc.w < MinWidth || sc.h < MinHeight }

// layout gives every pane its inside size.
func (a *App) layout() {
	if a.scr.tooSmall() {
		return
	}
	ar := a.scr.areas()
	in := func(r rect) (int, int) { return max(r.w-2, 0), max(r.h-2, 0) }
	a.sessions.SetSize(in(ar.sessions))
	a.files.SetSize(in(ar.files))
	a.activity.SetSize(in(ar.activity))
	a.actions.SetSize(in(ar.actions))
	w, h := in(ar.center)
	for _, t := range a.tabs.list {
		t.SetSize(w, h)
	}
}

// tabSpan is where a tab's label sits in the centre's top border.
type tabSpan struct {
	x0, x1 int // screen columns [x0, x1)
	label  string
	index  int // the tab's index in a.tabs
}

// tabSep separates tab labels in the border.
const tabSep = " │ "

// tabSpans lays the tab labels out along the centre's top border, after
// the box's "╭─ ", and says how many tabs are hidden before and after
// them. The active tab is always shown: the strip starts at the first tab
// from which the active one still fits, and the hidden ones are marked
// "‹ N" and "N ›" (ctrl+t lists them all).
func (fr *chrome) tabSpans() (spans []tabSpan, before, after int) {
	ar := fr.scr.areas()
	start := ar.center.x + 3
	limit := ar.center.x + ar.center.w - 8 - ansi.StringWidth(fr.waitingMark())
	maxLabel := clamp((ar.center.w-8)/max(fr.tabs.len(), 1)-3, 8, 28)
	n := fr.tabs.len()
	if n == 0 {
		return nil, 0, 0
	}
	labels := make([]string, n)
	for i, t := range fr.tabs.list {
		labels[i] = ansi.Strip(t.Label(maxLabel))
	}
	sep := ansi.StringWidth(tabSep)
	marker := func(k int) int { return ansi.StringWidth(itoa(k)) + 2 + sep } // "‹ N" and a separator
	// fits reports whether tabs first..last fit with their markers.
	fits := func(first, last int) bool {
		w := 0
		if first > 0 {
			w += marker(first)
		}
		if last < n-1 {
			w += marker(n - 1 - last)
		}
		for i := first; i <= last; i++ {
			w += ansi.StringWidth(labels[i])
			if i > first {
				w += sep
			}
		}
		return start+w <= limit
	}
	active := min(fr.tabs.active, n-1)
	first := 0
	for first < active && !fits(first, active) {
		first++
	}
	last := active
	for last+1 < n && fits(first, last+1) {
		last++
	}
	x := start
	if first > 0 {
		x += marker(first)
	}
	for i := first; i <= last; i++ {
		w := ansi.StringWidth(labels[i])
		spans = append(spans, tabSpan{x, x + w, labels[i], i})
		x += w + sep
	}
	return spans, first, n - 1 - last
}
