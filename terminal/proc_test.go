package terminal

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// liveInGroup lists the processes of group pgid that are still alive (not
// zombies waiting for a reaper), from /proc.
func liveInGroup(t *testing.T, pgid int) []int {
	t.Helper()
	paths, _ := filepath.Glob("/proc/[0-9]*/stat")
	if len(paths) == 0 {
		t.Skip("no /proc: cannot check for leftover processes")
	}
	var live []int
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if g, _ := strconv.Atoi(f[2]); g == pgid {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			live = append(live, pid)
		}
	}
	return live
}

// assertGroupGone fails unless group pgid has no live process left; the
// kernel may take a moment to deliver SIGKILL, so it waits a little.
func assertGroupGone(t *testing.T, pgid int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		live := liveInGroup(t, pgid)
		if len(live) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes %v of group %d are still alive", live, pgid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
