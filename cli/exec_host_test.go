package cli

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/internal/poll"
	"github.com/atelier-studio/atelier/internal/testreq"
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

// TestExecOnHostDocker: through the host, two execs on a Docker session run
// in one container, the session's: the same hostname, and the second sees
// the file the first left in /tmp; and the host knows that container, so
// ending the session removes it. (On the old path each command's passive
// engine made or reattached the container behind the host's back, and
// cancelling the session through the host left it running.)
func TestExecOnHostDocker(t *testing.T) {
	t.Parallel()
	img := "atelier-test-busybox:latest"
	out, err := exec.Command("docker", "image", "inspect", "--format", "{{.Id}}", img).CombinedOutput()
	testreq.Need(t, "docker", err == nil, fmt.Sprintf("no Docker engine with the test image %s (run .ci/setup.d/docker.sh): %v %s", img, err, out))
	b := newServeSandbox(t)
	b.detach()
	id := b.create("--exec", "docker", "--image", img)
	first := b.run("sessions", "exec", id, "--", "hostname; echo left-by-first > /tmp/mark").want(t, ExitOK)
	second := b.run("sessions", "exec", id, "--", "hostname; cat /tmp/mark").want(t, ExitOK)
	host1 := strings.TrimSpace(first.out)
	lines := strings.Split(strings.TrimSpace(second.out), "\n")
	if host1 == "" || len(lines) != 2 || lines[0] != host1 || lines[1] != "left-by-first" {
		t.Errorf("the first exec ran on %q; the second printed %q: want the same container, with the first's file", host1, second.out)
	}
	// Ending the session removes its container.
	b.run("sessions", "cancel", id).want(t, ExitOK)
	poll.Until(t, "the session's container to go", func() bool {
		out, err := exec.Command("docker", "ps", "-a", "-q", "--filter", "label=atelier.session="+id).Output()
		return err == nil && strings.TrimSpace(string(out)) == ""
	})
	b.run("serve", "--stop").want(t, ExitOK)
}
