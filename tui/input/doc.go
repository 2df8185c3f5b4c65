// Package input is the studio's one-line text editor: the filter line, the
// steer/send line of a session tab and the fields of dialogs. It edits runes
// with the usual readline keys, scrolls sideways to keep the cursor in view
// and draws the cursor itself, so it needs no terminal cursor and no
// clipboard library (bubbles' textinput pulls one in that the module does not
// carry).
package input
