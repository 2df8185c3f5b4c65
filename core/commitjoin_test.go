package core

import (
	"sync"
	"testing"
)

// A burst of operator commits asked for while the loop is busy is one
// commit: a request joins the same operator commit queued and not started
// yet, never one already running, another place's or one behind which a
// turn's commit is queued (the chain's order).
func TestOperatorCommitJoinsTheQueuedOne(t *testing.T) {
	var wg sync.WaitGroup
	started, hold := make(chan struct{}), make(chan struct{})
	var ran []*commitJob
	q := &commitLoop{wg: &wg, run: func(j *commitJob) {
		ran = append(ran, j)
		if len(ran) == 1 {
			close(started)
			<-hold
		}
	}}
	op := func(instance string, exclude ...string) *commitJob {
		return &commitJob{operator: true, instance: instance, session: "s", exclude: exclude, done: make(chan struct{})}
	}
	running := q.pushOrJoin(op(""))
	<-started
	a := q.pushOrJoin(op(""))
	if a == running {
		t.Fatal("joined the commit already running: it may have scanned before the request")
	}
	if b := q.pushOrJoin(op("")); b != a {
		t.Fatal("a second request did not join the queued commit")
	}
	if c := q.pushOrJoin(op("", "x.go")); c == a {
		t.Fatal("joined a commit that leaves other paths to other turns")
	}
	d := q.pushOrJoin(op("inst1"))
	if d == a {
		t.Fatal("joined another place's commit")
	}
	q.push(&commitJob{turn: nil, done: make(chan struct{})})
	if e := q.pushOrJoin(op("inst1")); e == d {
		t.Fatal("joined a commit queued before a turn's commit")
	}
	close(hold)
	wg.Wait()
	if len(ran) != 6 {
		t.Fatalf("%d jobs ran, want 6 (running, joined, exclude, instance, turn, after the turn)", len(ran))
	}
}
