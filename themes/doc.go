// Package themes holds the studio's colour palettes and turns one into the
// styles the panes draw with.
//
// A Palette is data: semantic tokens (base, subtle, accent, success, warning,
// error, surface) plus the sixteen ANSI colours, each a "#rrggbb" string.
// Three are built in (dark, light, high-contrast); Load reads a user's from
// a TOML or JSON file and refuses it, naming the file and the key, when a
// key is unknown or a colour is not "#rrggbb". Build turns a palette into Styles;
// components ask Styles for a role ("the selected row", "an added diff line")
// and never name a colour. With colour off (NO_COLOR, --no-color) Build keeps
// the roles apart with attributes only: bold, faint, underline, reverse.
//
// The package is a leaf: it imports nothing of Atelier's, and only the studio
// uses it.
package themes
