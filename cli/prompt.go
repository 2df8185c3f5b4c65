package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// maxPrompt bounds a prompt read from standard input or a file. A prompt
// is kept in the session's record, which the store reads up to 64 MiB;
// 16 MiB leaves room for JSON's escapes.
const maxPrompt = 16 << 20

// promptText returns the text a command was given: its words joined, or,
// for the single word "-", standard input, or the file of --prompt-file
// ("-" is standard input there too). A prompt read whole is taken as it
// is, newlines included; it does not go through the argument list, so its
// size is not limited by the system's.
func (s *streams) promptText(words []string, file string) (string, error) {
	switch {
	case file != "" && len(words) > 0:
		return "", usageErr("give the prompt as words, as - (standard input) or with --prompt-file, not several of them")
	case file == "-" || (file == "" && len(words) == 1 && words[0] == "-"):
		return readPrompt(s.in, "standard input")
	case file != "":
		f, err := os.Open(file)
		if err != nil {
			return "", usageErr("--prompt-file: %v", err)
		}
		// Only read: closing it cannot lose anything.
		defer func() { _ = f.Close() }()
		return readPrompt(f, file)
	}
	return strings.Join(words, " "), nil
}

func readPrompt(r io.Reader, from string) (string, error) {
	if r == nil {
		return "", usageErr("no standard input to read the prompt from")
	}
	b, err := io.ReadAll(io.LimitReader(r, maxPrompt+1))
	if err != nil {
		return "", fmt.Errorf("read the prompt from %s: %w", from, err)
	}
	if len(b) > maxPrompt {
		return "", usageErr("the prompt in %s is larger than %d MiB", from, maxPrompt>>20)
	}
	return string(b), nil
}
