package transcript

// A path mention in the prompt, as Claude Code's "@" file mentions: "@"
// then letters offers the workspace's paths that match, tab or enter puts
// the chosen one in as "@path", esc leaves the word as typed. The paths
// are the root's list (SetPaths), loaded in a command and kept: a key
// only filters it, with no I/O.

import "strings"

// mentionRows is how many matching paths show at most.
const mentionRows = 5

// SetPaths gives the tab the workspace's paths to complete (folders end
// in "/"), nil while none are loaded.
func (t *Tab) SetPaths(paths []string) {
	t.paths = paths
	if t.typing {
		t.suggest()
	}
}

// WantsPaths reports whether the tab would complete a mention but has no
// paths yet.
func (t *Tab) WantsPaths() bool {
	_, _, ok := t.in.Mention()
	return ok && t.paths == nil && t.typing
}

// suggest lists the paths matching the mention at the cursor, none when
// the cursor is in no mention or the operator dismissed this one.
func (t *Tab) suggest() {
	start, word, ok := t.in.Mention()
	if !ok || (t.dismissed && start == t.dismissedAt) {
		t.sugg = nil
		return
	}
	t.dismissed = false
	t.sugg = matchPaths(t.paths, word, mentionRows)
	t.suggSel = min(t.suggSel, max(len(t.sugg)-1, 0))
}

// mentionKey takes a key while suggestions show: tab or enter accepts the
// selected one, esc dismisses them, up and down move; it reports whether
// it used the key.
func (t *Tab) mentionKey(k string) bool {
	if len(t.sugg) == 0 {
		return false
	}
	switch k {
	case "tab", "enter":
		start, _, _ := t.in.Mention()
		p := t.sugg[t.suggSel]
		if !strings.HasSuffix(p, "/") {
			p += " " // a file ends the word; a folder goes on into it
		}
		t.in.Replace(start, "@"+p)
		t.sugg, t.suggSel = nil, 0
		t.suggest()
	case "esc":
		start, _, _ := t.in.Mention()
		t.sugg, t.dismissed, t.dismissedAt = nil, true, start
	case "up":
		t.suggSel = max(t.suggSel-1, 0)
	case "down":
		t.suggSel = min(t.suggSel+1, len(t.sugg)-1)
	default:
		return false
	}
	return true
}

// mentionLines draws the suggestions above the input line.
func (t *Tab) mentionLines() []string {
	if !t.typing || len(t.sugg) == 0 {
		return nil
	}
	out := make([]string, 0, len(t.sugg))
	for i, p := range t.sugg {
		line := "  @" + p
		if i == t.suggSel {
			out = append(out, t.st.Selected.Render(line))
			continue
		}
		out = append(out, t.st.Subtle.Render(line))
	}
	return out
}

// matchPaths returns at most n paths matching word, case-insensitively:
// those the word begins first, then those with a segment (after a "/")
// the word begins, each group shortest first. A prefix match and not a
// fuzzy one: what is typed after "@" is the start of a name, as in a
// shell's completion. It keeps only the best n as it goes: a key on a
// 20,000-path list allocates nothing per path.
func matchPaths(paths []string, word string, n int) []string {
	type hit struct {
		p    string
		rank int
	}
	better := func(a, b hit) bool {
		if a.rank != b.rank {
			return a.rank < b.rank
		}
		if len(a.p) != len(b.p) {
			return len(a.p) < len(b.p)
		}
		return a.p < b.p
	}
	best := make([]hit, 0, n+1)
	for _, p := range paths {
		rank := -1
		switch {
		case hasPrefixFold(p, word):
			rank = 0
		case word != "" && segmentPrefix(p, word):
			rank = 1
		}
		if rank < 0 {
			continue
		}
		h := hit{p, rank}
		if len(best) == n && !better(h, best[n-1]) {
			continue
		}
		i := len(best)
		for i > 0 && better(h, best[i-1]) {
			i--
		}
		best = append(best, hit{})
		copy(best[i+1:], best[i:])
		best[i] = h
		if len(best) > n {
			best = best[:n]
		}
	}
	out := make([]string, 0, len(best))
	for _, h := range best {
		out = append(out, h.p)
	}
	return out
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// segmentPrefix reports whether a segment of p after its first begins
// with word.
func segmentPrefix(p, word string) bool {
	for i := 0; i < len(p); i++ {
		if p[i] == '/' && hasPrefixFold(p[i+1:], word) {
			return true
		}
	}
	return false
}
