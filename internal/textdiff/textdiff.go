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

// maxEdits bounds the work of Script: past this many differences the
// middle of the two texts is reported as all removed, then all added.
const maxEdits = 2000

// Script returns a shortest edit script from a to b (Myers' algorithm),
// after trimming what the two share at both ends.
func Script(a, b []string) []Op {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ops := make([]Op, 0, pre+suf+8)
	for i := 0; i < pre; i++ {
		ops = append(ops, Op{'=', i, i})
	}
	for _, o := range middle(a[pre:len(a)-suf], b[pre:len(b)-suf]) {
		o.A += pre
		o.B += pre
		ops = append(ops, o)
	}
	for i := 0; i < suf; i++ {
		ops = append(ops, Op{'=', len(a) - suf + i, len(b) - suf + i})
	}
	return ops
}

// middle runs Myers' greedy algorithm, keeping each round's frontier to
// walk the path back.
func middle(a, b []string) []Op {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return replaceAll(n, m)
	}
	off := n + m
	v := make([]int, 2*off+2)
	var trace [][]int
	found := -1
	for d := 0; d <= min(n+m, maxEdits) && found < 0; d++ {
		trace = append(trace, append([]int(nil), v...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[k-1+off] < v[k+1+off] {
				x = v[k+1+off]
			} else {
				x = v[k-1+off] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[k+off] = x
			if x >= n && y >= m {
				found = d
				break
			}
		}
	}
	if found < 0 {
		return replaceAll(n, m)
	}
	var rev []Op
	x, y := n, m
	for d := found; d > 0; d-- {
		pv := trace[d]
		k := x - y
		var pk int
		if k == -d || k != d && pv[k-1+off] < pv[k+1+off] {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := pv[pk+off]
		py := px - pk
		for x > px && y > py {
			x, y = x-1, y-1
			rev = append(rev, Op{'=', x, y})
		}
		if pk == k+1 {
			y--
			rev = append(rev, Op{'+', x, y})
		} else {
			x--
			rev = append(rev, Op{'-', x, y})
		}
	}
	for x > 0 && y > 0 {
		x, y = x-1, y-1
		rev = append(rev, Op{'=', x, y})
	}
	out := make([]Op, len(rev))
	for i, o := range rev {
		out[len(rev)-1-i] = o
	}
	return out
}

func replaceAll(n, m int) []Op {
	ops := make([]Op, 0, n+m)
	for i := 0; i < n; i++ {
		ops = append(ops, Op{'-', i, 0})
	}
	for j := 0; j < m; j++ {
		ops = append(ops, Op{'+', n, j})
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
			sb.WriteString(" " + a[o.A] + "\n")
		case '-':
			sb.WriteString("-" + a[o.A] + "\n")
		case '+':
			sb.WriteString("+" + b[o.B] + "\n")
		}
	}
}
