// Package diff shows a unified diff: each line coloured by what it is
// (added, removed, hunk header, file header, context), scrolled by line or
// by hunk, unified or side by side with the changed words marked. The same
// line styling serves the short previews of write approvals in Action
// required and the full view in a centre tab (an approval's diff, a
// turn's diff from the history, yours against the disk).
//
// It also holds the line diff the editor needs when a file changes on disk
// under unsaved edits (Unified, on a Myers diff), so the studio does not
// shell out to diff. Everything is memory only.
package diff
