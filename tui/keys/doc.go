// Package keys holds what every pane's keymap is made of: a Scope is a named
// list of bindings with their help text. Panes declare their keymaps as data
// (one struct per pane, built from bubbles' key.Binding); this package turns
// scopes into the `?` help, the status line's hints, the generated
// docs/keybindings.md, and the check that no two bindings of one scope share a
// key.
package keys
