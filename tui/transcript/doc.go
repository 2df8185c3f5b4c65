// Package transcript is the session tab of the studio: a header with the
// session's state and controls, the transcript itself, the pending input
// queue and the input line that sends a prompt or a steer.
//
// The transcript is virtualized. It keeps messages as items (a message's
// header and each of its parts) and renders only the items on screen; each
// item keeps its rendered lines until its content or the width changes, so a
// streamed delta re-renders one item and a frame costs what is visible, not
// what the session has said. Scrolling is kept as an anchor (an item and a
// line inside it) rather than an absolute offset, so no operation needs the
// height of the whole transcript.
package transcript
