package startup

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/creack/pty"
)

// BenchmarkFirstFrame10kFiles starts the real binary on a workspace of 10k
// files in a pty (120x40) and times exec → the first frame (the Sessions
// pane's title on screen). It reports the p50; each run is a fresh process
// on a workspace whose history already exists (the common case: the first
// open of a workspace snapshots it in the background without delaying the
// frame either). "attached" is the default studio, attaching to the
// workspace's running engine host (the first run starts it); "in-process"
// hosts the engine in the studio.
func BenchmarkFirstFrame10kFiles(b *testing.B) {
	root, err := filepath.Abs("../..")
	if err != nil {
		b.Fatal(err)
	}
	bin := filepath.Join(b.TempDir(), "atelier")
	if out, err := exec.Command("go", "build", "-o", bin, root).CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	ws := b.TempDir()
	for d := 0; d < 100; d++ {
		dir := filepath.Join(ws, fmt.Sprintf("pkg%03d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := 0; f < 100; f++ {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%03d.go", f)), []byte("package p\n"), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	home := b.TempDir()
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "TERM=xterm-256color")
	b.Cleanup(func() {
		stop := exec.Command(bin, "serve", "--stop", ws)
		stop.Env = env
		if out, err := stop.CombinedOutput(); err != nil {
			b.Errorf("stop the host: %v\n%s", err, out)
		}
	})
	run := func(args ...string) time.Duration {
		cmd := exec.Command(bin, append(args, ws)...)
		cmd.Env = env
		start := time.Now()
		f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
		if err != nil {
			b.Fatal(err)
		}
		defer func() {
			// Teardown of a studio that is being killed: Wait reports the
			// kill, and the pty is closed under a dead process.
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			_ = f.Close()
		}()
		var seen bytes.Buffer
		buf := make([]byte, 64<<10)
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			n, err := f.Read(buf)
			seen.Write(buf[:n])
			if bytes.Contains(seen.Bytes(), []byte("Sessions")) {
				return time.Since(start)
			}
			if err != nil {
				break
			}
		}
		b.Fatalf("no first frame; output: %q", seen.String())
		return 0
	}
	run("--in-process") // the workspace's first open: makes .state and the history
	for _, mode := range []string{"in-process", "attached"} {
		b.Run(mode, func(b *testing.B) {
			var args []string
			if mode == "in-process" {
				args = []string{"--in-process"}
			} else {
				run() // starts the host, in the background
				waitForHost(b, bin, ws, env)
			}
			var times []time.Duration
			for b.Loop() {
				times = append(times, run(args...))
			}
			sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
		})
	}
}

// waitForHost waits until the workspace's engine host answers.
func waitForHost(b *testing.B, bin, ws string, env []string) {
	b.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		cmd := exec.Command(bin, "serve", "--status", ws)
		cmd.Env = env
		if out, err := cmd.Output(); err == nil && bytes.Contains(out, []byte("runs in process")) {
			return
		}
	}
	b.Fatal("the studio started no engine host")
}
