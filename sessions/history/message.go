package history

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Kind says why a commit was made.
type Kind string

// The kinds of commit in a history.
const (
	// KindTurn records the workspace at the end of an agent's turn.
	KindTurn Kind = "turn"
	// KindRestore records a restore of files to an earlier commit.
	KindRestore Kind = "restore"
	// KindSnapshot records changes made outside any turn: the workspace
	// when the history began, or edits saved before a restore.
	KindSnapshot Kind = "snapshot"
	// KindApply records, on the workspace branch, the files an apply of an
	// instance wrote or removed, with where each came from.
	KindApply Kind = "apply"
)

// Trailer keys of our commit messages.
const (
	trailerSession = "Atelier-Session"
	trailerTurn    = "Atelier-Turn"
	trailerKind    = "Atelier-Kind"
	trailerRestore = "Atelier-Restore"
	trailerSkipped = "Atelier-Skipped"
	// trailerUnreadable names a file left out because it could not be
	// read: a quoted path, a space, the reason.
	trailerUnreadable = "Atelier-Unreadable"
	// trailerInstance names the instance whose chain holds the commit
	// (for an apply: the instance applied).
	trailerInstance = "Atelier-Instance"
	// trailerApply is an apply's id, so a repeat is recognised.
	trailerApply = "Atelier-Apply"
	// trailerApplied is one applied file's provenance: the quoted path,
	// the quoted session, the turn, the instance commit ("-": unknown).
	trailerApplied = "Atelier-Applied"
)

// Commit is one commit of the history.
type Commit struct {
	Hash   string
	Parent string // "" for the first commit
	// SessionID is "" for snapshots, operator restores and applies (Blame
	// of a file an apply wrote names the instance session here).
	SessionID string
	Turn      int // 0 unless Kind is KindTurn, or Blame names an apply's instance turn
	Summary   string
	Time      time.Time
	Kind      Kind
	// RestoredFrom is the commit a restore went back to.
	RestoredFrom string
	// Skipped lists files left out when this commit was made: over the
	// size limit, or unreadable (with a Reason). They are named in the
	// commit's message too, so a reader of the history sees what is not
	// in it.
	Skipped []SkippedFile
	// Instance is the instance whose chain holds the commit, "" for the
	// workspace's own commits. A KindApply commit is on the workspace
	// branch and names here the instance it applied.
	Instance string
	// Applied says, for KindApply, where each file came from. (Blame
	// narrows it to the blamed file's entry.)
	Applied []AppliedProvenance
	// Apply is a KindApply commit's apply id (see ApplyCommit.Apply).
	Apply string
}

// maxSummary caps the one-line summary, in runes.
const maxSummary = 200

// oneLine folds a summary to a single trimmed line of printable text.
func oneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > maxSummary {
		s = string(r[:maxSummary-1]) + "…"
	}
	return s
}

// validSessionID reports whether id can name a session in a commit message
// and a trailer: non-empty, printable, no spaces or colons.
func validSessionID(id string) bool {
	if id == "" || len(id) > 200 {
		return false
	}
	for _, r := range id {
		if unicode.IsSpace(r) || !unicode.IsPrint(r) || r == ':' {
			return false
		}
	}
	return true
}

// message builds a commit message: a subject, a human-readable body listing
// skipped files, and the trailers that Log parses back.
func message(c Commit) string {
	var b strings.Builder
	where := ""
	if c.Instance != "" && c.Kind != KindApply {
		where = " in instance " + c.Instance
	}
	switch c.Kind {
	case KindTurn:
		fmt.Fprintf(&b, "%s turn %d%s: %s\n", c.SessionID, c.Turn, where, c.Summary)
	case KindRestore:
		who := c.SessionID
		if who == "" {
			who = "operator"
		}
		fmt.Fprintf(&b, "%s restore%s: %s\n", who, where, c.Summary)
	case KindOperator:
		fmt.Fprintf(&b, "operator%s: %s\n", where, c.Summary)
	case KindApply:
		fmt.Fprintf(&b, "apply: %s\n", c.Summary)
	default:
		fmt.Fprintf(&b, "snapshot%s: %s\n", where, c.Summary)
	}
	var big, unread []SkippedFile
	for _, s := range c.Skipped {
		if s.Unreadable() {
			unread = append(unread, s)
		} else {
			big = append(big, s)
		}
	}
	if len(big) > 0 {
		b.WriteString("\nNot recorded, over the size limit:\n")
		for _, s := range big {
			fmt.Fprintf(&b, "  %s (%d bytes)\n", strconv.Quote(s.Path), s.Size)
		}
	}
	if len(unread) > 0 {
		b.WriteString("\nNot recorded, unreadable:\n")
		for _, s := range unread {
			fmt.Fprintf(&b, "  %s: %s\n", strconv.Quote(s.Path), oneLine(s.Reason))
		}
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "%s: %s\n", trailerKind, c.Kind)
	if c.SessionID != "" {
		fmt.Fprintf(&b, "%s: %s\n", trailerSession, c.SessionID)
	}
	if c.Kind == KindTurn {
		fmt.Fprintf(&b, "%s: %d\n", trailerTurn, c.Turn)
	}
	if c.RestoredFrom != "" {
		fmt.Fprintf(&b, "%s: %s\n", trailerRestore, c.RestoredFrom)
	}
	if c.Instance != "" {
		fmt.Fprintf(&b, "%s: %s\n", trailerInstance, c.Instance)
	}
	if c.Apply != "" {
		fmt.Fprintf(&b, "%s: %s\n", trailerApply, c.Apply)
	}
	for _, p := range c.Applied {
		commit := p.Commit
		if commit == "" {
			commit = "-"
		}
		fmt.Fprintf(&b, "%s: %s %s %d %s\n", trailerApplied, strconv.Quote(p.Path), strconv.Quote(p.SessionID), p.Turn, commit)
	}
	for _, s := range c.Skipped {
		if s.Unreadable() {
			fmt.Fprintf(&b, "%s: %s %s\n", trailerUnreadable, strconv.Quote(s.Path), oneLine(s.Reason))
		} else {
			fmt.Fprintf(&b, "%s: %d %s\n", trailerSkipped, s.Size, strconv.Quote(s.Path))
		}
	}
	return b.String()
}

