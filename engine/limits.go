package engine

import "fmt"

// MaxText bounds, in bytes, the text an operator or a client hands a
// session: its task, a prompt, a steer, a queued prompt's edit. A task is
// kept in session.json, which every change of the session rewrites, and a
// prompt goes into the transcript and to the model: a few megabytes pasted
// by mistake would make each of those slow and every list heavy, and no
// coding task needs more than this. Files the agent should read belong in
// the workspace, not in the prompt.
const MaxText = 256 << 10

// ErrTextTooLarge: a task, prompt, steer or queued edit over MaxText. It
// is refused before anything is recorded.
var ErrTextTooLarge = fmt.Errorf("text over the limit of %d KiB (%d bytes)", MaxText>>10, MaxText)

// TextTooLarge is the error for text of n bytes that what (a task, a
// prompt) was given: ErrTextTooLarge, saying how large it was. nil when n
// is within MaxText.
func TextTooLarge(what string, n int) error {
	if n <= MaxText {
		return nil
	}
	return fmt.Errorf("%s of %d bytes: %w; put long material in a file of the workspace and name it", what, n, ErrTextTooLarge)
}
