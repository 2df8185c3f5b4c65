package cli

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/sessions"
)

// BenchmarkSessionsList: `atelier sessions --json` on a workspace of 200
// sessions (config load, a passive engine over the store, the list).
func BenchmarkSessionsList(b *testing.B) {
	b.Setenv("XDG_CONFIG_HOME", b.TempDir())
	ws := b.TempDir()
	e, err := core.Open(ws, core.Options{Passive: true})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		if _, err := e.Create(core.CreateOptions{Agent: "demo", Instructions: "task"}); err != nil {
			b.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if code := Main([]string{"sessions", "--json", "-w", ws}, strings.NewReader(""), io.Discard, io.Discard); code != 0 {
			b.Fatal(code)
		}
	}
}

// BenchmarkPrinterDelta: one streamed text delta written as a --json line.
func BenchmarkPrinterDelta(b *testing.B) {
	s := &streams{in: strings.NewReader(""), out: io.Discard, err: io.Discard, env: env{getenv: os.Getenv}}
	p := newPrinter(s, true)
	ev := core.Event{Seq: 1, Kind: core.EvDelta, SessionID: "250601100000a1b2c3d4e5",
		Delta: &core.Delta{MessageID: "m00002", Type: sessions.TextPart, Text: "some streamed words "}}
	b.ReportAllocs()
	for b.Loop() {
		p.event(ev)
	}
}

// BenchmarkPrinterText: the same delta as text.
func BenchmarkPrinterText(b *testing.B) {
	var out bytes.Buffer
	s := &streams{in: strings.NewReader(""), out: &out, err: io.Discard, env: env{getenv: os.Getenv}}
	p := newPrinter(s, false)
	ev := core.Event{Seq: 1, Kind: core.EvDelta, SessionID: "x",
		Delta: &core.Delta{MessageID: "m00002", Type: sessions.TextPart, Text: "some streamed words "}}
	b.ReportAllocs()
	for b.Loop() {
		p.event(ev)
		out.Reset()
	}
}
