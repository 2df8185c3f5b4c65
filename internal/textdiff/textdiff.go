package textdiff

import (
	"fmt"
	"strings"
)

// Op is one step of an edit script: keep, delete or insert.
type Op struct {
	Kind byte // '=', '-' or '+'
	A, B int  // the index in a (for '=' and '-') and in b (for '=' and '+')
}

// The search's work is counted in steps (a diagonal reached or a pair of
// lines compared: a few nanoseconds each) and bounded twice. The search
// for one split point may take split steps plus perLine for each line of
// its region; past that it splits at the point it got furthest to, which
// is on a short path but not always a shortest one. The whole script may
// take script steps plus perLine twice for each line of a and b; past
// that what is left is reported as removed, then added. Typical edits
// stay far below both: a 10,000-line file with one line in seven changed
// takes about a quarter of the first split's allowance.
type limits struct{ split, script, perLine int }

var defaultLimits = limits{split: 1 << 16, script: 1 << 21, perLine: 64}

// Script returns an edit script from a to b, in time and space linear in
// their lengths. It is a shortest one (Myers' algorithm in linear space,
// by halving at the middle of each region) unless the texts differ too
// much for the bounds above. In each run of changes the removals come
// before the additions.
func Script(a, b []string) []Op {
	d := newDiffer(a, b, defaultLimits)
	d.compare(0, len(d.a), 0, len(d.b))
	return d.script()
}

// newDiffer numbers the lines so the search compares integers, and sets
// aside the lines that have no equal on the other side: they are removed
// or added in every script, so leaving them out of the search changes no
// shortest script's length and, for a typical edit, leaves the search
// little to do.
func newDiffer(a, b []string, lim limits) *differ {
	ids := make(map[string]int32, len(a))
	ia := make([]int32, len(a))
	for i, s := range a {
		id, ok := ids[s]
		if !ok {
			id = int32(len(ids))
			ids[s] = id
		}
		ia[i] = id
	}
	inB := make([]bool, len(ids))
	ib := make([]int32, len(b))
	for j, s := range b {
		id, ok := ids[s]
		if !ok {
			id = -1
		} else {
			inB[id] = true
		}
		ib[j] = id
	}
	d := &differ{
		a: make([]int32, 0, len(a)), b: make([]int32, 0, len(b)),
		at: make([]int, 0, len(a)), bt: make([]int, 0, len(b)),
		del: make([]bool, len(a)), ins: make([]bool, len(b)),
		lim:  lim,
		left: lim.script + 2*lim.perLine*(len(a)+len(b)),
	}
	for i, id := range ia {
		if inB[id] {
			d.a = append(d.a, id)
			d.at = append(d.at, i)
		} else {
			d.del[i] = true
		}
	}
	for j, id := range ib {
		if id >= 0 {
			d.b = append(d.b, id)
			d.bt = append(d.bt, j)
		} else {
			d.ins[j] = true
		}
	}
	d.ra, d.rb = reversed(d.a), reversed(d.b)
	if n := len(d.a) + len(d.b) + 1; n > 1 {
		d.fwd, d.bwd = make([]int, n), make([]int, n)
	}
	return d
}

func reversed(s []int32) []int32 {
	r := make([]int32, len(s))
	for i, v := range s {
		r[len(s)-1-i] = v
	}
	return r
}

// differ holds one Script's search: the lines both sides have, as
// numbers, the same reversed (ra, rb) for the backward search, and where
// each was in the input (at, bt); which input lines are removed and
// added; the two frontiers, reused by every region so the search
// allocates nothing after the start; and the steps left to the script
// and to the current split (floor: the value of left where the split
// stops). Regions are ranges of indexes into a and b.
type differ struct {
	a, b     []int32
	ra, rb   []int32
	at, bt   []int
	del, ins []bool
	fwd, bwd []int
	lim      limits
	left     int
	floor    int
}

