package cli

import (
	"fmt"
	"sort"
	"strings"

	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui"
	"github.com/atelier-studio/atelier/tui/keys"
)

// The config package checks every key's type and shape, but two values
// only the studio can judge: a [keys] override (is there such an action,
// can the studio read the key, does it collide) and a ui.theme file (is it
// a theme). The studio reports those on its status line and goes on;
// `atelier config` checks them up front, with the file and line of each.

// studioProblems checks the configuration's [keys] table and theme file as
// the studio will apply them.
func studioProblems(cfg *config.Config) []config.Problem {
	var out []config.Problem
	at := func(key, msg string) config.Problem {
		file, line := cfg.Source(key)
		return config.Problem{File: file, Line: line, Key: key, Kind: config.KindValue, Msg: msg}
	}
	for _, kp := range keyProblems(cfg.Keys) {
		out = append(out, at("keys."+kp.action, kp.msg))
	}
	if cfg.UI.ThemeFile != "" {
		if _, err := themes.Load(cfg.UI.ThemeFile); err != nil {
			out = append(out, at("ui.theme", "not a theme file the studio can use: "+err.Error()))
		}
	}
	return out
}

// keyProblem is one [keys] override the studio would refuse.
type keyProblem struct {
	action, msg string
}

// keyProblems checks [keys] (action name → key) against the studio's
// keymaps (tui.Scopes, each binding named as [keys] names it): the action
// must exist, the key must be one the studio reads, and the key must not
// collide, in the action's own keymap or between a global key and a
// pane's (the pane would never see it). Keymaps that take every key (a
// terminal, the editor) and the dialogs are not shadowed by global keys.
func keyProblems(over map[string]string) []keyProblem {
	scopes := tui.Scopes()
	type place struct{ scope, binding int }
	index := map[string]place{}
	for si, sc := range scopes {
		for bi, name := range sc.Names {
			if name != "" {
				index[name] = place{si, bi}
			}
		}
	}
	names := make([]string, 0, len(over))
	for n := range over {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []keyProblem
	rebound := map[string]place{}
	for _, name := range names {
		want := strings.TrimSpace(over[name])
		p, ok := index[name]
		switch {
		case !ok:
			out = append(out, keyProblem{name, "no such action (docs/keybindings.md names them)"})
		case want == "" || keys.Press(want).String() != want:
			out = append(out, keyProblem{name, fmt.Sprintf("%q is not a key the studio can read (write it like \"ctrl+n\", \"x\", \"f5\")", want)})
		default:
			keys.Rebind(&scopes[p.scope].Bindings[p.binding], want)
			rebound[name] = p
		}
	}
	for _, name := range names {
		p, ok := rebound[name]
		if !ok {
			continue
		}
		if clash := collisions(scopes, p.scope, strings.TrimSpace(over[name])); clash != "" {
			out = append(out, keyProblem{name, clash})
		}
	}
	return out
}

// collisions says how key k, now bound in scopes[si], collides; "" when
// it does not. scopes[0] holds the global keys, matched before a pane's.
func collisions(scopes []keys.Scope, si int, k string) string {
	var found []string
	with := func(lines []string, format string) {
		for _, l := range lines {
			if key, rest, _ := strings.Cut(l, ": "); key == k {
				found = append(found, fmt.Sprintf(format, rest))
			}
		}
	}
	with(scopes[si].Conflicts(), "in "+scopes[si].Name+" it would act for: %s")
	for sj, sc := range scopes[1:] {
		pane := sj + 1
		if len(sc.Names) == 0 || sc.TakesKeys || (si != 0 && si != pane) {
			continue
		}
		with(sc.Shadowed(scopes[0]), "in "+sc.Name+" %s, and global keys act first")
	}
	if len(found) == 0 {
		return ""
	}
	return fmt.Sprintf("%q collides: %s", k, strings.Join(found, "; "))
}
