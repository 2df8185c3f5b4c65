package cli

import (
	"io"
	"os"
	"text/tabwriter"

	"github.com/charmbracelet/x/term"

	"github.com/atelier-studio/atelier/internal/termsafe"
)

// What the command line prints is made safe for the operator's terminal in
// one place: execute wraps the standard streams (s.out, s.err) in
// termsafe writers, so no text an agent wrote (its answers, tool output,
// file names, titles, errors quoting them) can carry an escape sequence to
// the terminal, whichever command prints it. The agent's streamed text
// also goes through a termsafe.Stream (printer), so a sequence cut between
// two deltas is dropped whole. JSON goes out through jsonOut. Only
// `sessions exec` (the operator's own command) and a diff written into a
// pipe or a file (a patch) print raw.

// jsonOut is where a command writes JSON: s.out, with the characters JSON
// leaves raw that a terminal may obey (DEL, C1 controls) escaped.
func (s *streams) jsonOut() io.Writer { return termsafe.NewJSONWriter(s.out) }

// rawStdout is the process's standard output as it is (see streams).
func (s *streams) rawStdout() io.Writer {
	if s.rawOut != nil {
		return s.rawOut
	}
	return s.out
}

// rawStderr is the process's standard error as it is (see streams).
func (s *streams) rawStderr() io.Writer {
	if s.rawErr != nil {
		return s.rawErr
	}
	return s.err
}

// dataOut is where a command writes data meant to be kept byte for byte (a
// unified diff to apply): the raw standard output when it is a pipe or a
// file, the safe one on a terminal.
func (s *streams) dataOut() io.Writer {
	if f, ok := s.rawStdout().(*os.File); ok && !term.IsTerminal(f.Fd()) {
		return f
	}
	return s.out
}

// table lays out text in columns (a tabwriter) on s.out. Each write is
// made safe before the tabwriter measures it, so a title with an escape
// sequence in it does not push its column out of line.
type table struct {
	tw *tabwriter.Writer
}

func (s *streams) table() *table {
	return &table{tw: tabwriter.NewWriter(s.out, 2, 4, 2, ' ', 0)}
}

// Write writes the safe form of p (see termsafe.Writer).
func (t *table) Write(p []byte) (int, error) {
	if _, err := io.WriteString(t.tw, termsafe.String(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes out the table.
func (t *table) Flush() error { return t.tw.Flush() }
