package badge

import (
	"testing"
	"time"

	sess "github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/themes"
)

func TestBadges(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	in := func(d time.Duration) *time.Time { t := now.Add(d); return &t }
	cases := []struct {
		name string
		s    sess.Session
		w    Wait
		word string
		tone themes.Tone
	}{
		{"created", sess.Session{Status: sess.Created}, Wait{}, "new", themes.ToneSubtle},
		{"scheduled", sess.Session{Status: sess.Created, StartAt: in(65 * time.Second)}, Wait{}, "1:05", themes.ToneAccent},
		{"streaming", sess.Session{Status: sess.Running, SubState: sess.Active}, Wait{}, "running", themes.ToneAccent},
		{"approval", sess.Session{Status: sess.Running, SubState: sess.Parked}, Wait{Kind: sess.Approval}, "approve?", themes.ToneWarning},
		{"timer", sess.Session{Status: sess.Running, SubState: sess.Parked}, Wait{Kind: sess.Park, Deadline: in(4500 * time.Millisecond)}, "5s", themes.ToneAccent},
		{"waiting", sess.Session{Status: sess.Waiting, WaitReason: sess.WaitAwaitingInput}, Wait{}, "waiting", themes.ToneWarning},
		{"paused", sess.Session{Status: sess.Paused}, Wait{}, "paused", themes.ToneWarning},
		{"done", sess.Session{Status: sess.Ended, EndReason: sess.Completed}, Wait{}, "done", themes.ToneSuccess},
		{"failed", sess.Session{Status: sess.Ended, EndReason: sess.Failed}, Wait{}, "failed", themes.ToneError},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := Of(c.s, c.w, now)
			if b.Word != c.word || b.Tone != c.tone {
				t.Fatalf("badge %+v, want %q tone %d", b, c.word, c.tone)
			}
		})
	}
}

func TestCountdown(t *testing.T) {
	for d, want := range map[time.Duration]string{
		-time.Second: "0s", 900 * time.Millisecond: "1s", 59 * time.Second: "59s",
		61 * time.Second: "1:01", 2*time.Hour + 3*time.Minute: "2h03",
	} {
		if got := Countdown(d); got != want {
			t.Errorf("Countdown(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestDetailSaysWhy(t *testing.T) {
	now := time.Now()
	dl := now.Add(3 * time.Second)
	got := Detail(sess.Session{Status: sess.Running, SubState: sess.Parked}, Wait{Kind: sess.Park, Deadline: &dl}, now)
	if got != "RUNNING · parked on a timer: 3s left" {
		t.Errorf("detail %q", got)
	}
	got = Detail(sess.Session{Status: sess.Waiting, WaitReason: sess.WaitAwaitingInput}, Wait{}, now)
	if got != "WAITING · awaiting your next instruction" {
		t.Errorf("detail %q", got)
	}
}
