package tui

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// Status messages. The status line shows the latest message and lets it
// fade after a few seconds (an error after longer), so an old "saved
// main.go" does not read as news; every recent message is kept whole for
// :messages, since the status line cuts long ones.

// statusFade is how long a message stays; an error stays errorFactor
// times longer.
const (
	statusFade  = 6 * time.Second
	errorFactor = 3
	maxMessages = 200
)

// statusEntry is one status message as it was set.
type statusEntry struct {
	when time.Time
	text string
	err  bool
}

// statusFadeMsg fades the status message it numbers, if it is still the
// latest.
type statusFadeMsg int

// statusLine owns the status line's message, its fade and the recent
// messages. It draws nothing and opens nothing: the view reads text and
// err, and :messages shows what recent returns. Any part of the studio
// may set a message; only the root's Update schedules the fade (fadeCmd),
// once per Update.
type statusLine struct {
	text  string
	err   bool
	gen   int           // numbers the messages, so a fade of an older one is ignored
	fresh bool          // a message was set during this Update
	fade  time.Duration // how long a message stays; 0 never fades
	kept  []statusEntry
	// clock reads the time of each message's stamp when it is set: the
	// studio's own now moves only on its ticks, which stop while nothing
	// animates, and stamped every message of a quiet studio alike.
	clock func() time.Time
}

// set shows a message; errors stand out. "" clears the line.
func (s *statusLine) set(text string, isErr bool) {
	s.text, s.err = text, isErr
	s.gen++
	s.fresh = text != ""
	if text == "" {
		return
	}
	var when time.Time
	if s.clock != nil {
		when = s.clock()
	}
	s.kept = append(s.kept, statusEntry{when: when, text: text, err: isErr})
	if len(s.kept) > maxMessages {
		s.kept = s.kept[len(s.kept)-maxMessages:]
	}
}

// fadeCmd schedules the fade of a message set since the last call: one
// timer per message, nothing while none was set.
func (s *statusLine) fadeCmd() tea.Cmd {
	if !s.fresh {
		return nil
	}
	s.fresh = false
	if s.fade <= 0 {
		return nil
	}
	d := s.fade
	if s.err {
		d *= errorFactor
	}
	gen := s.gen
	return tea.Tick(d, func(time.Time) tea.Msg { return statusFadeMsg(gen) })
}

// faded clears the line when msg numbers the message it still shows.
func (s *statusLine) faded(msg statusFadeMsg) {
	if int(msg) == s.gen {
		s.text, s.err = "", false
	}
}

// recent is the kept messages, whole, newest first, one a line; "" when
// there are none.
func (s *statusLine) recent() string {
	var b strings.Builder
	for i := len(s.kept) - 1; i >= 0; i-- {
		m := s.kept[i]
		stamp := ""
		if !m.when.IsZero() {
			stamp = m.when.Local().Format("15:04:05") + "  "
		}
		mark := ""
		if m.err {
			mark = "✗ "
		}
		b.WriteString(stamp + mark + m.text + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}
