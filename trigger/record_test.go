package trigger

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/sessions"
)

// TestCompactKeepsWhatMatters: a long record is cut to each trigger's
// newest firings, every firing not finished, and each trigger's newest
// armed and missed lines (what missed schedules are counted from).
func TestCompactKeepsWhatMatters(t *testing.T) {
	now := time.Now().UTC()
	var all []Firing
	add := func(f Firing) { f.Time = now; all = append(all, f) }
	add(Firing{ID: "a@event/pending", Trigger: "a", State: StateFired})
	add(Firing{Trigger: "tick", State: StateArmed, Schedule: "@every 1s"})
	for i := range keepPer + 50 {
		id := fmt.Sprintf("a@event/%d", i)
		add(Firing{ID: id, Trigger: "a", State: StateFired})
		add(Firing{ID: id, Trigger: "a", State: StateStarted, Session: "s"})
	}
	add(Firing{Trigger: "tick", State: StateArmed, Schedule: "@every 1s"})
	add(Firing{Trigger: "tick", State: StateMissed, Schedule: "@every 1s", Missed: 3})
	got := compact(all)
	ids := map[string]int{}
	armed, missed := 0, 0
	for _, f := range got {
		ids[f.ID]++
		switch f.State {
		case StateArmed:
			armed++
		case StateMissed:
			missed++
		}
	}
	if ids["a@event/pending"] != 1 {
		t.Error("a firing not finished was dropped")
	}
	if ids["a@event/0"] != 0 || ids[fmt.Sprintf("a@event/%d", keepPer+49)] != 2 {
		t.Errorf("want the newest firings whole and the oldest gone: %v", ids)
	}
	if len(ids) != keepPer+1+1 || armed != 1 || missed != 1 { // +1 pending, +1 the id-less lines' ""
		t.Errorf("%d ids, %d armed, %d missed", len(ids), armed, missed)
	}
}

// TestOpenRecordCompactsALongRecord: a host that finds the record past
// maxLines rewrites it compacted before it appends.
func TestOpenRecordCompactsALongRecord(t *testing.T) {
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, sessions.StateDir), 0o700); err != nil {
		t.Fatal(err)
	}
	var b []byte
	for i := range maxLines + 10 {
		b = fmt.Appendf(b, `{"id":"a@event/%d","trigger":"a","state":"started","time":"2026-01-01T00:00:00Z"}`+"\n", i)
	}
	if err := os.WriteFile(path(ws), b, 0o600); err != nil {
		t.Fatal(err)
	}
	rec, lines, err := openRecord(ws)
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.append(Firing{ID: "a@event/new", Trigger: "a", State: StateFired, Time: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := rec.close(); err != nil {
		t.Fatal(err)
	}
	all, err := ReadAll(ws)
	if err != nil || len(lines) != keepPer || len(all) != keepPer+1 || all[keepPer].ID != "a@event/new" {
		t.Fatalf("%d lines at open, %d after the append (%v)", len(lines), len(all), err)
	}
}
