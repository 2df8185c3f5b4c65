// Package editor is the studio's file editor tab: a line buffer that draws
// only the rows in view, so a 100,000-line file costs what its 40 visible
// lines cost.
//
// The Buffer holds the text as lines; every change is a Replace of a range,
// which the history records as the text removed and inserted so undo and
// redo are the same operation backwards and forwards. Typing and deleting
// runs of characters group into one undo step.
//
// Syntax highlighting (chroma) is CPU work kept off the UI loop: Highlight
// returns a tea.Cmd that lexes the visible lines (and a few above them, for
// context) and answers with a Highlighted message. Until it arrives, and for
// lines edited since, the editor draws plain text; lines whose text did not
// change keep their colours while the next answer is computed.
//
// The editor does no I/O. Saving, reading the file again after a change on
// disk and copying to the terminal's clipboard are Actions the root carries
// out in commands; the editor only says what and records the outcome.
package editor
