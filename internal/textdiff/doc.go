// Package textdiff computes line diffs: an edit script (Myers' algorithm
// in linear space, with bounded work) and unified diffs from it. The
// engine's approvals and the studio's diff views share it. Its time and
// memory grow linearly with the texts: past a bound on the search it gives
// a longer script, never a slower one.
package textdiff
