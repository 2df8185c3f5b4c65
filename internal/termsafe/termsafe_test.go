package termsafe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain text", "hello, world\n\tindented", "hello, world\n\tindented"},
		{"unicode", "café → ✓ 日本", "café → ✓ 日本"},
		{"window title (OSC, BEL)", "a\x1b]0;pwned\x07b", "ab"},
		{"window title (OSC, ST)", "a\x1b]2;pwned\x1b\\b", "ab"},
		{"clipboard (OSC 52)", "x\x1b]52;c;aGVsbG8=\x07y", "xy"},
		{"hyperlink", "\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\", "click"},
		{"clear screen (CSI)", "a\x1b[2Jb\x1b[H", "ab"},
		{"colours", "\x1b[1;31mred\x1b[0m", "red"},
		{"private CSI", "\x1b[?1049h\x1b[?25l", ""},
		{"DCS", "a\x1bPq#0;2;0;0;0#1!\x1b\\b", "ab"},
		{"APC, PM, SOS", "a\x1b_apc\x1b\\b\x1b^pm\x1b\\c\x1bXsos\x1b\\d", "abcd"},
		{"two-byte ESC sequences", "a\x1bcb\x1b7c\x1b8d", "abcd"},
		{"ESC with intermediates", "a\x1b(Bb\x1b#8c", "abc"},
		{"C0 controls", "a\x00b\x07c\x08d\x0be\x0cf\x7fg", "abcdefg"},
		{"lone carriage return", "safe\rEVIL", "safeEVIL"},
		{"CRLF kept", "one\r\ntwo\r\n", "one\r\ntwo\r\n"},
		{"C1 CSI (UTF-8)", "a\u009b2Jb", "ab"},
		{"C1 OSC (UTF-8) ended by C1 ST", "a\u009d0;pwned\u009cb", "ab"},
		{"other C1", "a\u0085b\u0084c", "abc"},
		{"raw 8-bit CSI byte", "a\x9b2Jb", "a\uFFFD2Jb"},
		{"invalid UTF-8", "a\xffb\xc3", "a\uFFFDb\uFFFD"},
		{"unterminated OSC swallows the rest", "a\x1b]0;title and more", "a"},
		{"CAN cancels", "a\x1b[12\x18b", "ab"},
		{"ESC ends an OSC", "a\x1b]0;t\x1b[31mb", "ab"},
		{"trailing ESC", "a\x1b", "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := String(tt.in); got != tt.want {
				t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
			}
			checkSafe(t, String(tt.in))
		})
	}
}

// TestStreamPieces: text cut anywhere gives what the whole text gives.
func TestStreamPieces(t *testing.T) {
	text := "You said: \x1b]0;pwned title\x07 and \x1b]52;c;aGVsbG8=\x07 then \x1b[2J café ✓\r\n\u009b31m done"
	want := String(text)
	if strings.Contains(want, "pwned") || strings.Contains(want, "aGVs") {
		t.Fatalf("String left a payload: %q", want)
	}
	for cut := range len(text) + 1 {
		var s Stream
		got := s.Write(text[:cut])
		got += s.Write(text[cut:])
		got += s.Flush()
		if got != want {
			t.Fatalf("cut at %d: %q, want %q", cut, got, want)
		}
	}
	var s Stream
	var b strings.Builder
	for i := range len(text) {
		b.WriteString(s.Write(text[i : i+1]))
	}
	if b.WriteString(s.Flush()); b.String() != want {
		t.Errorf("byte by byte: %q, want %q", b.String(), want)
	}
}

func TestStreamFlushEndsSequence(t *testing.T) {
	var s Stream
	if got := s.Write("a\x1b]0;open"); got != "a" {
		t.Errorf("Write = %q", got)
	}
	if got := s.Flush(); got != "" {
		t.Errorf("Flush = %q", got)
	}
	if got := s.Write("next part"); got != "next part" {
		t.Errorf("after Flush, Write = %q: the open sequence went on", got)
	}
	if got := s.Write("\xe2\x9c"); got != "" {
		t.Errorf("a cut character came out: %q", got)
	}
	if got := s.Flush(); got != "\uFFFD" {
		t.Errorf("Flush of a cut character = %q", got)
	}
}

func TestWriter(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	fmt.Fprintf(w, "title %s\n", "\x1b]0;pwned\x07ok")
	// An open sequence in one write does not swallow the next.
	fmt.Fprint(w, "x\x1b]0;")
	fmt.Fprint(w, "visible\n")
	if got, want := buf.String(), "title ok\nxvisible\n"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}

func TestJSON(t *testing.T) {
	v := map[string]string{"text": "a\x1b]0;t\x07 \u009b2J \x7f é"}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out := JSON(b)
	checkSafe(t, string(out))
	var back map[string]string
	if err := json.Unmarshal(out, &back); err != nil || back["text"] != v["text"] {
		t.Errorf("JSON changed the value: %q (%v)", back["text"], err)
	}
	if !bytes.Contains(out, []byte(`\u009b`)) || !bytes.Contains(out, []byte(`\u007f`)) {
		t.Errorf("JSON = %s", out)
	}
	plain := []byte(`{"a":"b"}`)
	if got := JSON(plain); &got[0] != &plain[0] {
		t.Error("JSON copied text that needed nothing")
	}
}

// checkSafe fails when s holds anything a terminal may act on.
func checkSafe(t *testing.T, s string) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Fatalf("invalid UTF-8 in %q", s)
	}
	for i, r := range s {
		switch {
		case r == '\n' || r == '\t':
		case r == '\r' && i+1 < len(s) && s[i+1] == '\n':
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
			t.Fatalf("control %U at %d in %q", r, i, s)
		}
	}
}

func FuzzString(f *testing.F) {
	for _, s := range []string{"plain", "\x1b]0;t\x07", "\x1b[2J", "\u009b1m", "\xc2", "a\r\nb\r", "\x1bP\x1b\\"} {
		f.Add(s, 1)
	}
	f.Fuzz(func(t *testing.T, s string, cut int) {
		out := String(s)
		checkSafe(t, out)
		checkSafe(t, Visible(s))
		if cut < 0 || cut > len(s) {
			cut = len(s) / 2
		}
		var st Stream
		if got := st.Write(s[:cut]) + st.Write(s[cut:]) + st.Flush(); got != out {
			t.Fatalf("cut at %d: %q, whole: %q", cut, got, out)
		}
	})
}

func TestVisible(t *testing.T) {
	in := "a = 1\r\n\tb\x1b]0;hidden\x07\r\u009b\xff é"
	want := "a = 1\r\n\tb\\x1b]0;hidden\\x07\\x0d\\u009b\\xff é"
	got := Visible(in)
	if got != want {
		t.Errorf("Visible = %q, want %q", got, want)
	}
	checkSafe(t, got)
}
