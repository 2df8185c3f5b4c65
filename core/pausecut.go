package core

import "github.com/atelier-studio/atelier/harness"

// askPauseLocked tells the turn in flight that a pause was requested.
func (l *live) askPauseLocked() {
	if l.pauseAsked != nil {
		close(l.pauseAsked)
		l.pauseAsked = nil
	}
}

// pauseCut returns the channel a turn that has not run a step yet waits
// on besides what it waits for: closed when a pause is requested. Only a
// model's turn is cut short (nil otherwise, which never fires): an agent
// CLI's pause applies at the end of its turn, which it must run first.
func (l *live) pauseCut() <-chan struct{} {
	e := l.e
	e.mu.Lock()
	defer e.mu.Unlock()
	h, _, err := l.agentLocked()
	if err != nil {
		return nil
	}
	if _, ok := h.(harness.Model); !ok {
		return nil
	}
	if l.pauseAsked == nil {
		// Closed already: the pause came before the turn got here.
		return closedChan
	}
	return l.pauseAsked
}
