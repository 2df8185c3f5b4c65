package host

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/notify"
	"github.com/atelier-studio/atelier/sessions"
)

// StudioLabel is the client label (the Atelier-Client header) a studio
// sends with its requests: while one of them is in flight (a studio's event
// stream stays in flight as long as it is open) a studio is attached, and
// the host notifies nothing.
const StudioLabel = "studio"

// DefaultNotifyAfter is how long a host waits before it notifies of a new
// interaction: one answered meanwhile (by a rule, a client, the agent
// itself) or a studio that attaches meanwhile is not told of.
const DefaultNotifyAfter = 3 * time.Second

// studios counts the studios attached to the host.
type studios struct{ n atomic.Int64 }

// track counts a studio for as long as each of its requests is in flight.
func (s *studios) track(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Atelier-Client") == StudioLabel {
			s.n.Add(1)
			defer s.n.Add(-1)
		}
		h.ServeHTTP(w, r)
	})
}

func (s *studios) attached() bool { return s.n.Load() > 0 }

// noteKinds are the interactions told of, by kind.
var noteKinds = map[sessions.InteractionKind]string{
	sessions.Approval: notify.KindApproval,
	sessions.Question: notify.KindQuestion,
	sessions.Stuck:    notify.KindStuck,
}

// pendingNote is a notification waiting out the host's delay.
type pendingNote struct {
	ev  notify.Event
	due time.Time
	// wait is set for a session that ended its turn on a question the
	// harness reported as such (WAITING question) with no question
	// interaction open: its summary is the turn's last words, read when
	// the note is sent.
	wait bool
}

// watcher decides what the operator is told of (issue 17): each approval,
// question and stuck report opened while this host runs, once, after the
// delay, and only when no studio is attached when it opens nor when the
// delay ends; nothing for one resolved meanwhile, nothing for those open
// when the host started (a studio or an earlier host showed them). Its
// state is its goroutine's own; it never holds the engine's lock.
type watcher struct {
	e      *core.Engine
	n      *notify.Notifier
	studio func() bool
	delay  time.Duration

	seen      map[string]bool // interactions (by id) and waits (by waitKey) already decided on
	pending   map[string]pendingNote
	titles    map[string]string // session titles, by id
	questions map[string]string // open question interactions: id → session
}

func newWatcher(e *core.Engine, n *notify.Notifier, studio func() bool, delay time.Duration) *watcher {
	return &watcher{e: e, n: n, studio: studio, delay: delay, seen: map[string]bool{},
		pending: map[string]pendingNote{}, titles: map[string]string{}, questions: map[string]string{}}
}

// run follows the engine until it closes or ctx ends.
func (w *watcher) run(ctx context.Context) {
	snap, sub := w.e.Subscribe()
	defer sub.Close()
	w.resync(snap, false)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-sub.Ready():
			if !ok {
				return // the engine closed
			}
			for _, ev := range sub.Drain() {
				w.apply(ev)
			}
		case <-timer.C:
			w.fire(time.Now())
		}
		if next, ok := w.next(); ok {
			timer.Reset(max(time.Until(next), 0))
		} else {
			timer.Stop()
		}
	}
}

// apply takes one event of the live view.
func (w *watcher) apply(ev core.Event) {
	switch ev.Kind {
	case core.EvResync:
		w.resync(w.e.Snapshot(), true)
	case core.EvSession:
		w.session(*ev.Session, true)
	case core.EvRemoved:
		delete(w.titles, ev.SessionID)
		w.dropWaits(ev.SessionID)
	case core.EvInteraction:
		it := ev.Interaction
		if it.Resolved {
			w.resolved(it.ID)
			return
		}
		w.opened(ev.SessionID, *it, true)
	}
}

// resync takes the state of a snapshot: at the start (fresh false: what
// is open is the past), or after the subscription fell behind (what is
// open and not yet seen opened meanwhile).
func (w *watcher) resync(snap core.Snapshot, fresh bool) {
	open := map[string]bool{}
	clear(w.questions)
	for _, it := range snap.Interactions {
		open[it.ID] = true
	}
	for id, p := range w.pending {
		if !p.wait && !open[id] {
			delete(w.pending, id) // resolved while the subscription lagged
		}
	}
	for _, it := range snap.Interactions {
		w.opened(it.SessionID, it.Interaction, fresh)
	}
	for _, s := range snap.Sessions {
		w.session(s, fresh)
	}
}

