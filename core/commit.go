package core

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/sessions/history"
)

// commitTimeout bounds a turn's commit.
const commitTimeout = 2 * time.Minute

// noteWrite records a path the turn wrote through the engine (a tool, an
// agent's file request), for the turn's commit. It is kept in the session
// record, so the turn's commit still names it after a pause, a quit or a
// crash.
func (l *live) noteWrite(p string) {
	e := l.e
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, w := range l.rec.TurnWrote {
		if w == p {
			return
		}
	}
	l.rec.TurnWrote = append(l.rec.TurnWrote, p)
	l.saveLocked()
}

// ranExecLocked notes that the open turn ran a command (or an agent CLI's
// own tools), which may have changed anything: its commit scans the whole
// workspace.
func (l *live) ranExecLocked() {
	if l.rec.TurnRanExec {
		return
	}
	l.rec.TurnRanExec = true
	l.saveLocked()
}

// commitJob is one history commit, made in order by the engine's commit
// loop: a turn's commit, or the operator's changes before a turn starts.
type commitJob struct {
	l        *live
	turn     *history.TurnCommit
	exclude  []string      // operator commit: paths other open turns claim
	done     chan struct{} // closed when the job is finished
	operator bool
	// instance is the place an operator commit records: "" the
	// workspace, else the instance's chain; session is whose turn it
	// precedes ("" for an apply's).
	instance string
	session  string
	// barrier jobs commit nothing: their done says every job queued
	// before them is finished.
	barrier bool
}

// queueTurnCommitLocked queues the history commit that ends the open turn:
// numbered with this turn, naming the paths it wrote (or a full scan when
// it ran commands) and the session's logs. The record says a commit is
// pending until it is written, so a crash in between is committed at the
// next open. Nothing is queued without a history or for a turn that never
// opened.
func (l *live) queueTurnCommitLocked() {
	e := l.e
	if e.opts.NoHistory || l.rec.Turns == 0 {
		return
	}
	tc := l.endingCommit
	l.endingCommit = nil
	if tc == nil {
		l.prepareCommitLocked()
		tc, l.endingCommit = l.endingCommit, nil
		l.saveLocked()
	}
	e.commits.push(&commitJob{l: l, turn: tc, done: make(chan struct{})})
}

// prepareCommitLocked describes the ending turn's commit and clears the
// open turn's fields, before the status save that ends the turn records
// both (so an ended record never shows an open turn's writes).
func (l *live) prepareCommitLocked() {
	e := l.e
	if e.opts.NoHistory || l.rec.Turns == 0 {
		return
	}
	l.endingCommit = l.turnCommitLocked()
	l.rec.TurnWrote, l.rec.TurnRanExec, l.rec.CommitPending = nil, false, true
}

// turnCommitLocked describes the commit of the session's current turn.
func (l *live) turnCommitLocked() *history.TurnCommit {
	tc := &history.TurnCommit{SessionID: l.rec.ID, Turn: l.rec.Turns, Summary: l.summaryLocked()}
	if !l.rec.TurnRanExec {
		tc.Changed = append([]string{}, l.rec.TurnWrote...)
		sort.Strings(tc.Changed)
	}
	for _, f := range []string{sessions.MessagesFile, sessions.TurnsFile, sessions.ControlsFile, sessions.InteractionsFile, sessions.KeysFile} {
		tc.Logs = append(tc.Logs, l.log.Path(f))
	}
	return tc
}

// commitLoop makes the engine's history commits one after the other, in
// the order they were queued: the history is one chain, and a turn's
// commit must come before the operator commit that precedes the
// session's next turn. It has a lock of its own; jobs are queued under
// the engine's lock where their order matters (so a job's place in the
// queue matches the state it was described from), and run with no lock
// held.
type commitLoop struct {
	mu      sync.Mutex
	jobs    []*commitJob
	running bool
	wg      *sync.WaitGroup // the engine's: Close waits for the loop
	run     func(*commitJob)
}

// push adds a job, starting the loop when it is idle. Close waits for it,
// so a turn that ended just before a quit still gets its commit.
func (q *commitLoop) push(j *commitJob) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.pushLocked(j)
}

func (q *commitLoop) pushLocked(j *commitJob) {
	q.jobs = append(q.jobs, j)
	if !q.running {
		q.running = true
		q.wg.Add(1)
		go q.loop()
	}
}

func (q *commitLoop) loop() {
	defer q.wg.Done()
	for {
		q.mu.Lock()
		if len(q.jobs) == 0 {
			q.running = false
			q.mu.Unlock()
			return
		}
		j := q.jobs[0]
		q.jobs = q.jobs[1:]
		q.mu.Unlock()
		if !j.barrier {
			q.run(j)
		}
		close(j.done)
	}
}

// pushOrJoin adds an operator job, unless the last job queued (not
// started yet) is the same commit: the same place, the same paths left to
// other turns, told to the same session. Then that one is returned, for
// its done; otherwise j is.
func (q *commitLoop) pushOrJoin(j *commitJob) *commitJob {
	q.mu.Lock()
	defer q.mu.Unlock()
	if n := len(q.jobs); n > 0 {
		last := q.jobs[n-1]
		if last.operator && last.instance == j.instance && last.session == j.session && slices.Equal(last.exclude, j.exclude) {
			return last
		}
	}
	q.pushLocked(j)
	return j
}

// barrier waits until every commit queued so far is written (an apply
// waits for the turns of its instance).
func (q *commitLoop) barrier() {
	j := &commitJob{barrier: true, done: make(chan struct{})}
	q.push(j)
	<-j.done
}

