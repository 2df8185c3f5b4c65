package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
)

// maxLine bounds one message line; the SDK's own reader stops at 10 MiB.
const maxLine = 10 << 20

// lineFilter stands between the agent's stdout and the SDK, which skips a
// line it cannot parse with only a log entry: here a line that is not a
// JSON object ends the stream instead, and the turn fails with the line.
type lineFilter struct {
	pr *io.PipeReader
	pw *io.PipeWriter

	mu  sync.Mutex
	err error
}

func newLineFilter(src io.Reader) *lineFilter {
	f := &lineFilter{}
	f.pr, f.pw = io.Pipe()
	go f.run(src)
	return f
}

// Reader is what the SDK reads.
func (f *lineFilter) Reader() io.Reader { return f.pr }

// Err is the protocol error that ended the stream, nil if none did.
func (f *lineFilter) Err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

func (f *lineFilter) run(src io.Reader) {
	r := bufio.NewReaderSize(src, 64<<10)
	for {
		line, err := readLine(r)
		if len(bytes.TrimSpace(line)) > 0 {
			if perr := checkLine(line); perr != nil {
				f.stop(perr)
				_, _ = io.Copy(io.Discard, r) // keep the agent from blocking
				return
			}
			if _, werr := f.pw.Write(append(line, '\n')); werr != nil {
				_, _ = io.Copy(io.Discard, r)
				return
			}
		}
		if err != nil {
			if errors.Is(err, errLineTooLong) {
				f.stop(fmt.Errorf("%w: a line longer than %d bytes", ErrProtocol, maxLine))
				_, _ = io.Copy(io.Discard, r)
				return
			}
			_ = f.pw.Close() // a pipe's Close never fails
			return
		}
	}
}

func (f *lineFilter) stop(err error) {
	f.mu.Lock()
	f.err = err
	f.mu.Unlock()
	f.pw.CloseWithError(err)
}

var errLineTooLong = errors.New("line too long")

// readLine reads up to a newline (dropped) or the end of input.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxLine {
			return nil, errLineTooLong
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), err
	}
}

// checkLine accepts a JSON object with a method or an id, as JSON-RPC
// messages are.
func checkLine(line []byte) error {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	t := bytes.TrimSpace(line)
	if len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &m) != nil {
		return fmt.Errorf("%w: not a JSON-RPC message: %s", ErrProtocol, snippet(t))
	}
	if m.Method == "" && len(m.ID) == 0 {
		return fmt.Errorf("%w: message with neither method nor id: %s", ErrProtocol, snippet(t))
	}
	return nil
}

func snippet(b []byte) string {
	const n = 200
	if len(b) > n {
		return strconv.Quote(string(b[:n])) + "…"
	}
	return strconv.Quote(string(b))
}
