package tui

import (
	"sort"

	"github.com/atelier-studio/atelier/core"
	sess "github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/tui/badge"
)

// liveView is the studio's copy of the engine's live view: the sessions'
// records, the open interactions, the newest event folded in, and which
// Action required items the operator has already been told of. It owns
// these and nothing else: it draws nothing and touches no pane or tab.
// The root folds the engine's snapshot and events into it, then tells
// the panes what changed (events.go).
type liveView struct {
	recs  map[string]sess.Session
	asks  map[string]core.OpenInteraction // open interactions by id
	seq   uint64                          // the newest event folded in
	shown map[string]bool                 // Action required items already told of
}

func newLiveView() liveView {
	return liveView{recs: map[string]sess.Session{}, asks: map[string]core.OpenInteraction{}, shown: map[string]bool{}}
}

// reset takes a snapshot in place of everything held but what was shown.
func (v *liveView) reset(snap core.Snapshot) {
	v.seq = snap.Seq
	v.recs = make(map[string]sess.Session, len(snap.Sessions))
	for _, s := range snap.Sessions {
		v.recs[s.ID] = s
	}
	v.asks = make(map[string]core.OpenInteraction, len(snap.Interactions))
	for _, it := range snap.Interactions {
		v.asks[it.ID] = it
	}
}

// admit reports whether an event is newer than what is held, and moves
// the sequence on: an event the snapshot already holds is not folded in
// twice. Events without a sequence number are always new.
func (v *liveView) admit(ev core.Event) bool {
	if ev.Seq != 0 && ev.Seq <= v.seq {
		return false
	}
	v.seq = max(v.seq, ev.Seq)
	return true
}

// upsert takes a session's record; it returns the one it replaces, if any.
func (v *liveView) upsert(s sess.Session) (prev sess.Session, known bool) {
	prev, known = v.recs[s.ID]
	v.recs[s.ID] = s
	return prev, known
}

// remove forgets a session and its open interactions; it returns the
// record it held.
func (v *liveView) remove(id string) sess.Session {
	rec := v.recs[id]
	delete(v.recs, id)
	for k, it := range v.asks {
		if it.SessionID == id {
			delete(v.asks, k)
		}
	}
	return rec
}

// tell reports whether an Action required item is new to the operator,
// and notes it as told.
func (v *liveView) tell(key string) bool {
	if v.shown[key] {
		return false
	}
	v.shown[key] = true
	return true
}

// told notes every open interaction as told: those open when the studio
// starts are not news.
func (v *liveView) told() {
	for id := range v.asks {
		v.shown[id] = true
	}
}

// counting reports whether an open interaction counts down (a parked
// session's deadline), so the clock must tick.
func (v *liveView) counting() bool {
	for _, it := range v.asks {
		if it.Kind == sess.Park && it.Deadline != nil {
			return true
		}
	}
	return false
}

// waitOf is what a session waits on, the most pressing first: an
// approval, a question, a stuck turn, a parked one.
func (v *liveView) waitOf(id string) badge.Wait {
	rank := map[sess.InteractionKind]int{sess.Approval: 4, sess.Question: 3, sess.Stuck: 2, sess.Park: 1}
	var w badge.Wait
	best := 0
	for _, it := range v.asks {
		if it.SessionID == id && rank[it.Kind] > best {
			best = rank[it.Kind]
			w = badge.Wait{Kind: it.Kind, Deadline: it.Deadline}
		}
	}
	return w
}

// waitsOf are a session's open interactions, oldest first: the card at
// the foot of its tab answers the first approval or question.
func (v *liveView) waitsOf(id string) []sess.Interaction {
	var out []sess.Interaction
	for _, it := range v.asks {
		if it.SessionID == id {
			out = append(out, it.Interaction)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Time.Equal(out[j].Time) {
			return out[i].Time.Before(out[j].Time)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// running lists the sessions running now.
func (l *liveView) running() []string {
	var ids []string
	for id, s := range l.recs {
		if s.Status == sess.Running {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}
