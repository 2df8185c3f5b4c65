package cli

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// TestExecOnHost: with a host running, `sessions exec` runs the command
// through it, in the session's environment there: the command is in the
// host's process session (the host is a session leader, started with
// setsid), not this command's. Its output, exit code, --json and a replayed
// key are what the in-process exec gives.
func TestExecOnHost(t *testing.T) {
	t.Parallel()
	b := newServeSandbox(t)
	st := b.detach()
	id := b.create()
	// Field 6 of /proc/PID/stat is the process's session id.
	r := b.run("sessions", "exec", id, "--", `cut -d" " -f6 /proc/$$/stat; echo err >&2; exit 7`).want(t, 7)
	if sid, err := strconv.Atoi(strings.TrimSpace(r.out)); err != nil || sid != st.PID {
		t.Errorf("the command ran in process session %q, want the host's (%d): another engine ran it\nstderr: %s", r.out, st.PID, r.err)
	}
	if !strings.Contains(r.err, "err") {
		t.Errorf("the command's stderr did not reach ours: %q", r.err)
	}

	r = b.run("sessions", "exec", id, "--json", "--key", "k1", "--", "echo", "one").want(t, ExitOK)
	var res struct {
		ExitCode int    `json:"exit_code"`
		Stdout   string `json:"stdout"`
		Replayed bool   `json:"replayed"`
	}
	if err := json.Unmarshal([]byte(r.out), &res); err != nil || res.Stdout != "one\n" || res.ExitCode != 0 || res.Replayed {
		t.Errorf("exec --json: %+v, %v\n%s", res, err, r.out)
	}
	r = b.run("sessions", "exec", id, "--key", "k1", "--", "echo", "one").want(t, ExitOK)
	if r.out != "one\n" || !strings.Contains(r.err, "recorded result of key k1") {
		t.Errorf("a replayed key printed %q, stderr %q", r.out, r.err)
	}
	b.run("sessions", "exec", "nosuchsession", "--", "true").want(t, ExitUsage)
}
