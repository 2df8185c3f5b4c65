package codex

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/atelier-studio/atelier/harness/modeltest"
)

// BenchmarkRecordedTurn decodes the recorded approved turn (41 lines of
// app-server output) through the connection and the turn translator.
func BenchmarkRecordedTurn(b *testing.B) {
	data := append(bytes.Join(cliLines(b, "codex-app-server.jsonl"), []byte("\n")), '\n')
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		c := newConn(bytes.NewReader(data), io.Discard)
		ts := newTurnState(&modeltest.Recorder{}, fixtureThread, "/home/dev/project")
		for {
			m, err := c.next(context.Background())
			if err != nil {
				break
			}
			if !m.isRequest() {
				_ = ts.notification(m)
			}
		}
	}
}
