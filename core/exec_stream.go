package core

import (
	"context"
	"unicode/utf8"

	"github.com/atelier-studio/atelier/internal/redact"
	"github.com/atelier-studio/atelier/terminal"
)

// ExecOutput receives a running command's output as it comes: which
// stream, and the next piece of its text.
type ExecOutput func(stream terminal.Stream, text string)

// ExecStream is Exec that also hands the command's output to out as it
// arrives, so a client sees a long command progress instead of waiting for
// its end. The pieces are what the result holds, uncapped: redacted as the
// result is (the end of a piece that could begin a secret is held back
// until the next piece, so a secret split across two reads is still
// caught), and cut at character boundaries, so each is valid text on its
// own. Every piece has been given to out when ExecStream returns. A
// repeated key gives out nothing: nothing runs, and the recorded result is
// the answer.
//
// out is called from one goroutine at a time, in the order the output was
// read. It should return quickly: while it runs the command's output is
// not read, so a slow out holds the command up as a full pipe would.
func (e *Engine) ExecStream(ctx context.Context, id string, cmd ExecCommand, out ExecOutput) (ExecResult, error) {
	if out == nil {
		return e.Exec(ctx, id, cmd)
	}
	p := &outputPipe{out: out}
	for i := range p.streams {
		p.streams[i].red = e.opts.Redactor.Stream()
	}
	cmd.output = p.chunk
	res, err := e.Exec(ctx, id, cmd)
	// The environment has returned: no piece comes after this.
	p.flush()
	return res, err
}

// outputPipe turns a command's raw chunks into ExecOutput pieces, one
// state per stream (stdout, stderr).
type outputPipe struct {
	out     ExecOutput
	streams [2]pipeStream
}

// pipeStream is what a stream holds back: the bytes of a character cut by
// a read, and the redactor's held text.
type pipeStream struct {
	partial []byte
	red     *redact.Stream
}

func streamIndex(s terminal.Stream) int {
	if s == terminal.Stderr {
		return 1
	}
	return 0
}

func (p *outputPipe) chunk(c terminal.Chunk) {
	st := &p.streams[streamIndex(c.Stream)]
	// A copy: the chunk's bytes are the environment's to reuse.
	data := append(st.partial, c.Data...)
	n := completeText(data)
	st.partial = append([]byte(nil), data[n:]...)
	if text := st.red.Write(string(data[:n])); text != "" {
		p.out(c.Stream, text)
	}
}

// flush gives out what each stream held back: the command has ended.
func (p *outputPipe) flush() {
	for i, s := range []terminal.Stream{terminal.Stdout, terminal.Stderr} {
		st := &p.streams[i]
		text := st.red.Write(string(st.partial)) + st.red.Flush()
		st.partial = nil
		if text != "" {
			p.out(s, text)
		}
	}
}

// completeText is how much of b ends on a character boundary: all of it,
// but for a last multi-byte character that a read has not finished yet
// (at most three bytes). Bytes that are not UTF-8 at all pass as they are.
func completeText(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return i
			}
			break
		}
	}
	return len(b)
}
