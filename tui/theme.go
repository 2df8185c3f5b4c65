package tui

import (
	"github.com/atelier-studio/atelier/themes"
)

// pickTheme chooses the palette: Options.Theme, else the configuration's
// theme or theme file; "" and "auto" start dark and follow the terminal's
// background once it answers (auto is then true).
func pickTheme(opts Options) (pal themes.Palette, auto bool, err error) {
	name := opts.Theme
	if name == "" && opts.Config != nil {
		if opts.Config.UI.ThemeFile != "" {
			pal, err := themes.Load(opts.Config.UI.ThemeFile)
			return pal, false, err
		}
		name = opts.Config.UI.Theme
	}
	if name == "" || name == "auto" {
		return themes.Dark(), true, nil
	}
	pal, err = themes.Named(name)
	return pal, false, err
}

// background takes the terminal's background colour: with the automatic
// theme, a light background switches to the light palette.
func (a *App) background(dark bool) {
	if !a.autoTheme || a.opts.NoColor {
		return
	}
	a.restyle(themes.Build(themes.ForBackground(dark), false))
}

// restyle gives every pane new styles.
func (a *App) restyle(st themes.Styles) {
	a.st = st
	a.sessions.SetStyles(st)
	a.files.SetStyles(st)
	a.activity.SetStyles(st)
	a.actions.SetStyles(st)
	for _, t := range a.tabs.list {
		t.SetStyles(st)
	}
}