// compare marks the changes between a[x0:x1] and b[y0:y1]: it trims what
// the two share at both ends, splits the rest on a shortest path and
// settles the first half by recursion, the second by looping. Each split
// on a shortest path halves the changes left, so the depth is about their
// logarithm; a split the bounds cut short adds a level.
func (d *differ) compare(x0, x1, y0, y1 int) {
	for {
		for x0 < x1 && y0 < y1 && d.a[x0] == d.b[y0] {
			x0, y0 = x0+1, y0+1
		}
		for x0 < x1 && y0 < y1 && d.a[x1-1] == d.b[y1-1] {
			x1, y1 = x1-1, y1-1
		}
		if x0 == x1 || y0 == y1 {
			d.replace(x0, x1, y0, y1)
			return
		}
		x, y, ok := d.split(x0, x1, y0, y1)
		if !ok {
			d.replace(x0, x1, y0, y1)
			return
		}
		d.compare(x0, x, y0, y)
		x0, y0 = x, y
	}
}

// replace marks all of a[x0:x1] removed and all of b[y0:y1] added.
func (d *differ) replace(x0, x1, y0, y1 int) {
	for i := x0; i < x1; i++ {
		d.del[d.at[i]] = true
	}
	for j := y0; j < y1; j++ {
		d.ins[d.bt[j]] = true
	}
}

// split finds a point on a shortest path from the start to the end of
// the region a[x0:x1], b[y0:y1], neither its start nor its end, by
// running Myers' search forward from the start and backward from the end
// until the two frontiers meet. The region must not start or end with a
// match and must be non-empty on both sides, so at least two edits
// separate its ends. When the steps run out first, it splits where a
// search got furthest; it returns false when there is no such point.
func (d *differ) split(x0, x1, y0, y1 int) (x, y int, ok bool) {
	if d.left <= 0 {
		return 0, 0, false
	}
	n, m := x1-x0, y1-y0
	fa, fb := d.a[x0:x1], d.b[y0:y1]
	ba, bb := d.ra[len(d.a)-x1:len(d.a)-x0], d.rb[len(d.b)-y1:len(d.b)-y0]
	fwd, bwd := d.fwd[:n+m+1], d.bwd[:n+m+1]
	odd := (n-m)&1 != 0
	d.floor = max(d.left-d.lim.split-d.lim.perLine*(n+m), 0)
	for e := 0; e <= (n+m+1)/2; e++ {
		// Forward, e edits from the start: with an odd difference of
		// lengths the paths meet after the backward search made e-1.
		x, y, r := d.pass(fa, fb, fwd, bwd, e, odd, e-1)
		switch r {
		case met:
			return x0 + x, y0 + y, true
		case spent:
			return d.furthest(x0, x1, y0, y1, e-1, e-1)
		}
		// Backward, e edits from the end: with an even difference they
		// meet after the forward search made e.
		x, y, r = d.pass(ba, bb, bwd, fwd, e, !odd, e)
		switch r {
		case met:
			return x1 - x, y1 - y, true
		case spent:
			return d.furthest(x0, x1, y0, y1, e, e-1)
		}
	}
	// The frontiers always meet by then; a region that breaks the
	// precondition is settled as a replacement rather than looping.
	return 0, 0, false
}

// furthest returns the point of the region a[x0:x1], b[y0:y1] furthest
// from the corner its search started at, among the frontiers of fe edits
// forward and be backward, or false when none is inside the region.
func (d *differ) furthest(x0, x1, y0, y1, fe, be int) (x, y int, ok bool) {
	n, m := x1-x0, y1-y0
	best := 0
	for k := max(-fe, -m); fe >= 0 && k <= min(fe, n); k++ {
		if (k+fe)&1 != 0 {
			continue
		}
		if p := d.fwd[k+m]; p >= 0 && 2*p-k > best && 2*p-k < n+m {
			best, x, y = 2*p-k, x0+p, y0+p-k
		}
	}
	for k := max(-be, -m); be >= 0 && k <= min(be, n); k++ {
		if (k+be)&1 != 0 {
			continue
		}
		if p := d.bwd[k+m]; p >= 0 && 2*p-k > best && 2*p-k < n+m {
			best, x, y = 2*p-k, x1-p, y1-(p-k)
		}
	}
	return x, y, best > 0
}

// The outcomes of a pass.
const (
	going = iota // the frontier moved on
	met          // it met the other one
	spent        // the steps ran out
)

