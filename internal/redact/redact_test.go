package redact

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	r := New([]Secret{
		{Name: "OPENAI_API_KEY", Value: "sk-live-1234567890"},
		{Name: "CODEX_API_KEY", Value: "sk-live-1234567890"}, // same value: one marker
		{Name: "GITHUB_TOKEN", Value: "ghp_abcdefgh"},
		{Name: "SHORT_KEY", Value: "1234567"},    // under MinLen: left alone
		{Name: "WORD_SECRET", Value: "redacted"}, // inside a marker: left alone
		{Name: "LONG_KEY", Value: "ghp_abcdefgh-and-more"},
	})
	for _, c := range []struct{ name, in, want string }{
		{"none", "nothing to see", "nothing to see"},
		{"one", "key=sk-live-1234567890.", "key=«redacted CODEX_API_KEY»."},
		{"two", "sk-live-1234567890 ghp_abcdefgh", "«redacted CODEX_API_KEY» «redacted GITHUB_TOKEN»"},
		{"longest wins", "x ghp_abcdefgh-and-more y", "x «redacted LONG_KEY» y"},
		{"short value", "pin 1234567", "pin 1234567"},
		{"marker word", "the word redacted", "the word redacted"},
		{"adjacent", "ghp_abcdefghghp_abcdefgh", "«redacted GITHUB_TOKEN»«redacted GITHUB_TOKEN»"},
	} {
		if got := r.Redact(c.in); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
		if got := r.Redact(r.Redact(c.in)); got != c.want {
			t.Errorf("%s: redacting twice changed it: %q", c.name, got)
		}
	}
	var nilR *Redactor
	if nilR.Redact("sk-live-1234567890") != "sk-live-1234567890" || !nilR.Empty() {
		t.Error("a nil Redactor redacts")
	}
}

func TestNamed(t *testing.T) {
	for name, want := range map[string]bool{
		"OPENAI_API_KEY": true, "GITHUB_TOKEN": true, "AWS_SECRET_ACCESS_KEY": true, "DB_PASSWORD": true,
		"client_secret": true, "my_api_key": true, "PATH": false, "KEYBOARD": false, "TOKENIZER": false, "HOME": false,
	} {
		if Named(name) != want {
			t.Errorf("Named(%q) = %v", name, !want)
		}
	}
	got := Environ([]string{"PATH=/bin", "A_TOKEN=tok-12345678", "OLLAMA=configured1", "EMPTY_KEY="}, "OLLAMA")
	if len(got) != 2 || got[0].Name != "A_TOKEN" || got[1].Name != "OLLAMA" {
		t.Errorf("Environ %+v", got)
	}
}

// TestStreamSplit: a value split across pieces, at every point, never
// shows; the text around it is all given back by Flush.
func TestStreamSplit(t *testing.T) {
	secret := "sk-ant-0123456789abcdef"
	r := New([]Secret{{Name: "ANTHROPIC_API_KEY", Value: secret}, {Name: "X_TOKEN", Value: "tokentokentoken"}})
	text := "the key is " + secret + " and again " + secret + "! ünïcödé tokentokentoke"
	want := r.Redact(text)
	for size := 1; size <= len(text); size++ {
		s := r.Stream()
		var shown strings.Builder
		for i := 0; i < len(text); i += size {
			piece := s.Write(text[i:min(i+size, len(text))])
			if strings.Contains(piece, "0123456789") {
				t.Fatalf("size %d: piece %q shows part of the secret", size, piece)
			}
			shown.WriteString(piece)
			if strings.Contains(shown.String(), secret) {
				t.Fatalf("size %d: the secret was shown", size)
			}
		}
		shown.WriteString(s.Flush())
		if shown.String() != want {
			t.Fatalf("size %d: %q, want %q", size, shown.String(), want)
		}
	}
}

// TestStreamHoldsLittle: only an end that could start a secret waits.
func TestStreamHoldsLittle(t *testing.T) {
	r := New([]Secret{{Name: "K_KEY", Value: "abcdefghijklmnop"}})
	s := r.Stream()
	if got := s.Write("hello world"); got != "hello world" || s.Held() {
		t.Errorf("plain text: %q held %v", got, s.Held())
	}
	if got := s.Write("xx abc"); got != "xx " || !s.Held() {
		t.Errorf("a possible start: %q", got)
	}
	if got := s.Write("x"); got != "abcx" || s.Held() {
		t.Errorf("not a secret after all: %q", got)
	}
	if got := s.Write("ü"[:1]); got != "" {
		t.Errorf("half a rune went out: %q", got)
	}
	if got := s.Write("ü"[1:]); got != "ü" {
		t.Errorf("the rune: %q", got)
	}
}

