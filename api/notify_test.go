package api

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/notify"
)

// TestNotifyRoutes: the channels are listed, and a test goes through the
// command channel, a real script, with the workspace and how to act.
func TestNotifyRoutes(t *testing.T) {
	out := filepath.Join(t.TempDir(), "event.json")
	script := filepath.Join(t.TempDir(), "hook.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ncat > "+out+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	n := notify.New(notify.Options{Settings: notify.Settings{Command: []string{script}, Desktop: "off",
		Events: []string{notify.KindApproval}, Timeout: 5 * time.Second}})
	t.Cleanup(n.Close)
	r := newRig(t, Options{Notify: n})

	st, err := r.c.Notify(ctxFor(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Channels) != 1 || st.Channels[0].Name != "command" || !st.Channels[0].Ready || st.Channels[0].Detail != script ||
		len(st.Events) != 1 || st.Timeout != "5s" {
		t.Errorf("the status: %+v", st)
	}
	rs, err := r.c.NotifyTest(ctxFor(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || rs[0] != (notify.Result{Channel: "command"}) {
		t.Errorf("the test's results: %+v", rs)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var ev notify.Event
	if err := json.Unmarshal(b, &ev); err != nil {
		t.Fatal(err)
	}
	if ev.Kind != notify.KindTest || ev.Workspace != r.eng.Workspace() || ev.Act != notify.Act(r.eng.Workspace()) {
		t.Errorf("the command read %+v", ev)
	}

	none := newRig(t, Options{})
	if st, err := none.c.Notify(ctxFor(t, 10*time.Second)); err != nil || len(st.Channels) != 0 || st.Events == nil {
		t.Errorf("without channels: %+v, %v", st, err)
	}
	if rs, err := none.c.NotifyTest(ctxFor(t, 10*time.Second)); err != nil || len(rs) != 0 {
		t.Errorf("a test without channels: %+v, %v", rs, err)
	}
}
