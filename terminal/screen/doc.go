// Package screen draws a pty for the studio: a VT emulator
// (charmbracelet/x/vt) fed by the pty in a goroutine of its own, whose visible
// screen is turned into frames of styled text lines at most 60 times a second
// and only when something changed. The UI takes the latest frame without
// waiting for the parser, so a flood of output never freezes it; keys and
// pastes go back to the pty through the emulator, which knows the modes the
// program asked for (application cursor keys, bracketed paste).
package screen
