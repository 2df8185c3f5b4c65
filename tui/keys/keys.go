package keys

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/themes"
)

// Scope is one keymap: the keys that act while one pane (or dialog, or the
// whole studio) has them.
type Scope struct {
	Name     string // "Sessions", "Global"...
	About    string // one line: when these keys act
	Bindings []key.Binding
	// TakesKeys marks a pane that receives every key while focused (a
	// terminal, the editor): the global keys never shadow it.
	TakesKeys bool
	// Short lists the help keys of the bindings worth a place in the status
	// line, in order; empty takes the first four.
	Short []string
	// Yield lists keys of this scope (the global keys) that act only where
	// the focused pane binds no key of its own to them, so a pane may bind
	// them without being shadowed.
	Yield []string
	// Names, when set, holds each binding's action name for the
	// configuration's [keys] table, in the order of Bindings (see Named).
	Names []string
}

// Far is a move past either end of any list: a pane's Scroll clamps it
// to the first or the last row, which is what the top and bottom keys
// (g and G, home and end) ask for.
const Far = 1 << 30

// New returns a binding for keys with the help key label and description.
func New(desc string, ks ...string) key.Binding {
	return key.NewBinding(key.WithKeys(ks...), key.WithHelp(Label(ks), desc))
}

// Label is how keys are shown: "a", "shift+tab", "↑/k".
func Label(ks []string) string {
	out := make([]string, len(ks))
	for i, k := range ks {
		switch k {
		case "up":
			k = "↑"
		case "down":
			k = "↓"
		case "left":
			k = "←"
		case "right":
			k = "→"
		case " ":
			k = "space"
		}
		out[i] = k
	}
	return strings.Join(out, "/")
}

// Conflicts lists every key bound twice within the scope, as "key: desc1,
// desc2" lines, sorted.
func (s Scope) Conflicts() []string {
	by := map[string][]string{}
	for _, b := range s.Bindings {
		for _, k := range b.Keys() {
			by[k] = append(by[k], b.Help().Desc)
		}
	}
	var out []string
	for k, ds := range by {
		if len(ds) > 1 {
			out = append(out, fmt.Sprintf("%s: %s", k, strings.Join(ds, ", ")))
		}
	}
	sort.Strings(out)
	return out
}

// Shadowed lists the keys of s that an earlier scope in the routing order
// (the global keys, say) takes first, so s never sees them.
func (s Scope) Shadowed(earlier Scope) []string {
	taken := map[string]string{}
	for _, b := range earlier.Bindings {
		for _, k := range b.Keys() {
			if !slices.Contains(earlier.Yield, k) {
				taken[k] = b.Help().Desc
			}
		}
	}
	var out []string
	for _, b := range s.Bindings {
		for _, k := range b.Keys() {
			if d, ok := taken[k]; ok {
				out = append(out, fmt.Sprintf("%s: %q is taken by %q", k, b.Help().Desc, d))
			}
		}
	}
	return out
}

// Hints renders the scope's short help for the status line: "n new · ? keys".
func (s Scope) Hints(st themes.Styles) string {
	pick := s.Short
	var bs []key.Binding
	if len(pick) == 0 {
		bs = s.Bindings[:min(4, len(s.Bindings))]
	} else {
		for _, want := range pick {
			for _, b := range s.Bindings {
				if b.Help().Key == want {
					bs = append(bs, b)
				}
			}
		}
	}
	parts := make([]string, 0, len(bs))
	for _, b := range bs {
		parts = append(parts, st.Key.Render(b.Help().Key)+" "+st.Hint.Render(firstWord(b.Help().Desc)))
	}
	return strings.Join(parts, st.Hint.Render(" · "))
}

// HelpLines renders the scope as a two-column list fitting width.
func (s Scope) HelpLines(st themes.Styles, width int) []string {
	kw := 0
	for _, b := range s.Bindings {
		kw = max(kw, ansi.StringWidth(b.Help().Key))
	}
	out := make([]string, 0, len(s.Bindings))
	for _, b := range s.Bindings {
		k := b.Help().Key
		line := st.Key.Render(k) + strings.Repeat(" ", kw-ansi.StringWidth(k)+2) + st.Base.Render(b.Help().Desc)
		out = append(out, ansi.Truncate(line, width, "…"))
	}
	return out
}

// Markdown renders scopes as the keybindings reference.
func Markdown(scopes []Scope) string {
	var b strings.Builder
	b.WriteString("# Keybindings\n\n")
	b.WriteString("<!-- Generated from the studio's keymaps by `go test ./tui -run TestKeybindingsDoc -update`. Do not edit. -->\n\n")
	b.WriteString("Keys are routed in this order: the open dialog, then the global keys, then the focused pane. ")
	b.WriteString("A pane that takes text (an input line, a filter) receives every key but `esc`, which gives focus back, and `ctrl+c`. ")
	b.WriteString("An editor or terminal tab with the keys receives every key, `esc` and `ctrl+c` included, but `ctrl+]`, which gives them back to the studio; `enter` gives them to the tab again. ")
	b.WriteString("`:` opens the command palette: every action below, by name.\n\n")
	b.WriteString("The `[keys]` table of the configuration gives an action another key, by the name in the last column: ")
	b.WriteString("`quit = \"ctrl+q\"` or `\"files.delete\" = \"x\"` (one key per action, replacing its keys). ")
	b.WriteString("An unknown name, a key the studio cannot read, or a key another action of the same keys already has ")
	b.WriteString("(or, for a pane, that a global key takes first) is reported in the status line and that override is ignored.\n")
	for _, s := range scopes {
		fmt.Fprintf(&b, "\n## %s\n\n", s.Name)
		if s.About != "" {
			b.WriteString(s.About + "\n\n")
		}
		if len(s.Names) == 0 {
			b.WriteString("| key | action |\n|---|---|\n")
			for _, k := range s.Bindings {
				fmt.Fprintf(&b, "| `%s` | %s |\n", escapeCell(k.Help().Key), k.Help().Desc)
			}
			continue
		}
		b.WriteString("| key | action | `[keys]` name |\n|---|---|---|\n")
		for i, k := range s.Bindings {
			fmt.Fprintf(&b, "| `%s` | %s | `%s` |\n", escapeCell(k.Help().Key), k.Help().Desc, s.Names[i])
		}
	}
	return b.String()
}

func escapeCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// firstWord is a description's verb, enough for a hint: "open its tab"
// gives "open".
func firstWord(desc string) string {
	if i := strings.IndexAny(desc, " :("); i > 0 {
		return desc[:i]
	}
	return desc
}
