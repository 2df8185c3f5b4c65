package redact

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// MinLen is the length, in bytes, of the shortest value redacted: shorter
// values ("1", "true", a port number) would replace ordinary text.
const MinLen = 8

// Secret is one value to redact and the name the marker shows (the
// variable that holds it).
type Secret struct {
	Name  string
	Value string
}

// Marker is what replaces the value of the secret called name.
func Marker(name string) string { return "«redacted " + name + "»" }

// Named reports whether a variable's name says it holds a secret: it ends
// in _KEY or _TOKEN, or contains SECRET or PASSWORD, in any case.
func Named(name string) bool {
	n := strings.ToUpper(name)
	return strings.HasSuffix(n, "_KEY") || strings.HasSuffix(n, "_TOKEN") ||
		strings.Contains(n, "SECRET") || strings.Contains(n, "PASSWORD")
}

// Environ returns the secrets of environ (KEY=VALUE entries, as
// os.Environ gives them): the variables whose names say secret (Named)
// and those called one of also (the configured api_key_env names, which
// may say nothing).
func Environ(environ []string, also ...string) []Secret {
	var out []Secret
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || value == "" {
			continue
		}
		if Named(name) || contains(also, name) {
			out = append(out, Secret{Name: name, Value: value})
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// form is one spelling of a secret's value in text (as it is, or escaped
// as inside a JSON string) and the marker that replaces it.
type form struct {
	text string
	bin  []byte // text, for searching JSON lines
	mark string
}

// Redactor replaces secret values in text. A nil *Redactor redacts
// nothing. Its secrets only grow (Add): an engine host learns a client's
// keys when the client hands them over with a create or a send, and from
// then on redacts them everywhere it already redacted its own.
type Redactor struct {
	mu sync.Mutex // serialises Add
	t  atomic.Pointer[table]
}

// table is one immutable set of secrets and their spellings; readers take
// the current one and use it throughout a call.
type table struct {
	secrets []Secret
	forms   []form // longest first
}

// New builds a Redactor from secrets. Values shorter than MinLen are left
// out, as is a value that a marker itself contains (redacting twice must
// change nothing). A value held by several names is shown under the first
// of them in sorted order.
func New(secrets []Secret) *Redactor {
	r := &Redactor{}
	r.t.Store(build(secrets))
	return r
}

// Add redacts secrets too from now on; values already redacted change
// nothing. Safe for concurrent use with every other method.
func (r *Redactor) Add(secrets ...Secret) {
	if r == nil || len(secrets) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	cur := r.table()
	var fresh []Secret
	for _, s := range secrets {
		if len(s.Value) >= MinLen && !cur.has(s.Value) {
			fresh = append(fresh, s)
		}
	}
	if len(fresh) == 0 {
		return
	}
	r.t.Store(build(append(append([]Secret(nil), cur.secrets...), fresh...)))
}

// table returns the current secrets; an empty table for nil.
func (r *Redactor) table() *table {
	if r == nil {
		return &table{}
	}
	if t := r.t.Load(); t != nil {
		return t
	}
	return &table{}
}

func (t *table) has(value string) bool {
	for _, s := range t.secrets {
		if s.Value == value {
			return true
		}
	}
	return false
}

func build(secrets []Secret) *table {
	ss := append([]Secret(nil), secrets...)
	sort.Slice(ss, func(i, j int) bool {
		if ss[i].Value != ss[j].Value {
			return ss[i].Value < ss[j].Value
		}
		return ss[i].Name < ss[j].Name
	})
	var marks []string
	for _, s := range ss {
		marks = append(marks, Marker(s.Name))
	}
	t := &table{secrets: ss}
	seen := map[string]bool{}
	for _, s := range ss {
		if len(s.Value) < MinLen || seen[s.Value] || inAny(marks, s.Value) {
			continue
		}
		seen[s.Value] = true
		mark := Marker(s.Name)
		t.forms = append(t.forms, form{text: s.Value, bin: []byte(s.Value), mark: mark})
		if esc := jsonEscaped(s.Value); esc != s.Value {
			t.forms = append(t.forms, form{text: esc, bin: []byte(esc), mark: mark})
		}
	}
	sort.SliceStable(t.forms, func(i, j int) bool { return len(t.forms[i].text) > len(t.forms[j].text) })
	return t
}

func inAny(marks []string, v string) bool {
	for _, m := range marks {
		if strings.Contains(m, v) {
			return true
		}
	}
	return false
}

// jsonEscaped is v as it appears between the quotes of a JSON string.
func jsonEscaped(v string) string {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	return string(b[1 : len(b)-1])
}

// Empty reports whether the Redactor has nothing to redact.
func (r *Redactor) Empty() bool { return len(r.table().forms) == 0 }

// Redact returns s with every secret value replaced by its marker.
func (r *Redactor) Redact(s string) string { return r.table().redact(s) }

func (t *table) redact(s string) string {
	if len(t.forms) == 0 {
		return s
	}
	out, _ := t.cut(s, true)
	return out
}

// Contains reports whether s holds a secret value (in any of its
// spellings).
func (r *Redactor) Contains(s string) bool {
	for _, f := range r.table().forms {
		if strings.Contains(s, f.text) {
			return true
		}
	}
	return false
}

// containsBytes is Contains for a byte slice, without copying it.
func (t *table) containsBytes(b []byte) bool {
	for _, f := range t.forms {
		if bytes.Contains(b, f.bin) {
			return true
		}
	}
	return false
}

// cut redacts s and says how much of it must wait for more text: the end
// of s that could still grow into a secret (none when final). The first
// result is safe to show; s[len(s)-held:] is not part of it.
func (t *table) cut(s string, final bool) (string, int) {
	next := make([]int, len(t.forms)) // next occurrence of each form at or after pos; -2 unknown, -1 none
	for i := range next {
		next[i] = -2
	}
	var b strings.Builder
	pos := 0
	for {
		hold := len(s)
		if !final {
			hold = len(s) - t.pending(s[pos:])
		}
		start, f := t.match(s, pos, next)
		if f >= 0 && start < hold {
			// A complete value that cannot grow into a longer one: the
			// longest secret starting here is in s (pending found none).
			b.WriteString(s[pos:start])
			b.WriteString(t.forms[f].mark)
			pos = start + len(t.forms[f].text)
			continue
		}
		end := max(pos, hold)
		if !final {
			end = runeEnd(s, pos, end)
		}
		if b.Len() == 0 && end == len(s) {
			return s, 0
		}
		b.WriteString(s[pos:end])
		return b.String(), len(s) - end
	}
}

// runeEnd moves end back (not below pos) so that s[:end] does not end in
// the middle of a character: a piece shown alone stays valid UTF-8.
func runeEnd(s string, pos, end int) int {
	for end > pos && end < len(s) && !utf8.RuneStart(s[end]) {
		end--
	}
	if end == len(s) {
		i := end
		for i > pos && end-i < utf8.UTFMax && !utf8.RuneStart(s[i-1]) {
			i--
		}
		if i > pos && !utf8.FullRuneInString(s[i-1:end]) {
			end = i - 1
		}
	}
	return end
}

// match finds the leftmost secret in s at or after pos (the longest one of
// those starting there): its start and form, or -1.
func (t *table) match(s string, pos int, next []int) (int, int) {
	best, bestForm := -1, -1
	for i, f := range t.forms {
		if next[i] == -2 || (next[i] >= 0 && next[i] < pos) {
			next[i] = -1
			if j := strings.Index(s[pos:], f.text); j >= 0 {
				next[i] = pos + j
			}
		}
		// Forms are longest first: a tie keeps the longer one.
		if n := next[i]; n >= 0 && (best < 0 || n < best) {
			best, bestForm = n, i
		}
	}
	return best, bestForm
}

// pending is the length of the longest end of s that is the beginning,
// but not the whole, of a secret: text to hold back until more comes.
func (t *table) pending(s string) int {
	longest := 0
	for _, f := range t.forms {
		from := max(0, len(s)-(len(f.text)-1))
		for from < len(s) {
			j := strings.IndexByte(s[from:], f.text[0])
			if j < 0 {
				break
			}
			i := from + j
			if strings.HasPrefix(f.text, s[i:]) {
				longest = max(longest, len(s)-i)
				break // the earliest start is the longest for this form
			}
			from = i + 1
		}
	}
	return longest
}

// RedactJSON redacts one JSON value (a line of a log, an event of --json)
// and keeps it valid JSON: when it holds a secret, the value is decoded,
// every string in it (and every object key) redacted, and encoded again.
// Text that is not JSON is redacted as text.
func (r *Redactor) RedactJSON(b []byte) []byte {
	t := r.table()
	if len(t.forms) == 0 || !t.containsBytes(b) {
		return b
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return []byte(t.redact(string(b)))
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(t.walk(v)); err != nil {
		return []byte(t.redact(string(b)))
	}
	res := bytes.TrimSuffix(out.Bytes(), []byte("\n"))
	if bytes.HasSuffix(b, []byte("\n")) {
		res = append(res, '\n')
	}
	return res
}

func (t *table) walk(v any) any {
	switch x := v.(type) {
	case string:
		return t.redact(x)
	case []any:
		for i := range x {
			x[i] = t.walk(x[i])
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[t.redact(k)] = t.walk(e)
		}
		return out
	}
	return v
}

// Stream redacts text that arrives in pieces. Not safe for concurrent use.
type Stream struct {
	r    *Redactor
	held string
}

// Stream returns a Stream for one piece of streamed text (a message part).
func (r *Redactor) Stream() *Stream { return &Stream{r: r} }

// Write takes the next piece and returns the text that may be shown now,
// redacted. It holds back the end that could still be the start of a
// secret (never as long as the longest secret), until the next Write or
// Flush.
func (s *Stream) Write(piece string) string {
	if s == nil || s.r.Empty() {
		return piece
	}
	text := s.held + piece
	out, held := s.r.table().cut(text, false)
	s.held = text[len(text)-held:]
	return out
}

// Flush returns what Write held back, redacted: the text has ended.
func (s *Stream) Flush() string {
	if s == nil || s.held == "" {
		return ""
	}
	out := s.r.Redact(s.held)
	s.held = ""
	return out
}

// Held reports whether the stream holds back text.
func (s *Stream) Held() bool { return s != nil && s.held != "" }
