// Package sessions holds the session model (sessions, messages, turns,
// controls, interactions) and its durable store under <workspace>/.state.
//
// The store is the single source of truth across processes: every record is
// either replaced atomically (session.json) or appended as one JSON line
// (the .jsonl logs), so a crash at any point leaves at worst a torn last
// line, which the next open cuts off and reports. Behaviour (what may change
// when) lives in package core; this package only keeps and checks records.
//
// A .state/ may have been made by someone else (a cloned repository, an
// unpacked tarball), so nothing in it is followed: folders from .state down
// are opened with O_NOFOLLOW and files relative to them (statefile.go), and
// a symbolic link or a special file is refused and reported, never read or
// written through. A session whose record holds a value this build does not
// know, or whose folder holds such a file, is listed read-only; one whose
// record cannot be read is listed unreadable. .state/format holds the
// layout's version: a newer one opens the whole store read-only.
package sessions