// runCommit makes one job's commit (the commit loop's run).
func (e *Engine) runCommit(j *commitJob) {
	if j.operator {
		e.commitOperator(j)
		return
	}
	e.commitTurn(j.l, *j.turn)
}

// operatorCommit records, before a turn starts (or a paused one resumes),
// what changed in the workspace since the last commit as the operator's own
// commit, so the turn's commit (and blame, and restore previews) never
// credits the agent with the operator's edits. Paths that other open turns
// wrote are left to those turns. When another open turn (or this one, after
// a pause) ran commands, nobody can tell its changes from the operator's:
// no operator commit is made then, rather than blame the operator for an
// agent's work. Only the sessions of the same place count: a session on an
// instance records the instance's chain, whose folder no other place's
// turn writes.
//
// It waits for the commit, unless cut is closed first: a pause asked for
// while the commit runs (git, which takes long on a big workspace) is not
// held behind it. It reports whether the commit was waited for; when cut
// ended the wait, the commit still goes on in the commit loop, and the next
// turn's own operator commit comes after it.
func (e *Engine) operatorCommit(ctx context.Context, l *live, cut <-chan struct{}) bool {
	done := e.queueOperatorCommit(l.rec.Instance, l.rec.ID)
	select {
	case <-done:
		return true
	case <-ctx.Done():
		return true
	case <-cut:
		return false
	}
}

// operatorCommitOf makes the operator commit of a place (the workspace, or
// an instance's chain) and waits for it; session is whose turn it precedes
// ("" for none: an apply), told when it fails.
func (e *Engine) operatorCommitOf(ctx context.Context, instance, session string) {
	select {
	case <-e.queueOperatorCommit(instance, session):
	case <-ctx.Done():
	}
}

// queueOperatorCommit queues the operator commit of a place and returns
// the channel closed once it is made (at once when none is to be made). A
// request that finds the same commit queued and not started yet shares it:
// made later than both requests, it records all the changes either needs,
// and a burst of resumes costs one scan of the workspace, not one each.
func (e *Engine) queueOperatorCommit(instance, session string) <-chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	var exclude []string
	for _, o := range e.live {
		open := o.inTurn || o.rec.Status == sessions.Paused && !o.rec.BetweenTurns
		if !open || o.rec.Instance != instance {
			continue
		}
		if o.rec.TurnRanExec {
			return closedChan
		}
		exclude = append(exclude, o.rec.TurnWrote...)
	}
	sort.Strings(exclude)
	j := &commitJob{session: session, operator: true, instance: instance, exclude: exclude, done: make(chan struct{})}
	return e.commits.pushOrJoin(j).done
}

// closedChan is a channel that is always ready: a wait with nothing to
// wait for.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

func (e *Engine) commitOperator(j *commitJob) {
	h, err := e.HistoryOf(j.instance)
	if err != nil {
		e.noticeSession(j.session, "history: recording the operator's changes failed: "+err.Error())
		return
	}
	if h == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), commitTimeout)
	defer cancel()
	c, made, err := h.OperatorCommit(ctx, j.exclude)
	e.mu.Lock()
	defer e.mu.Unlock()
	if err != nil {
		e.bus.publish(Event{Kind: EvNotice, SessionID: j.session, Text: "history: recording the operator's changes failed: " + err.Error()})
		return
	}
	if made {
		e.bus.publish(Event{Kind: EvCommit, Text: c.Hash})
	}
}

// summaryLocked is the one line a turn's commit carries: the start of the
// agent's last text, else the session's status.
func (l *live) summaryLocked() string {
	for i := len(l.msgs) - 1; i >= 0; i-- {
		m := l.msgs[i]
		if m.Role == sessions.Assistant {
			if t := strings.TrimSpace(m.Text()); t != "" {
				return firstLine(t, 72)
			}
		}
	}
	return fmt.Sprintf("turn %d: %s %s%s", l.rec.Turns, l.rec.Status, l.rec.WaitReason, l.rec.EndReason)
}

func firstLine(s string, n int) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return s
}

// commitTurn writes a turn's history commit and tells subscribers: on the
// workspace's branch, or, for a session on an instance, on the instance's
// chain. A failed commit never fails the session: the turn's work is in its
// folder and its logs; the failure is shown.
func (e *Engine) commitTurn(l *live, tc history.TurnCommit) {
	h, err := e.hist.of(l.rec.Instance)
	if err != nil {
		e.noticeSession(tc.SessionID, "history commit failed: "+err.Error())
		return
	}
	if h == nil {
		return
	}
	if _, err := os.Stat(e.store.Dir(l.rec.ID)); err != nil {
		return // deleted meanwhile: nothing of it to record
	}
	// Not e.ctx: a turn that ended just before the engine closes still
	// gets its commit (Close waits for it), bounded in time.
	ctx, cancel := context.WithTimeout(context.Background(), commitTimeout)
	defer cancel()
	c, err := h.CommitTurn(ctx, tc)
	e.mu.Lock()
	defer e.mu.Unlock()
	if err != nil {
		e.bus.publish(Event{Kind: EvNotice, SessionID: tc.SessionID, Text: "history commit failed: " + err.Error()})
		return
	}
	if l.rec.CommitPending && l.rec.Turns == tc.Turn && !l.broken {
		l.rec.CommitPending = false
		l.saveLocked()
	}
	e.bus.publish(Event{Kind: EvCommit, SessionID: tc.SessionID, Text: c.Hash, Turn: tc.Turn})
}
