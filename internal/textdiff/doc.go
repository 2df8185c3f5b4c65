// Package textdiff computes line diffs: a shortest edit script (Myers'
// algorithm, bounded) and unified diffs from it. The engine's approvals
// and the studio's diff views share it.
package textdiff
