// Package termsafe makes untrusted text safe to print on a terminal. Text
// an agent wrote (model answers, tool output, file names, session titles)
// may carry escape sequences that set the window title, clear the screen,
// write the clipboard (OSC 52) or move the cursor to forge output; printed
// as it is, it acts on the operator's terminal.
//
// What comes out of String, a Stream or a Writer holds no control
// sequence: no ESC, no C0 control but newline and tab (a carriage return
// only right before a newline), no DEL, no C1 control (U+0080 to U+009F,
// which some terminals obey as 8-bit ESC sequences), and only valid UTF-8
// (each invalid byte becomes U+FFFD). The sequences themselves are dropped
// whole, parameters and payload included (CSI, OSC, DCS, SOS, PM, APC and
// the other ESC sequences, as ECMA-48 frames them), so an OSC title does
// not leave its text behind. Safety never depends on parsing a sequence
// the way the terminal would: since no ESC or C1 byte goes out, the
// terminal never enters a sequence, and a mistake in framing only shows
// or hides a few printable characters.
//
// JSON text needs none of this (encoding/json writes the C0 controls as
// \u escapes) except for the C1 controls and DEL, which it leaves raw:
// JSON escapes those too, keeping the text's meaning.
package termsafe
