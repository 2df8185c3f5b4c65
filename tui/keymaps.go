package tui

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"

	"github.com/atelier-studio/atelier/tui/actions"
	"github.com/atelier-studio/atelier/tui/activity"
	"github.com/atelier-studio/atelier/tui/dialog"
	"github.com/atelier-studio/atelier/tui/diff"
	"github.com/atelier-studio/atelier/tui/editor"
	"github.com/atelier-studio/atelier/tui/files"
	"github.com/atelier-studio/atelier/tui/keys"
	"github.com/atelier-studio/atelier/tui/sessions"
	"github.com/atelier-studio/atelier/tui/settings"
	"github.com/atelier-studio/atelier/tui/terminal"
	"github.com/atelier-studio/atelier/tui/transcript"
	"github.com/atelier-studio/atelier/tui/workspaces"
)

// keymaps holds every keymap of the studio, with the configuration's
// overrides applied: the panes get theirs at New, tabs when they open.
type keymaps struct {
	global   GlobalKeyMap
	sessions sessions.KeyMap
	files    files.KeyMap
	session  transcript.KeyMap
	history  transcript.HistoryKeyMap
	diff     diff.KeyMap
	activity activity.KeyMap
	actions  actions.KeyMap
	editor   editor.KeyMap
	terminal terminal.KeyMap
	settings settings.KeyMap
	// workspaces is the Workspaces tab's.
	workspaces workspaces.KeyMap
	// dialogs are the dialogs' tables, one per kind.
	dialogs dialog.KeyMap
}

func defaultKeymaps() keymaps {
	return keymaps{
		global: DefaultGlobalKeyMap(), sessions: sessions.DefaultKeyMap(), files: files.DefaultKeyMap(),
		session: transcript.DefaultKeyMap(), history: transcript.DefaultHistoryKeyMap(), diff: diff.DefaultKeyMap(),
		activity: activity.DefaultKeyMap(), actions: actions.DefaultKeyMap(), editor: editor.DefaultKeyMap(),
		terminal: terminal.DefaultKeyMap(), settings: settings.DefaultKeyMap(), workspaces: workspaces.DefaultKeyMap(),
		dialogs: dialog.DefaultKeyMap(),
	}
}

// scopes returns the keymaps as scopes, global first, in the order of the
// reference, each binding named as the [keys] table names it.
func (k *keymaps) scopes() []keys.Scope {
	var out []keys.Scope
	for _, g := range k.groups() {
		out = append(out, g.scope().Named(g.prefix, g.km))
	}
	return out
}

// keyGroup is one keymap's actions with what keys collide with them.
type keyGroup struct {
	prefix string
	km     any // a pointer to the keymap
	acts   []keys.Action
	scope  func() keys.Scope
}

func (k *keymaps) groups() []keyGroup {
	g := func(prefix string, km any, scope func() keys.Scope) keyGroup {
		return keyGroup{prefix: prefix, km: km, acts: keys.Actions(prefix, km), scope: scope}
	}
	return []keyGroup{
		g("", &k.global, k.global.Scope),
		g("sessions", &k.sessions, k.sessions.Scope),
		g("files", &k.files, k.files.Scope),
		g("session", &k.session, k.session.Scope),
		g("history", &k.history, k.history.Scope),
		g("diff", &k.diff, k.diff.Scope),
		g("activity", &k.activity, k.activity.Scope),
		g("actions", &k.actions, k.actions.Scope),
		g("editor", &k.editor, k.editor.Scope),
		g("terminal", &k.terminal, k.terminal.Scope),
		g("settings", &k.settings, k.settings.Scope),
		g("workspaces", &k.workspaces, k.workspaces.Scope),
		g("confirm", &k.dialogs.Confirm, k.dialogs.Confirm.Scope),
		g("prompt", &k.dialogs.Line, k.dialogs.Line.Scope),
		g("form", &k.dialogs.Form, k.dialogs.Form.Scope),
		g("palette", &k.dialogs.Palette, k.dialogs.Palette.Scope),
		g("reader", &k.dialogs.Reader, k.dialogs.Reader.Scope),
	}
}

// override applies the configuration's [keys] table (action name → key),
// in the order of the names. It returns one message per override it
// ignored: an unknown action, a key the studio cannot read, or a key that
// collides — with another action of the same keys, for a pane with a
// global key (which would take it first), for a global key with a pane's.
func (k *keymaps) override(over map[string]string) []string {
	names := make([]string, 0, len(over))
	for n := range over {
		names = append(names, n)
	}
	sort.Strings(names)
	groups := k.groups()
	var errs []string
	for _, name := range names {
		want := strings.TrimSpace(over[name])
		gi, act := findAction(groups, name)
		if act == nil {
			errs = append(errs, fmt.Sprintf("keys.%s: no such action (docs/keybindings.md names them)", name))
			continue
		}
		if want == "" || keys.Press(want).String() != want {
			errs = append(errs, fmt.Sprintf("keys.%s = %q: not a key the studio can read (write it like \"ctrl+n\", \"x\", \"f5\")", name, want))
			continue
		}
		before := *act.Binding
		keys.Rebind(act.Binding, want)
		if clash := collision(groups, gi, *act.Binding); clash != "" {
			*act.Binding = before
			errs = append(errs, fmt.Sprintf("keys.%s = %q: %s; ignored", name, want, clash))
		}
	}
	return errs
}

func findAction(groups []keyGroup, name string) (int, *keys.Action) {
	for gi, g := range groups {
		for i := range g.acts {
			if g.acts[i].Name == name {
				return gi, &g.acts[i]
			}
		}
	}
	return -1, nil
}

// collision says which binding b's key already belongs to, "" when none.
func collision(groups []keyGroup, gi int, b key.Binding) string {
	k := b.Keys()[0]
	own := groups[gi].scope()
	for _, o := range own.Bindings {
		if o.Help().Desc != b.Help().Desc && hasKey(o, k) {
			return fmt.Sprintf("%s is already %q in %s", k, o.Help().Desc, own.Name)
		}
	}
	global := groups[0].scope()
	if slices.Contains(global.Yield, k) {
		return "" // the global key gives way to a pane that binds it
	}
	if gi == 0 {
		// A global key is matched before any pane's: it must not take a
		// key a pane (that does not capture every key) already has.
		for _, g := range groups[1:] {
			s := g.scope()
			if s.TakesKeys {
				continue
			}
			for _, o := range s.Bindings {
				if hasKey(o, k) {
					return fmt.Sprintf("%s is %q in %s, which a global key would shadow", k, o.Help().Desc, s.Name)
				}
			}
		}
		return ""
	}
	if own.TakesKeys {
		return ""
	}
	for _, o := range global.Bindings {
		if hasKey(o, k) {
			return fmt.Sprintf("%s is the global key %q, which acts first", k, o.Help().Desc)
		}
	}
	return ""
}

func hasKey(b key.Binding, k string) bool {
	for _, x := range b.Keys() {
		if x == k {
			return true
		}
	}
	return false
}

// applyKeymaps gives the panes their keys.
func (a *App) applyKeymaps() {
	a.keys = a.km.global
	a.sessions.SetKeyMap(a.km.sessions)
	a.files.SetKeyMap(a.km.files)
	a.activity.SetKeyMap(a.km.activity)
	a.actions.SetKeyMap(a.km.actions)
}
