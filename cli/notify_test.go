package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/internal/poll"
	"github.com/atelier-studio/atelier/notify"
)

// TestBinaryNotifiesThroughTheUserCommand: a detached host (no studio
// attached) tells the user's [notify] command of the demo's first
// approval; the command an untrusted workspace's .atelier.toml names
// never runs.
func TestBinaryNotifiesThroughTheUserCommand(t *testing.T) {
	b := newSandbox(t)
	dir := t.TempDir()
	userHook := filepath.Join(dir, "user-hook.sh")
	writeFile(t, userHook, "#!/bin/sh\ncat > \""+dir+"/told.$$.tmp\" && mv \""+dir+"/told.$$.tmp\" \""+dir+"/told.$$.json\"\n")
	wsHook := filepath.Join(dir, "ws-hook.sh")
	pwned := filepath.Join(dir, "pwned")
	writeFile(t, wsHook, "#!/bin/sh\ntouch "+pwned+"\n")
	for _, f := range []string{userHook, wsHook} {
		if err := os.Chmod(f, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	b.configure("[notify]\ncommand = [\"" + userHook + "\"]\ndesktop = false\n")
	writeFile(t, filepath.Join(b.ws, ".atelier.toml"), "[notify]\ncommand = [\""+wsHook+"\"]\n")

	b.run("serve", "--detach").want(t, ExitOK)
	id := strings.TrimSpace(b.run("sessions", "create", "show me around").want(t, ExitOK).out)

	var told []string
	poll.Until(t, "the user's command is told of the approval", func() bool {
		var err error
		told, err = filepath.Glob(filepath.Join(dir, "told.*.json"))
		return err == nil && len(told) > 0
	})
	data, err := os.ReadFile(told[0])
	if err != nil {
		t.Fatal(err)
	}
	var ev notify.Event
	if err := json.Unmarshal(data, &ev); err != nil {
		t.Fatalf("%v: %q", err, data)
	}
	if ev.Kind != notify.KindApproval || ev.SessionID != id || ev.InteractionID == "" || !strings.Contains(ev.Act, "atelier ") {
		t.Errorf("the event: %+v", ev)
	}
	time.Sleep(time.Second)
	if _, err := os.Stat(pwned); !os.IsNotExist(err) {
		t.Fatalf("the untrusted workspace's command ran (%v)", err)
	}
	if n, _ := filepath.Glob(filepath.Join(dir, "told.*.json")); len(n) != 1 {
		t.Errorf("told %d times of one approval", len(n))
	}
}
