package netns

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/internal/testreq"
)

// envInside marks the child process that runs inside the namespace.
const envInside = "ATELIER_IN_NETNS"

// Inside reports whether this process runs in the loopback-only namespace.
func Inside() bool { return os.Getenv(envInside) == "1" }

// Enter re-runs the calling test inside a new network namespace with only
// loopback up (unshare -n, then ip link set lo up), unless it already runs
// there. It returns true in the child, where the test goes on, and false
// in the parent after the child finished (its failure fails t). Without
// unshare or ip, or without the privilege to use them, the test skips
// through testreq under the component name "netns".
func Enter(t *testing.T) bool {
	t.Helper()
	if Inside() {
		return true
	}
	unshare, err1 := exec.LookPath("unshare")
	ip, err2 := exec.LookPath("ip")
	testreq.Need(t, "netns", err1 == nil && err2 == nil, "unshare and ip (util-linux, iproute2) are needed")
	probe := exec.Command(unshare, "-n", ip, "link", "set", "lo", "up")
	if out, err := probe.CombinedOutput(); err != nil {
		testreq.Need(t, "netns", false, "cannot make a network namespace: "+strings.TrimSpace(string(out)))
	}
	args := []string{"-n", "sh", "-c", ip + ` link set lo up && exec "$0" "$@"`, os.Args[0],
		"-test.run=^" + t.Name() + "$", "-test.v"}
	if testing.Short() {
		args = append(args, "-test.short")
	}
	cmd := exec.Command(unshare, args...)
	cmd.Env = append(os.Environ(), envInside+"=1")
	out, err := cmd.CombinedOutput()
	text := string(out)
	if err != nil {
		t.Fatalf("test inside the network namespace failed: %v\n%s", err, text)
	}
	if strings.Contains(text, "--- SKIP") {
		t.Skipf("skipped inside the network namespace:\n%s", text)
	}
	if !strings.Contains(text, "--- PASS") {
		t.Fatalf("test inside the network namespace did not pass:\n%s", text)
	}
	t.Logf("ran inside a loopback-only network namespace:\n%s", text)
	return false
}
