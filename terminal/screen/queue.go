package screen

import "sync"

// queue holds input for the pty. Pushing never blocks, so neither the UI
// typing nor the parser answering a query waits for a program that does not
// read its input.
type queue struct {
	mu     sync.Mutex
	cond   sync.Cond
	items  [][]byte
	closed bool
}

func newQueue() *queue {
	q := &queue{}
	q.cond.L = &q.mu
	return q
}

func (q *queue) push(b []byte) {
	if len(b) == 0 {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	q.items = append(q.items, b)
	q.cond.Signal()
}

// pop waits for input and returns all that is queued, joined; false once
// the queue is closed.
func (q *queue) pop() ([]byte, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 && !q.closed {
		q.cond.Wait()
	}
	if q.closed {
		return nil, false
	}
	var out []byte
	if len(q.items) == 1 {
		out = q.items[0]
	} else {
		for _, b := range q.items {
			out = append(out, b...)
		}
	}
	q.items = nil
	return out, true
}

func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	q.items = nil
	q.cond.Broadcast()
	q.mu.Unlock()
}
