package claude

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/sessions"
)

// discard is an Emitter that keeps nothing, so a benchmark measures the
// adapter alone.
type discard struct{}

func (discard) Text(string)                                   {}
func (discard) Reasoning(string)                              {}
func (discard) ToolStart(string, string)                      {}
func (discard) ToolInput(string, string)                      {}
func (discard) ToolResult(string, string, sessions.ToolState) {}
func (discard) Usage(sessions.Usage)                          {}
func (discard) Notice(string)                                 {}

// BenchmarkDecodeLines measures decoding the recorded tool round trip
// with partial messages (58 lines): the per-line cost of a turn's stream.
func BenchmarkDecodeLines(b *testing.B) {
	data, err := os.ReadFile("testdata/claude-code-stream-json.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		d := newDecoder(discard{})
		for _, l := range lines {
			ln, err := decodeLine(l)
			if err != nil {
				b.Fatal(err)
			}
			if err := d.handle(ln); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(lines)), "lines/op")
}

// BenchmarkTurnTextDeltas measures a whole turn through the process
// plumbing (pipes, line splitting, the turn loop) with 2,000 text deltas,
// against a scripted CLI.
func BenchmarkTurnTextDeltas(b *testing.B) {
	var stream []string
	stream = append(stream, initLine())
	stream = append(stream, textLines("m1", "x")[:2]...)
	delta := textLines("m1", "token ")[2]
	for range 2000 {
		stream = append(stream, delta)
	}
	stream = append(stream, textLines("m1", "x")[4], resultLine(0.01))
	var buf bytes.Buffer
	for _, l := range stream {
		buf.WriteString(l + "\n")
	}
	out := buf.Bytes()
	h := scriptHost(b, func(f *fakeProc) {
		for {
			m := f.read()
			switch kindOf(m) {
			case "eof":
				f.Exit(0)
				return
			case "control_request/initialize":
				f.answerInit(m)
			case "user":
				f.replay(m)
				put(f.OutW, out)
			}
		}
	})
	a, err := New(Settings{})
	if err != nil {
		b.Fatal(err)
	}
	defer closeSession(b, a, "s")
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a.Turn(context.Background(), harness.TurnRequest{SessionID: "s", Input: "go"}, discard{}, h); err != nil {
			b.Fatal(err)
		}
	}
}
