// Package transcript is the session tab of the studio: a header with the
// session's state and controls, the transcript itself, the pending input
// queue and the input line that sends a prompt or a steer; and, in place
// of the transcript while `h` shows it, the session's turn history.
//
// The transcript is virtualized. It keeps messages as items (a message's
// header and each of its parts) and renders only the items on screen; each
// item keeps its rendered lines until its content or the width changes, so a
// streamed delta re-renders one item and a frame costs what is visible, not
// what the session has said. Scrolling is kept as an anchor (an item and a
// line inside it) rather than an absolute offset, so no operation needs the
// height of the whole transcript.
//
// What a model wrote (its answers, a compaction's summary) is drawn as
// Markdown by tui/markdown. Each such part's item keeps its markdown.Doc
// besides its lines, so a delta draws the answer's open tail only, not the
// whole answer. SetRaw, the studio's copy mode, shows the source instead,
// so what the terminal selects is what the agent wrote.
//
// A tab may hold only the newest messages (LoadedTail, for a session the
// engine does not run): a row at the top offers the rest, and while the
// whole transcript loads, live events are both applied and kept, to be
// replayed on it by message id and revision.
//
// History is the turn list: each commit of the session (a turn's, or a
// restore made for it), newest first, with the files it changed. It is
// memory only: the root loads the log and each commit's files in commands
// (the newest at once, older ones as the list scrolls near them, asked for
// by Wants), and carries out the OpenDiff and Restore actions its keys
// return — a restore always previews first.
package transcript