func TestRedactJSON(t *testing.T) {
	r := New([]Secret{{Name: "Q_PASSWORD", Value: `pa"ss<word>1`}, {Name: "A_KEY", Value: "abcdefgh12"}})
	v := map[string]any{"text": `say pa"ss<word>1 now`, "n": 12345678901234567, "nested": map[string]any{"list": []any{"abcdefgh12", true}}}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out := r.RedactJSON(append(b, '\n'))
	if !strings.HasSuffix(string(out), "}\n") || strings.Contains(string(out), "abcdefgh12") || strings.Contains(string(out), "ss<word") {
		t.Fatalf("redacted %s", out)
	}
	var got map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("not JSON any more: %v: %s", err, out)
	}
	if got["text"] != "say «redacted Q_PASSWORD» now" || !strings.Contains(string(out), "12345678901234567") {
		t.Errorf("redacted %s", out)
	}
	plain := []byte(`{"a":"nothing"}`)
	if got := r.RedactJSON(plain); &got[0] != &plain[0] {
		t.Error("a line without secrets was copied")
	}
}

func FuzzStream(f *testing.F) {
	f.Add("prefix sk-abcdefghij suffix", 3)
	f.Fuzz(func(t *testing.T, text string, size int) {
		r := New([]Secret{{Name: "A_KEY", Value: "sk-abcdefghij"}, {Name: "B_KEY", Value: "abcdefghij-sk"}})
		if size <= 0 || size > 64 {
			size = 5
		}
		s := r.Stream()
		var b strings.Builder
		for i := 0; i < len(text); i += size {
			b.WriteString(s.Write(text[i:min(i+size, len(text))]))
		}
		b.WriteString(s.Flush())
		if got, want := b.String(), r.Redact(text); got != want {
			t.Fatalf("streamed %q, whole %q", got, want)
		}
	})
}

// A host learns a client's key when the client hands it over: from then on
// it is redacted like the host's own, in text, in JSON and in streams,
// while other goroutines redact.
func TestAddRedactsFromThenOn(t *testing.T) {
	r := New([]Secret{{Name: "OWN_KEY", Value: "own-secret-value"}})
	handed := "sk-handed-over-0123456789"
	if got := r.Redact("x " + handed); got != "x "+handed {
		t.Fatalf("redacted before it was added: %q", got)
	}
	st := r.Stream()
	first := st.Write("before: ")
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 200 {
			_ = r.Redact("own-secret-value and " + handed)
		}
	}()
	r.Add(Secret{Name: "CLIENT_KEY", Value: handed}, Secret{Name: "SHORT", Value: "abc"})
	<-done
	if got, want := r.Redact("use "+handed), "use "+Marker("CLIENT_KEY"); got != want {
		t.Fatalf("after Add: %q, want %q", got, want)
	}
	if got := r.Redact("own-secret-value"); got != Marker("OWN_KEY") {
		t.Fatalf("the first secret was lost: %q", got)
	}
	if got := r.Redact("abc"); got != "abc" {
		t.Fatalf("a value shorter than MinLen was added: %q", got)
	}
	js := string(r.RedactJSON([]byte(`{"k":"` + handed + `"}`)))
	if strings.Contains(js, handed) {
		t.Fatalf("JSON keeps the added secret: %s", js)
	}
	// A stream opened before Add redacts what arrives after it.
	rest := st.Write("key: "+handed[:6]) + st.Write(handed[6:]+" end") + st.Flush()
	if got, want := first+rest, "before: key: "+Marker("CLIENT_KEY")+" end"; got != want {
		t.Fatalf("stream: %q, want %q", got, want)
	}
	r.Add(Secret{Name: "AGAIN", Value: handed})
	if got := r.Redact(handed); got != Marker("CLIENT_KEY") {
		t.Fatalf("adding a known value renamed it: %q", got)
	}
	var nilR *Redactor
	nilR.Add(Secret{Name: "X_KEY", Value: handed}) // must not panic
}
