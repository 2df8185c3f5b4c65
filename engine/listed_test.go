package engine

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/atelier-studio/atelier/sessions"
)

// TestTaskPreview: a task of up to PreviewRunes characters is its own
// preview; a longer one is cut to PreviewRunes whole characters (never
// inside a multi-byte one) and marked with Ellipsis; a preview's preview
// is itself, so a list read back and listed again says the same.
func TestTaskPreview(t *testing.T) {
	for _, tc := range []struct {
		name, task string
		cut        bool
	}{
		{"empty", "", false},
		{"short", "fix the flaky test", false},
		{"at the limit", strings.Repeat("é", PreviewRunes), false},
		{"one over, multi-byte", strings.Repeat("é", PreviewRunes) + "界", true},
		{"long, mixed", strings.Repeat("a界🙂", 5000), true},
		{"ends in an ellipsis, short", "to be continued…", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, cut := TaskPreview(tc.task)
			if cut != tc.cut {
				t.Fatalf("cut = %v, want %v", cut, tc.cut)
			}
			if !utf8.ValidString(p) {
				t.Fatalf("preview %q is not valid UTF-8", p)
			}
			if !cut {
				if p != tc.task {
					t.Fatalf("preview %q of an uncut task %q", p, tc.task)
				}
				return
			}
			body, ok := strings.CutSuffix(p, Ellipsis)
			if !ok || utf8.RuneCountInString(body) != PreviewRunes || !strings.HasPrefix(tc.task, body) {
				t.Fatalf("preview of %d runes %q: want the task's first %d runes and %s", utf8.RuneCountInString(p), p, PreviewRunes, Ellipsis)
			}
			if again, cutAgain := TaskPreview(p); again != p || !cutAgain {
				t.Fatalf("the preview's preview is %q (cut %v), want the preview", again, cutAgain)
			}
		})
	}
}

// TestListed: a listed session carries the preview and says it was cut;
// the rest of its record is the session's.
func TestListed(t *testing.T) {
	s := sessions.Session{ID: "a", Title: "t", Instructions: strings.Repeat("x", MaxText), Turns: 3}
	l := Listed(s)
	if !l.TaskTruncated || len(l.Instructions) != PreviewRunes+len(Ellipsis) || l.ID != "a" || l.Title != "t" || l.Turns != 3 {
		t.Errorf("listed: truncated %v, %d bytes of task, %s %q %d", l.TaskTruncated, len(l.Instructions), l.ID, l.Title, l.Turns)
	}
	if l := Listed(sessions.Session{Instructions: "short"}); l.TaskTruncated || l.Instructions != "short" {
		t.Errorf("a short task listed: %+v", l)
	}
}
