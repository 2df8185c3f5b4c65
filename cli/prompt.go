package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/atelier-studio/atelier/engine"
)

// promptText returns the text a command was given: its words joined, or,
// for the single word "-", standard input, or the file of --prompt-file
// ("-" is standard input there too). A prompt read whole is taken as it
// is, newlines included; it does not go through the argument list, so its
// size is not limited by the system's, but by the engine's (MaxText),
// checked here so that nothing is sent, let alone created, when it is
// over.
func (s *streams) promptText(words []string, file string) (string, error) {
	text, err := s.promptSource(words, file)
	if err != nil {
		return "", err
	}
	if err := engine.TextTooLarge("the prompt", len(text)); err != nil {
		return "", withCode(ExitUsage, err)
	}
	return text, nil
}

func (s *streams) promptSource(words []string, file string) (string, error) {
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
	// One byte past the limit is enough to refuse it: the rest is not read.
	b, err := io.ReadAll(io.LimitReader(r, engine.MaxText+1))
	if err != nil {
		return "", fmt.Errorf("read the prompt from %s: %w", from, err)
	}
	if len(b) > engine.MaxText {
		return "", withCode(ExitUsage, fmt.Errorf("the prompt in %s: %w; put long material in a file of the workspace and name it", from, engine.ErrTextTooLarge))
	}
	return string(b), nil
}