// logFields is the git log format parseCommit reads: fields separated by
// 0x1f; logFormat ends each record with 0x1e.
const (
	logFields = "%H%x1f%P%x1f%ct%x1f%s%x1f%(trailers:only,unfold)"
	logFormat = logFields + "%x1e"
)

// parseCommit reads one record in logFormat (without the 0x1e).
func parseCommit(rec string) (Commit, error) {
	f := strings.Split(strings.TrimLeft(rec, "\n"), "\x1f")
	if len(f) != 5 {
		return Commit{}, fmt.Errorf("parse history commit %q: malformed record", rec)
	}
	c := Commit{Hash: f[0], Kind: KindTurn}
	if parents := strings.Fields(f[1]); len(parents) > 0 {
		c.Parent = parents[0]
	}
	if sec, err := strconv.ParseInt(f[2], 10, 64); err == nil {
		c.Time = time.Unix(sec, 0)
	}
	if i := strings.Index(f[3], ": "); i >= 0 {
		c.Summary = f[3][i+2:]
	} else {
		c.Summary = f[3]
	}
	for _, line := range strings.Split(f[4], "\n") {
		key, value, ok := strings.Cut(line, ": ")
		if !ok {
			continue
		}
		switch key {
		case trailerKind:
			c.Kind = Kind(value)
		case trailerSession:
			c.SessionID = value
		case trailerTurn:
			c.Turn, _ = strconv.Atoi(value)
		case trailerRestore:
			c.RestoredFrom = value
		case trailerSkipped:
			size, rest, _ := strings.Cut(value, " ")
			n, _ := strconv.ParseInt(size, 10, 64)
			if p, err := strconv.Unquote(rest); err == nil {
				c.Skipped = append(c.Skipped, SkippedFile{Path: p, Size: n})
			}
		case trailerUnreadable:
			q, err := strconv.QuotedPrefix(value)
			if err != nil {
				continue
			}
			p, _ := strconv.Unquote(q) // a quoted prefix always unquotes
			why := strings.TrimSpace(value[len(q):])
			if why == "" {
				why = "unreadable"
			}
			c.Skipped = append(c.Skipped, SkippedFile{Path: p, Reason: why})
		case trailerInstance:
			c.Instance = value
		case trailerApply:
			c.Apply = value
		case trailerApplied:
			if p, ok := parseApplied(value); ok {
				c.Applied = append(c.Applied, p)
			}
		}
	}
	return c, nil
}

// parseApplied reads a trailerApplied value: a quoted path, a quoted
// session, a turn and a commit ("-" for none).
func parseApplied(v string) (AppliedProvenance, bool) {
	var p AppliedProvenance
	q, err := strconv.QuotedPrefix(v)
	if err != nil {
		return p, false
	}
	p.Path, _ = strconv.Unquote(q) // a quoted prefix always unquotes
	v = strings.TrimPrefix(v[len(q):], " ")
	if q, err = strconv.QuotedPrefix(v); err != nil {
		return p, false
	}
	p.SessionID, _ = strconv.Unquote(q)
	f := strings.Fields(v[len(q):])
	if len(f) != 2 {
		return p, false
	}
	if p.Turn, err = strconv.Atoi(f[0]); err != nil {
		return p, false
	}
	if f[1] != "-" {
		p.Commit = f[1]
	}
	return p, true
}
