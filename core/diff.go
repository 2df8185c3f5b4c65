package core

import (
	"fmt"
	"strings"
)

// UnifiedDiff renders a unified diff of two texts with three lines of
// context, for approvals of writes. It uses a longest-common-subsequence
// table, so it is meant for files of ordinary size; beyond maxDiffCells it
// falls back to showing the whole old and new content as one hunk.
func UnifiedDiff(name, old, neu string) string {
	if old == neu {
		return ""
	}
	a, b := splitLines(old), splitLines(neu)
	ops := diffLines(a, b)
	var out strings.Builder
	fmt.Fprintf(&out, "--- a/%s\n+++ b/%s\n", name, name)
	const ctx = 3
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(i-ctx, 0)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run-end > 2*ctx || run == len(ops) {
				end = min(end+ctx, len(ops))
				break
			}
			end = run
		}
		aStart, bStart, aN, bN := hunkRange(ops, start, end)
		fmt.Fprintf(&out, "@@ -%d,%d +%d,%d @@\n", aStart, aN, bStart, bN)
		for _, op := range ops[start:end] {
			out.WriteByte(op.kind)
			out.WriteString(op.text)
			out.WriteByte('\n')
		}
		i = end
	}
	return out.String()
}

type diffOp struct {
	kind   byte // ' ', '-', '+'
	text   string
	ai, bi int // line numbers (1-based) in a and b before this op
}

const maxDiffCells = 4_000_000

func diffLines(a, b []string) []diffOp {
	if len(a)*len(b) > maxDiffCells {
		var ops []diffOp
		for i, l := range a {
			ops = append(ops, diffOp{'-', l, i + 1, 1})
		}
		for j, l := range b {
			ops = append(ops, diffOp{'+', l, len(a) + 1, j + 1})
		}
		return ops
	}
	n, m := len(a), len(b)
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []diffOp
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			ops = append(ops, diffOp{' ', a[i], i + 1, j + 1})
			i++
			j++
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			ops = append(ops, diffOp{'+', b[j], i + 1, j + 1})
			j++
		default:
			ops = append(ops, diffOp{'-', a[i], i + 1, j + 1})
			i++
		}
	}
	return ops
}

func hunkRange(ops []diffOp, start, end int) (aStart, bStart, aN, bN int) {
	aStart, bStart = ops[start].ai, ops[start].bi
	for _, op := range ops[start:end] {
		if op.kind != '+' {
			aN++
		}
		if op.kind != '-' {
			bN++
		}
	}
	if aN == 0 {
		aStart--
	}
	if bN == 0 {
		bStart--
	}
	return
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	s = strings.TrimSuffix(s, "\n")
	return strings.Split(s, "\n")
}
