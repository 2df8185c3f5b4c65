package themes

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ErrUnknownTheme is returned by Named for a name no theme has.
var ErrUnknownTheme = errors.New("unknown theme")

// Palette is a theme's colours as semantic tokens. Every field is "#rrggbb".
type Palette struct {
	Name string

	Base    string // ordinary text
	Subtle  string // secondary text, borders, hints
	Accent  string // focus, selection, the thing to look at
	Success string // done, allowed, added lines
	Warning string // needs attention soon: waiting, parked, paused
	Error   string // failed, denied, removed lines
	Surface string // background of raised things: the selected row, dialogs

	// ANSI is the terminal's sixteen colours in the usual order (black, red,
	// green, yellow, blue, magenta, cyan, white, then the bright ones), for
	// content that speaks ANSI itself.
	ANSI [16]string
}

// Validate reports the first token that is not a "#rrggbb" colour.
func (p Palette) Validate() error {
	tokens := map[string]string{
		"base": p.Base, "subtle": p.Subtle, "accent": p.Accent, "success": p.Success,
		"warning": p.Warning, "error": p.Error, "surface": p.Surface,
	}
	for i, c := range p.ANSI {
		tokens[fmt.Sprintf("ansi[%d]", i)] = c
	}
	names := make([]string, 0, len(tokens))
	for n := range tokens {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if !isHex(tokens[n]) {
			return fmt.Errorf("theme %s: token %s: %q is not a #rrggbb colour", p.Name, n, tokens[n])
		}
	}
	return nil
}

func isHex(s string) bool {
	if len(s) != 7 || s[0] != '#' {
		return false
	}
	for _, c := range strings.ToLower(s[1:]) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Dark is the default palette, for dark terminal backgrounds.
func Dark() Palette {
	return Palette{
		Name: "dark",
		Base: "#d8dee9", Subtle: "#6b7385", Accent: "#88c0d0", Success: "#a3be8c",
		Warning: "#ebcb8b", Error: "#bf616a", Surface: "#3b4252",
		ANSI: [16]string{
			"#3b4252", "#bf616a", "#a3be8c", "#ebcb8b", "#81a1c1", "#b48ead", "#88c0d0", "#e5e9f0",
			"#4c566a", "#d08770", "#b5d19c", "#f0d399", "#8fbcbb", "#c895bf", "#93d0dd", "#eceff4",
		},
	}
}

// Light is the palette for light terminal backgrounds.
func Light() Palette {
	return Palette{
		Name: "light",
		Base: "#2e3440", Subtle: "#7a8090", Accent: "#005f87", Success: "#2e7d32",
		Warning: "#9a6700", Error: "#b3261e", Surface: "#dde3ea",
		ANSI: [16]string{
			"#2e3440", "#b3261e", "#2e7d32", "#9a6700", "#1d4ed8", "#8839a8", "#00707a", "#c8ccd4",
			"#5c6370", "#d14b3c", "#3c9a41", "#b58400", "#3b6fe0", "#a24fc2", "#0a8a95", "#eceff4",
		},
	}
}

// HighContrast is the palette for low vision and bright rooms: pure
// black and white with saturated accents, every pair far apart.
func HighContrast() Palette {
	return Palette{
		Name: "high-contrast",
		Base: "#ffffff", Subtle: "#c0c0c0", Accent: "#00ffff", Success: "#00ff00",
		Warning: "#ffff00", Error: "#ff5f5f", Surface: "#303030",
		ANSI: [16]string{
			"#000000", "#ff5f5f", "#00ff00", "#ffff00", "#5fafff", "#ff87ff", "#00ffff", "#ffffff",
			"#808080", "#ff8787", "#87ff87", "#ffff87", "#87d7ff", "#ffafff", "#87ffff", "#ffffff",
		},
	}
}

// Names lists the built-in themes.
func Names() []string { return []string{"dark", "light", "high-contrast"} }

// ForBackground returns the built-in palette that suits a terminal
// background: dark or light.
func ForBackground(dark bool) Palette {
	if dark {
		return Dark()
	}
	return Light()
}

// Named returns a built-in palette by name; "" is the dark one.
func Named(name string) (Palette, error) {
	switch name {
	case "", "dark":
		return Dark(), nil
	case "light":
		return Light(), nil
	case "high-contrast":
		return HighContrast(), nil
	}
	return Palette{}, fmt.Errorf("theme %q (known: %s): %w", name, strings.Join(Names(), ", "), ErrUnknownTheme)
}
