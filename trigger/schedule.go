package trigger

import (
	"fmt"
	"time"

	"github.com/atelier-studio/atelier/config"
)

// maxMissed bounds the count of missed schedules (an "@every 1s" trigger
// a month without a host): past it the report says "more than".
const maxMissed = 100_000

// armSchedule returns the first time t is due from now, and reports the
// times it was due while no host ran: those after the last time a host
// had it armed (or fired it) under the same expression, before now. They
// are recorded and said, never run. An "@every" schedule keeps its
// cadence across hosts: it counts from its last firing.
func (r *Runner) armSchedule(t config.Trigger, lines []Firing) time.Time {
	now := time.Now()
	next, missed, first, last := skip(t, scheduleRef(t, lines, now), now)
	r.mu.Lock()
	line := Firing{Trigger: t.Name, State: StateArmed, Time: now.UTC(), Schedule: t.Schedule}
	if missed > 0 {
		l := last.UTC()
		line = Firing{Trigger: t.Name, State: StateMissed, Time: now.UTC(), Schedule: t.Schedule, Scheduled: &l, Missed: missed,
			Cause: fmt.Sprintf("due %s while no engine ran", span(first, last, missed))}
	}
	err := r.rec.append(line)
	r.mu.Unlock()
	if err != nil {
		r.opts.Logf("trigger %s: %v", t.Name, err)
	}
	if missed > 0 {
		r.say("", fmt.Sprintf("trigger %s (%s) missed %s while no engine ran; they are not run now, the next is at %s",
			t.Name, t.Condition(), span(first, last, missed), next.Local().Format(time.DateTime)))
	}
	return next
}

// scheduleRef is the time t's schedule counts from: the last time a host
// had it armed (or fired it) under the same expression, or now.
func scheduleRef(t config.Trigger, lines []Firing, now time.Time) time.Time {
	var ref time.Time
	for _, f := range lines {
		if f.Trigger != t.Name || f.Schedule != t.Schedule {
			continue
		}
		at := f.Time
		if f.Scheduled != nil {
			at = *f.Scheduled
		}
		if at.After(ref) {
			ref = at
		}
	}
	if ref.IsZero() || ref.After(now) {
		ref = now
	}
	return ref
}

// skip walks t's schedule from ref: the first time after now, and how
// many times (first and last) fell in between.
func skip(t config.Trigger, ref, now time.Time) (next time.Time, missed int, first, last time.Time) {
	next = t.Cron.Next(ref)
	for !next.After(now) {
		if next.IsZero() {
			return next, missed, first, last // a schedule that never comes
		}
		if missed == 0 {
			first = next
		}
		last = next
		missed++
		if missed >= maxMissed {
			return t.Cron.Next(now), missed, first, last
		}
		next = t.Cron.Next(next)
	}
	return next, missed, first, last
}

// span words missed schedules: "once (at …)", "12 times (… to …)".
func span(first, last time.Time, n int) string {
	if n == 1 {
		return "once (at " + first.Local().Format(time.DateTime) + ")"
	}
	more := ""
	if n >= maxMissed {
		more = "more than "
	}
	return fmt.Sprintf("%s%d times (%s to %s)", more, n, first.Local().Format(time.DateTime), last.Local().Format(time.DateTime))
}

// lateSlack is how late a due time may still fire.
const lateSlack = 2 * time.Second

// runSchedule fires t at each time it is due, until the runner stops. A
// time that passed while the host was held up (a suspended laptop) is
// reported as missed, not run late in a burst.
func (r *Runner) runSchedule(t config.Trigger, next time.Time) {
	defer r.wg.Done()
	if next.IsZero() {
		r.say("", fmt.Sprintf("trigger %s (%s) is never due", t.Name, t.Condition()))
		return
	}
	timer := time.NewTimer(time.Until(next))
	defer timer.Stop()
	for {
		select {
		case <-r.ctx.Done():
			return
		case <-timer.C:
		}
		due := next.UTC()
		r.fire(t, firing{id: t.Name + "@schedule/" + due.Format(time.RFC3339Nano), cause: "schedule, due " + next.Local().Format(time.DateTime),
			scheduled: &due})
		// A time a little past is run late (a firing that took a while);
		// one well past was missed.
		now := time.Now().Add(-lateSlack)
		var missed int
		var first, last time.Time
		next, missed, first, last = skip(t, next, now)
		if missed > 0 {
			r.say("", fmt.Sprintf("trigger %s (%s) missed %s: the host was held up; they are not run late", t.Name, t.Condition(), span(first, last, missed)))
		}
		if next.IsZero() {
			return
		}
		timer.Reset(time.Until(next))
	}
}
