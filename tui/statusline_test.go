package tui

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestStatusLineFadesOnlyItsOwnMessage checks the status line alone: a
// fade scheduled for an older message leaves the newer one, a fade is
// scheduled once per message set, errors are kept with their mark, and
// the kept messages stay bounded.
func TestStatusLineFadesOnlyItsOwnMessage(t *testing.T) {
	now := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	s := statusLine{fade: time.Second, clock: func() time.Time { return now }}
	s.set("saved main.go", false)
	old := statusFadeMsg(s.gen)
	s.set("save failed", true)
	if s.fadeCmd() == nil {
		t.Fatal("a message was set: its fade should be scheduled")
	}
	if s.fadeCmd() != nil {
		t.Fatal("no message since the last fade was scheduled: nothing to schedule")
	}
	s.faded(old)
	if s.text != "save failed" || !s.err {
		t.Fatalf("an older message's fade cleared the latest: %q %v", s.text, s.err)
	}
	s.faded(statusFadeMsg(s.gen))
	if s.text != "" || s.err {
		t.Fatalf("the latest message's fade should clear it: %q", s.text)
	}
	if got := s.recent(); !strings.HasPrefix(got, now.Local().Format("15:04:05")+"  ✗ save failed\n") || !strings.HasSuffix(got, "saved main.go") {
		t.Fatalf("recent, newest first with stamps and marks:\n%s", got)
	}
	for i := range maxMessages + 10 {
		s.set("m"+strconv.Itoa(i), false)
	}
	if len(s.kept) != maxMessages || s.kept[0].text != "m10" {
		t.Fatalf("kept %d messages from %q, want the newest %d", len(s.kept), s.kept[0].text, maxMessages)
	}
	quiet := statusLine{}
	quiet.set("x", false)
	if quiet.fadeCmd() != nil {
		t.Fatal("fade 0 never fades")
	}
}
