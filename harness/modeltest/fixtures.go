package modeltest

import (
	"bytes"
	"embed"
	"testing"
)

//go:embed fixtures/*.sse fixtures/*.json
var fixtures embed.FS

// Fixture returns a recorded fixture by file name (see fixtures/README.md).
func Fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := fixtures.ReadFile("fixtures/" + name)
	if err != nil {
		t.Fatalf("fixture %s: %v", name, err)
	}
	return b
}

// Events splits an SSE body into its events, each with its blank-line
// terminator, so a reply can stream them one at a time.
func Events(body []byte) [][]byte {
	var out [][]byte
	for len(body) > 0 {
		i := bytes.Index(body, []byte("\n\n"))
		if i < 0 {
			out = append(out, body)
			break
		}
		out = append(out, body[:i+2])
		body = body[i+2:]
	}
	return out
}
