package sessions

import (
	"strings"
	"testing"
	"time"

	sess "github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/workflow/runs"
)

// TestRunGroupsItsSessions: a workflow run's sessions (its session now,
// and one an earlier attempt made, known by its key) show under the run's
// rows, its status and its steps with the current one marked; the group
// rows are not selectable, and the selection walks the sessions in the
// order shown.
func TestRunGroupsItsSessions(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	l := New(sample().st)
	l.SetSize(60, 12)
	l.SetNow(t0.Add(time.Hour))
	l.Set([]sess.Session{
		{ID: "a", Title: "alone", Agent: "demo", Status: sess.Running, SubState: sess.Active, CreatedAt: t0.Add(3 * time.Minute)},
		{ID: "w2", Title: "workflow implement: fix-001", Agent: "demo", Status: sess.Running, SubState: sess.Active,
			Key: runs.SessionKey("implement-abc", 2), CreatedAt: t0.Add(2 * time.Minute)},
		{ID: "b", Title: "between", Agent: "demo", Status: sess.Ended, EndReason: sess.Completed, CreatedAt: t0.Add(time.Minute)},
		{ID: "w1", Title: "workflow implement: fix-001", Agent: "demo", Status: sess.Ended, EndReason: sess.Completed,
			Key: runs.SessionKey("implement-abc", 1), CreatedAt: t0},
	})
	zero := 0
	l.SetRuns([]runs.Run{{ID: "implement-abc", Workflow: "implement", Key: "fix-001", Status: runs.Running, Session: "w2", Current: "implement",
		Plan:  []runs.PlannedStep{{Key: "install", Kind: "exec"}, {Key: "implement", Kind: "ask"}, {Key: "test", Kind: "exec"}},
		Steps: []runs.StepResult{{Key: "install", Kind: "exec", Status: "done", ExitCode: &zero}}}})
	l.Focus()
	want := []string{
		"2 live",
		" ⠋ alone",
		"▾ workflow implement · fix-001",
		"  ✓ install exit 0  ▶ implement  · test",
		"   ⠋ workflow implement: fix-001",
		"   ✓ workflow implement: fix-001",
		" ✓ between",
	}
	rows := strings.Split(shown(l), "\n")
	if len(rows) != len(want) {
		t.Fatalf("rows:\n%s", shown(l))
	}
	for i, w := range want {
		if !strings.HasPrefix(rows[i], w) {
			t.Errorf("row %d %q, want it to start %q", i, rows[i], w)
		}
	}
	if !strings.HasSuffix(rows[2], "running") {
		t.Errorf("the group row says the run's status: %q", rows[2])
	}
	var walked []string
	for range 5 {
		s, _ := l.Selected()
		walked = append(walked, s.ID)
		l.HandleKey(kp("down"))
	}
	if got := strings.Join(walked, " "); got != "a w2 w1 b b" {
		t.Errorf("the selection walked %s", got)
	}
	if act := l.Click(3); act != nil {
		t.Errorf("a group row is not a session: %v", act)
	}
	if s, _ := l.Selected(); s.ID != "b" {
		t.Errorf("a click on a group row moved the selection to %s", s.ID)
	}
}
