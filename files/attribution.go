package files

import (
	"strings"
	"sync"
	"time"
)

// Who changed a file when no session did.
const (
	// Operator is the actor of changes the operator makes in the studio
	// (editor saves, the file tree's operations).
	Operator = "operator"
	// External is the author of changes nobody declared: another program,
	// the user's shell, git.
	External = "external"
)

// DefaultAttributionTTL is how long a write recorded by a file operation
// keeps claiming the path's next change: long enough for the watcher's
// coalescing window under load, short enough that a later external edit is
// not mistaken for it.
const DefaultAttributionTTL = 5 * time.Second

// scopeSlack is how long after its release a scope still claims changes
// when only wall-clock time can tell (polling, no barrier).
const scopeSlack = 250 * time.Millisecond

// Attribution remembers who is changing the workspace, so the watcher can
// say who made each change it sees. File operations record each path they
// write (for a short time); a caller running a command for a session opens a
// Scope that claims every change until it is released. It is safe for
// concurrent use; one Attribution is shared by a Workspace and its Watcher.
type Attribution struct {
	ttl time.Duration

	mu        sync.Mutex
	records   []record
	scopes    []*Scope
	nextID    uint64
	listeners map[int]func(id uint64, begin bool)
	nextL     int
}

type record struct {
	path string
	by   string
	at   time.Time
}

// Scope claims every change in the workspace for one actor from Begin to
// Release: a command a session runs, an agent CLI's turn.
type Scope struct {
	a     *Attribution
	id    uint64
	by    string
	start time.Time
	end   time.Time // zero while open
}

// NewAttribution returns an empty record; ttl 0 means DefaultAttributionTTL.
func NewAttribution(ttl time.Duration) *Attribution {
	if ttl <= 0 {
		ttl = DefaultAttributionTTL
	}
	return &Attribution{ttl: ttl, listeners: map[int]func(uint64, bool){}}
}

// Record notes that by is about to change the workspace-relative path p. The
// claim covers p, what lies under it (a deleted folder's files) and the
// folders above it that the change creates, until the TTL runs out.
func (a *Attribution) Record(p, by string, now time.Time) {
	p = cleanRel(p)
	a.mu.Lock()
	defer a.mu.Unlock()
	keep := a.records[:0]
	for _, r := range a.records {
		if now.Sub(r.at) < a.ttl && r.path != p {
			keep = append(keep, r)
		}
	}
	a.records = append(keep, record{path: p, by: by, at: now})
}

// Begin opens a scope claiming every change for by until Release.
func (a *Attribution) Begin(by string) *Scope {
	a.mu.Lock()
	a.nextID++
	s := &Scope{a: a, id: a.nextID, by: by, start: time.Now()}
	a.pruneLocked(s.start)
	a.scopes = append(a.scopes, s)
	ls := a.listenersLocked()
	a.mu.Unlock()
	for _, l := range ls {
		l(s.id, true)
	}
	return s
}

// Release ends the scope; calling it again does nothing.
func (s *Scope) Release() {
	a := s.a
	a.mu.Lock()
	if !s.end.IsZero() {
		a.mu.Unlock()
		return
	}
	s.end = time.Now()
	ls := a.listenersLocked()
	a.mu.Unlock()
	for _, l := range ls {
		l(s.id, false)
	}
}

// By returns the actor the scope claims changes for.
func (s *Scope) By() string { return s.by }

// Lookup says who changed p at time at: a recorded write on p (or above or
// below it) wins, then the newest scope open at that time, else External.
func (a *Attribution) Lookup(p string, at time.Time) string {
	if by, ok := a.recorded(p, at); ok {
		return by
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for i := len(a.scopes) - 1; i >= 0; i-- {
		s := a.scopes[i]
		if !at.Before(s.start) && (s.end.IsZero() || !at.After(s.end.Add(scopeSlack))) {
			return s.by
		}
	}
	return External
}

// recorded finds an unexpired record claiming p.
func (a *Attribution) recorded(p string, at time.Time) (string, bool) {
	p = cleanRel(p)
	a.mu.Lock()
	defer a.mu.Unlock()
	for i := len(a.records) - 1; i >= 0; i-- {
		r := a.records[i]
		if at.Sub(r.at) >= a.ttl || r.at.Sub(at) > a.ttl {
			continue
		}
		if related(r.path, p) {
			return r.by, true
		}
	}
	return "", false
}

// scopeBy returns who scope id claims for, if it still exists.
func (a *Attribution) scopeBy(id uint64) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, s := range a.scopes {
		if s.id == id {
			return s.by
		}
	}
	return ""
}

// listen registers a callback told of every scope begin and end, called
// synchronously before Begin or Release returns; it returns the
// unregistering function.
func (a *Attribution) listen(fn func(id uint64, begin bool)) func() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.nextL++
	k := a.nextL
	a.listeners[k] = fn
	return func() {
		a.mu.Lock()
		delete(a.listeners, k)
		a.mu.Unlock()
	}
}

func (a *Attribution) listenersLocked() []func(uint64, bool) {
	out := make([]func(uint64, bool), 0, len(a.listeners))
	for _, l := range a.listeners {
		out = append(out, l)
	}
	return out
}

// pruneLocked drops scopes ended long enough ago that no late event can
// still be theirs.
func (a *Attribution) pruneLocked(now time.Time) {
	keep := a.scopes[:0]
	for _, s := range a.scopes {
		if s.end.IsZero() || now.Sub(s.end) < a.ttl {
			keep = append(keep, s)
		}
	}
	a.scopes = keep
}

// related reports whether a and b are the same path or one lies under the
// other.
func related(a, b string) bool {
	if a == b || a == "" || b == "" {
		return true
	}
	if len(a) < len(b) {
		a, b = b, a
	}
	return strings.HasPrefix(a, b) && a[len(b)] == '/'
}

// openScopes returns the scopes not yet released, by id.
func (a *Attribution) openScopes() map[uint64]string {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := map[uint64]string{}
	for _, s := range a.scopes {
		if s.end.IsZero() {
			out[s.id] = s.by
		}
	}
	return out
}
