package screen

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/vt"
)

// sample is output a build or test run prints: coloured, scrolling lines.
func sample() []byte {
	var b strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&b, "\x1b[32mok\x1b[0m  \x1b[1mgithub.com/example/pkg%d\x1b[0m\t0.%03ds  coverage: %d%%\r\n", i, i%1000, i%100)
	}
	return []byte(b.String())
}

// BenchmarkParse measures how fast the screen takes program output.
func BenchmarkParse(b *testing.B) {
	s := &Screen{em: vt.NewEmulator(200, 60), kick: make(chan struct{}, 1)}
	s.em.SetScrollbackSize(DefaultScrollback)
	go drain(s.em)
	data := sample()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		s.feed(data)
	}
}

func drain(em *vt.Emulator) {
	buf := make([]byte, 1024)
	for {
		if _, err := em.Read(buf); err != nil {
			return
		}
	}
}

// BenchmarkFrame measures drawing a full 200x60 frame of coloured text.
func BenchmarkFrame(b *testing.B) {
	s := &Screen{em: vt.NewEmulator(200, 60), kick: make(chan struct{}, 1)}
	go drain(s.em)
	var fill strings.Builder
	for i := range 60 {
		fmt.Fprintf(&fill, "\x1b[3%dm%s\x1b[0m \x1b[1;4mbold\x1b[0m %s", i%8, strings.Repeat("x", 100), strings.Repeat("y", 88))
		if i < 59 {
			fill.WriteString("\r\n")
		}
	}
	s.feed([]byte(fill.String()))
	for b.Loop() {
		s.draw(1)
	}
}