// pass moves the frontier v of one search from e-1 edits to e. a and b
// are the region as this search reads it, from its start (forward) or
// from its end (backward, both reversed); other is the frontier of the
// other search, which has made oe edits. When check is set and a path
// reaches a diagonal where the other search has got at least as far, the
// paths meet: pass returns the end of that path, in its own coordinates.
//
// v[k+m] holds the furthest x reached on diagonal k = x-y, -1 where no
// path inside the region does. The two searches' diagonals k and k' of
// one point add up to n-m. A diagonal is read only once this call of
// split wrote it, so the buffers need no clearing between regions.
func (d *differ) pass(a, b []int32, v, other []int, e int, check bool, oe int) (int, int, int) {
	n, m := len(a), len(b)
	lo, hi := max(-e, -m), min(e, n)
	if (lo+e)&1 != 0 {
		lo++
	}
	// The diagonals the last round wrote, and those the other search has.
	plo, phi := max(-(e-1), -m), min(e-1, n)
	olo, ohi := max(-oe, -m), min(oe, n)
	for k := lo; k <= hi; k += 2 {
		x := -1
		switch e {
		case 0:
			x = 0
		default:
			// A step down from diagonal k+1 (an insertion) or right
			// from k-1 (a deletion), whichever gets further.
			if k+1 <= phi {
				if p := v[k+1+m]; p >= 0 && p-(k+1) < m {
					x = p
				}
			}
			if k-1 >= plo {
				if p := v[k-1+m]; p >= 0 && p < n && p+1 > x {
					x = p + 1
				}
			}
		}
		if x < 0 {
			v[k+m] = -1
			continue
		}
		y := x - k
		for x < n && y < m && a[x] == b[y] {
			x, y = x+1, y+1
			d.left--
		}
		v[k+m] = x
		d.left--
		if d.left < d.floor {
			return 0, 0, spent
		}
		if ok := n - m - k; check && ok >= olo && ok <= ohi {
			if ox := other[ok+m]; ox >= 0 && x+ox >= n {
				return x, y, met
			}
		}
	}
	return 0, 0, going
}

// script turns the marks into the edit script, each run of changes as
// its removals then its additions.
func (d *differ) script() []Op {
	n, m := len(d.del), len(d.ins)
	ops := make([]Op, 0, max(n, m))
	i, j := 0, 0
	for i < n || j < m {
		if (i < n && d.del[i]) || (j < m && d.ins[j]) {
			for ; i < n && d.del[i]; i++ {
				ops = append(ops, Op{'-', i, j})
			}
			for ; j < m && d.ins[j]; j++ {
				ops = append(ops, Op{'+', i, j})
			}
			continue
		}
		ops = append(ops, Op{'=', i, j})
		i, j = i+1, j+1
	}
	return ops
}

// Unified returns the unified diff from a to b with context lines around
// each change, "" when they are the same.
func Unified(nameA, nameB string, a, b []string, context int) string {
	ops := Script(a, b)
	var sb strings.Builder
	for i := 0; i < len(ops); {
		if ops[i].Kind == '=' {
			i++
			continue
		}
		// A hunk: from context lines before the change to context lines
		// after the last change that is closer than 2*context to the next.
		start := max(i-context, 0)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].Kind != '=' {
				end = j
			} else if j-end > 2*context {
				break
			}
		}
		stop := min(end+context+1, len(ops))
		if sb.Len() == 0 {
			fmt.Fprintf(&sb, "--- %s\n+++ %s\n", nameA, nameB)
		}
		hunk(&sb, ops[start:stop], a, b)
		i = stop
	}
	return sb.String()
}

func hunk(sb *strings.Builder, ops []Op, a, b []string) {
	la, lb := 0, 0
	for _, o := range ops {
		if o.Kind != '+' {
			la++
		}
		if o.Kind != '-' {
			lb++
		}
	}
	fmt.Fprintf(sb, "@@ -%d,%d +%d,%d @@\n", ops[0].A+min(la, 1), la, ops[0].B+min(lb, 1), lb)
	for _, o := range ops {
		switch o.Kind {
		case '=':
			writeLine(sb, ' ', a[o.A])
		case '-':
			writeLine(sb, '-', a[o.A])
		case '+':
			writeLine(sb, '+', b[o.B])
		}
	}
}

func writeLine(sb *strings.Builder, mark byte, line string) {
	sb.WriteByte(mark)
	sb.WriteString(line)
	sb.WriteByte('\n')
}
