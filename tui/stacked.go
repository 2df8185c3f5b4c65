package tui

// Between FullWidth and NarrowWidth (80 to 99 columns) three columns
// would leave the centre, where the transcript and its prompt are read,
// about 26 columns. There the side panes stack in one left column
// instead: Sessions, Files, Activity and Action required, each still on
// the screen to read and click, and the centre takes the rest (54 inside
// columns at 80x24).

// stacked reports whether the side panes share the left column.
func (sc *screen) stacked() bool { return sc.narrow() && !sc.single() }

// stackedAreas splits the left column among the four side panes: the
// sessions list and Action required, the two a user must reach, get the
// larger shares; the files and the activity at least a few rows each.
func (sc *screen) stackedAreas(left, center, bodyH int) areas {
	filesH := max(bodyH*20/100, 5)
	actH := max(bodyH*20/100, 5)
	sessH := max(bodyH*30/100, 6)
	needH := bodyH - sessH - filesH - actH
	y := 0
	next := func(h int) rect { r := rect{0, y, left, h}; y += h; return r }
	return areas{
		sessions: next(sessH),
		files:    next(filesH),
		activity: next(actH),
		actions:  next(needH),
		center:   rect{left, 0, center, bodyH},
	}
}
