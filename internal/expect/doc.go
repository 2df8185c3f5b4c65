// Package expect lets a test wait for text to appear in a stream (a pty, a
// process's output), the way expect(1) does: a Reader collects what the
// stream gives in the background, and WaitFor returns once the text is
// there or fails the test.
package expect
