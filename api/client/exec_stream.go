package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
)

// The events of a streamed exec (ExecStream): stdout and stderr carry an
// ExecChunk each, exit the ExecResult, error a Problem (a failure after the
// stream opened).
const (
	ExecEventStdout = "stdout"
	ExecEventStderr = "stderr"
	ExecEventExit   = "exit"
	ExecEventError  = "error"
)

// ExecChunk is a piece of a running command's output: Stream is "stdout"
// or "stderr"; Text is valid UTF-8, redacted as the result is.
type ExecChunk struct {
	Stream string `json:"stream"`
	Text   string `json:"text"`
}

// maxExecEvent bounds one event of a streamed exec: the server sends the
// output in pieces of a read each, and the result capped.
const maxExecEvent = 64 << 20

// ErrExecStreamCut is returned by ExecStream when the stream ends before
// the command's result: the command may have run, or may still run. With a
// key, ask again: a key that completed answers with its recorded result.
var ErrExecStreamCut = errors.New("the exec stream ended before the command's result")

// ExecStream runs a command as Exec does, and gives out each piece of its
// output as it comes, from this goroutine, in order. It returns the
// result once the command ends. A repeated key gives out nothing and
// returns the recorded result (Replayed). A server that answers without
// streaming gives out nothing either; the result still holds the output.
func (c *Client) ExecStream(ctx context.Context, r ExecRequest, out func(ExecChunk)) (ExecResult, error) {
	const path = "/v1/instances/main/exec"
	req, err := c.newRequest(ctx, http.MethodPost, path, r)
	if err != nil {
		return ExecResult{}, err
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := c.hc.Do(req)
	if err != nil {
		return ExecResult{}, fmt.Errorf("POST %s: %w", path, err)
	}
	defer func() { _ = resp.Body.Close() }() // a read error below says what went wrong
	if resp.StatusCode >= 300 {
		return ExecResult{}, readProblem(resp)
	}
	var res ExecResult
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		if err := json.NewDecoder(resp.Body).Decode(&res); err != nil {
			return ExecResult{}, fmt.Errorf("POST %s: decode the answer: %w", path, err)
		}
		return res, nil
	}
	err = readExecEvents(resp.Body, func(kind string, data []byte) (bool, error) {
		switch kind {
		case ExecEventStdout, ExecEventStderr:
			var ch ExecChunk
			if err := json.Unmarshal(data, &ch); err != nil {
				return false, fmt.Errorf("%s event: %w", kind, err)
			}
			ch.Stream = kind
			if out != nil {
				out(ch)
			}
			return false, nil
		case ExecEventExit:
			if err := json.Unmarshal(data, &res); err != nil {
				return false, fmt.Errorf("exit event: %w", err)
			}
			return true, nil
		case ExecEventError:
			p := &Problem{}
			if err := json.Unmarshal(data, p); err != nil || p.Code == "" {
				return false, fmt.Errorf("error event: %q", data)
			}
			return false, p
		}
		return false, nil // an event a later server adds: not ours to fail on
	})
	if err != nil {
		return ExecResult{}, fmt.Errorf("POST %s: %w", path, err)
	}
	return res, nil
}

// readExecEvents parses Server-Sent Events from r and hands each to fn
// until fn says it is the last (nil), fn fails, or the stream ends first
// (ErrExecStreamCut).
func readExecEvents(r io.Reader, fn func(kind string, data []byte) (last bool, err error)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var kind string
	var data bytes.Buffer
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			if errors.Is(err, io.EOF) {
				return ErrExecStreamCut
			}
			return fmt.Errorf("%w: %w", ErrExecStreamCut, err)
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) > 0 {
			field, value, _ := bytes.Cut(line, []byte(":"))
			value = bytes.TrimPrefix(value, []byte(" "))
			switch string(field) {
			case "event":
				kind = string(value)
			case "data":
				if data.Len() > 0 {
					data.WriteByte('\n')
				}
				data.Write(value)
				if data.Len() > maxExecEvent {
					return fmt.Errorf("a %s event over %d bytes", kind, maxExecEvent)
				}
			}
			continue // and comments (heartbeats), ids: nothing to do
		}
		if kind == "" && data.Len() == 0 {
			continue
		}
		last, err := fn(kind, data.Bytes())
		if err != nil || last {
			return err
		}
		kind = ""
		data.Reset()
	}
}