// opened decides on an interaction that is open: fresh is false for one
// that opened before the host started.
func (w *watcher) opened(session string, it sessions.Interaction, fresh bool) {
	kind, ok := noteKinds[it.Kind]
	if !ok {
		return
	}
	if it.Kind == sessions.Question {
		w.questions[it.ID] = session
	}
	if w.seen[it.ID] {
		return
	}
	w.seen[it.ID] = true
	if !fresh || !w.n.Wants(kind) || w.studio() {
		return // the past, not asked for, or in a studio's sight
	}
	w.pending[it.ID] = pendingNote{due: time.Now().Add(w.delay), ev: notify.Event{
		Kind: kind, SessionID: session, InteractionID: it.ID, Summary: interactionSummary(it), Time: it.Time}}
}

// resolved forgets an interaction: its note, when still pending, is not
// sent (an id never opens twice).
func (w *watcher) resolved(id string) {
	delete(w.pending, id)
	delete(w.seen, id)
	delete(w.questions, id)
}

// asking reports whether a question interaction of the session is open.
func (w *watcher) asking(session string) bool {
	for _, s := range w.questions {
		if s == session {
			return true
		}
	}
	return false
}

// session takes a session's record: its title, and a turn that ended on
// a question reported by the harness with no question interaction open.
func (w *watcher) session(s sessions.Session, fresh bool) {
	w.titles[s.ID] = s.Title
	if s.Status != sessions.Waiting || s.WaitReason != sessions.WaitQuestion {
		w.dropWaits(s.ID)
		return
	}
	key := waitKey(s)
	if w.seen[key] || w.asking(s.ID) {
		return
	}
	w.seen[key] = true
	if !fresh || !w.n.Wants(notify.KindQuestion) || w.studio() {
		return
	}
	w.pending[key] = pendingNote{due: time.Now().Add(w.delay), wait: true,
		ev: notify.Event{Kind: notify.KindQuestion, SessionID: s.ID, Time: s.UpdatedAt}}
}

func waitKey(s sessions.Session) string { return fmt.Sprintf("wait:%s:%d", s.ID, s.Turns) }

// dropWaits forgets a session's turn-end question once it no longer waits.
func (w *watcher) dropWaits(session string) {
	prefix := "wait:" + session + ":"
	for k := range w.pending {
		if strings.HasPrefix(k, prefix) {
			delete(w.pending, k)
		}
	}
	for k := range w.seen {
		if strings.HasPrefix(k, prefix) {
			delete(w.seen, k)
		}
	}
}

// next is when the earliest pending note is due.
func (w *watcher) next() (time.Time, bool) {
	var at time.Time
	for _, p := range w.pending {
		if at.IsZero() || p.due.Before(at) {
			at = p.due
		}
	}
	return at, !at.IsZero()
}

// fire sends the notes due by now, unless a studio attached meanwhile
// (it shows them).
func (w *watcher) fire(now time.Time) {
	attached := w.studio()
	for k, p := range w.pending {
		if p.due.After(now) {
			continue
		}
		delete(w.pending, k)
		if attached {
			continue
		}
		ev := p.ev
		if p.wait {
			ev.Summary = w.lastWords(ev.SessionID)
		}
		ev.Workspace = w.e.Workspace()
		ev.Act = notify.Act(ev.Workspace)
		ev.Title = notify.OneLine(w.e.Redact(w.titles[ev.SessionID]), 120)
		ev.Summary = notify.Summary(w.e.Redact(ev.Summary))
		if ev.Time.IsZero() {
			ev.Time = now
		}
		w.n.Post(ev)
	}
}

// lastWords is the end of a session's last message, which asks the
// question its turn ended on.
func (w *watcher) lastWords(session string) string {
	const asked = "the agent asked you something and waits for your answer"
	msgs, _, _, err := w.e.TranscriptTail(session, 1)
	if err != nil || len(msgs) == 0 {
		return asked
	}
	text := strings.TrimSpace(msgs[len(msgs)-1].Text())
	if text == "" {
		return asked
	}
	if r := []rune(text); len(r) > 280 {
		text = "…" + string(r[len(r)-280:])
	}
	return text
}

// interactionSummary says what an interaction asks, in a line.
func interactionSummary(it sessions.Interaction) string {
	switch it.Kind {
	case sessions.Approval:
		what := it.Command
		if what == "" {
			what = it.Path
		}
		if what == "" {
			what = it.Text
		}
		if it.Tool != "" {
			what = it.Tool + ": " + what
		}
		return what
	case sessions.Question:
		q := it.Text
		if len(it.Choices) > 0 {
			q += " (" + strings.Join(it.Choices, ", ") + ")"
		}
		return q
	case sessions.Stuck:
		return "stuck: " + it.Text
	}
	return it.Text
}
