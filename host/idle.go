package host

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/sessions"
)

// Busy reports whether a snapshot holds work that keeps a host alive: a
// RUNNING session that is not parked (active, or resumable and waiting for
// a worker), one parked on a timer, or a CREATED one with a start time. A
// session waiting on the operator (WAITING, PAUSED, parked on an approval,
// a question or an event) does not: its answer comes through a client,
// which starts a host when none runs.
func Busy(snap core.Snapshot) bool {
	timers := map[string]bool{}
	for _, it := range snap.Interactions {
		if it.Kind == sessions.Park && it.Deadline != nil {
			timers[it.SessionID] = true
		}
	}
	for _, s := range snap.Sessions {
		switch {
		case s.Status == sessions.Running && s.SubState != sessions.Parked:
			return true
		case s.Status == sessions.Running && timers[s.ID]:
			return true
		case s.Status == sessions.Created && s.StartAt != nil:
			return true
		}
	}
	return false
}

// clients counts the connections that attach a client to the host: those
// with a request in flight (an event stream stays in flight) and those a
// handler took over (Hold). Idle keep-alive connections do not count.
type clients struct {
	mu     sync.Mutex
	active map[net.Conn]bool
	held   int
	change chan struct{} // signalled (never blocks) on every change
}

func newClients() *clients {
	return &clients{active: map[net.Conn]bool{}, change: make(chan struct{}, 1)}
}

// connState is the http.Server's ConnState hook.
func (c *clients) connState(conn net.Conn, st http.ConnState) {
	c.mu.Lock()
	if st == http.StateActive {
		c.active[conn] = true
	} else {
		delete(c.active, conn)
	}
	c.mu.Unlock()
	c.signal()
}

// hold counts a client until release is called (a hijacked connection, a
// WebSocket: the server no longer sees it).
func (c *clients) hold() (release func()) {
	c.mu.Lock()
	c.held++
	c.mu.Unlock()
	c.signal()
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			c.held--
			c.mu.Unlock()
			c.signal()
		})
	}
}

func (c *clients) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.active) + c.held
}

func (c *clients) signal() {
	select {
	case c.change <- struct{}{}:
	default:
	}
}

// waitIdle returns once the engine has been idle (Busy false, no client,
// no terminal running) for grace, or when ctx ends or the engine closes. It wakes only on the
// engine's events, a change of the clients and its one timer.
func waitIdle(ctx context.Context, e *core.Engine, c *clients, grace time.Duration) {
	snap, sub := e.Subscribe()
	defer sub.Close()
	busy := Busy(snap)
	timer := time.NewTimer(grace)
	defer timer.Stop()
	armed := true
	rearm := func() {
		idle := !busy && c.count() == 0
		switch {
		case idle && !armed:
			timer.Reset(grace)
			armed = true
		case !idle && armed:
			timer.Stop()
			armed = false
		}
	}
	rearm()
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-sub.Ready():
			if !ok {
				return // the engine closed
			}
			if changesWork(sub.Drain()) {
				busy = Busy(e.Snapshot())
			}
		case <-c.change:
		case <-timer.C:
			armed = false
			// Check afresh: the grace is long, a missed change costs
			// nothing here but a later exit.
			busy = Busy(e.Snapshot())
			if !busy && c.count() == 0 {
				if !terminalsRun(e) {
					return
				}
				// A terminal a studio left running is the operator's
				// work too: look again after another grace.
				timer.Reset(grace)
				armed = true
			}
		}
		rearm()
	}
}

// terminalsRun reports whether a terminal's program still runs: a studio
// that quits leaves its terminal tabs running in the host, for the next
// studio to attach to.
func terminalsRun(e *core.Engine) bool {
	list, err := e.Terminals()
	if err != nil {
		return false // the engine closed
	}
	for _, t := range list {
		if t.Running {
			return true
		}
	}
	return false
}

// changesWork reports whether events may change Busy: deltas, messages
// and notices never do.
func changesWork(evs []core.Event) bool {
	for _, ev := range evs {
		switch ev.Kind {
		case core.EvSession, core.EvRemoved, core.EvInteraction, core.EvResync:
			return true
		}
	}
	return false
}
