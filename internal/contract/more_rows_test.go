package contract

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/attach"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/instances"
	"github.com/atelier-studio/atelier/sessions/history"
)

// The rows of the workspace's history and its instances: each runs the
// demo to its end, which writes a note, so there is something to read.
func init() {
	rows = append(rows,
		row{"the history of a turn", historyRow},
		row{"a copy instance, applied and discarded", instanceRow},
	)
}

// ran creates a session with o, runs it to its rest answering as the
// operator, and returns it.
func ran(t *testing.T, e attach.Engine, o core.CreateOptions) string {
	t.Helper()
	o.AutoStart = true
	s := create(t, e, o)
	settle(t, e, s.ID)
	return s.ID
}

func historyRow(t *testing.T, e attach.Engine, ws string) string {
	ctx := ctxFor(t)
	id := ran(t, e, core.CreateOptions{Approval: core.PolicyAuto})
	h, err := e.History()
	if err != nil {
		t.Fatalf("the history: %v", err)
	}
	// The turn's commit is written after the turn: wait for it.
	var log []history.Commit
	for deadline := time.Now().Add(20 * time.Second); len(log) == 0; {
		if log, err = h.Log(ctx, id); err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatal("the turn's commit never came")
		}
		time.Sleep(10 * time.Millisecond)
	}
	turn := log[0]
	changes, cerr := h.Changes(ctx, turn.Hash)
	var paths []string
	for _, c := range changes {
		paths = append(paths, c.Path)
	}
	diff, derr := h.Diff(ctx, turn.Hash)
	blame, berr := h.Blame(ctx, harness.DemoFile)
	if err := os.WriteFile(filepath.Join(ws, harness.DemoFile), []byte("changed by hand\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pre, perr := h.PreviewRestore(ctx, turn.Hash, []string{harness.DemoFile})
	restored, rerr := e.Restore(ctx, turn.Hash, []string{harness.DemoFile}, "")
	back, _ := os.ReadFile(filepath.Join(ws, harness.DemoFile)) // compared below
	_, unknown := h.Changes(ctx, strings.Repeat("0", 40))
	return fmt.Sprintf("%d commit(s), turn %d %s; changed %v (%s); diff names the note %v (%s); blame is the turn %v (%s); "+
		"preview %d file(s) (%s); restore made a commit %v (%s), the note is back %v; unknown commit refused %v",
		len(log), turn.Turn, turn.Kind, paths, errWord(cerr), strings.Contains(diff, harness.DemoFile), errWord(derr),
		blame.Hash == turn.Hash, errWord(berr), len(pre.Files), errWord(perr), restored != "", errWord(rerr),
		strings.HasPrefix(string(back), "# Written by the Atelier demo"), errWord(unknown) != "ok")
}

func instanceRow(t *testing.T, e attach.Engine, ws string) string {
	ctx := ctxFor(t)
	est, eerr := e.CopyEstimate(ctx)
	id := ran(t, e, core.CreateOptions{Approval: core.PolicyAuto, Isolation: core.IsolationCopy})
	list, err := e.ListInstances(ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("instances %+v, %v", list, err)
	}
	in := list[0]
	sum, serr := e.InstanceSummary(ctx, in.ID)
	diff, derr := e.InstanceDiff(ctx, in.ID)
	var changed []string
	for _, f := range diff.Files {
		changed = append(changed, fmt.Sprintf("%s %s", f.Status, f.Path))
	}
	_, inPlace := os.Stat(filepath.Join(ws, harness.DemoFile))
	pre, perr := e.ApplyInstance(ctx, in.ID, instances.ApplyOptions{Preview: true})
	res, aerr := e.ApplyInstance(ctx, in.ID, instances.ApplyOptions{})
	note, nerr := os.ReadFile(filepath.Join(ws, harness.DemoFile))
	derr2 := e.DiscardInstance(ctx, in.ID, false)
	after, lerr := e.ListInstances(ctx)
	return fmt.Sprintf("estimate with a warning size %v (%s); %s instance of %d session(s), ours %v; summary %d file(s) +%d (%s); diff %v (%s); "+
		"the workspace had no note %v; preview %d, applied %d (%s, %s); the note %d bytes (%v); discard %s; %d left (%s)",
		est.WarnSize > 0, errWord(eerr), in.Kind, len(in.Sessions), len(in.Sessions) == 1 && in.Sessions[0] == id,
		sum.Files, sum.Added, errWord(serr), changed, errWord(derr), os.IsNotExist(inPlace),
		len(pre.Files), len(res.Files), errWord(perr), errWord(aerr), len(note), nerr, errWord(derr2), len(after), errWord(lerr))
}
