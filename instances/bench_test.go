package instances

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the processor time used so far by this process and the git
// processes it waited for. On a shared machine the wall time of an op
// grows with the load; this does not, so the benchmarks report both.
func cpuTime(b *testing.B) time.Duration {
	b.Helper()
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if err := syscall.Getrusage(who, &ru); err != nil {
			b.Fatal(err)
		}
		total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return total
}

// cpuMeter sums the processor time of the timed parts of a benchmark.
type cpuMeter struct {
	start, sum time.Duration
}

func (c *cpuMeter) begin(b *testing.B) { c.start = cpuTime(b) }
func (c *cpuMeter) end(b *testing.B)   { c.sum += cpuTime(b) - c.start }
func (c *cpuMeter) report(b *testing.B, n int) {
	if n > 0 {
		b.ReportMetric(float64(c.sum.Milliseconds())/float64(n), "cpu-ms/op")
	}
}

// The creation benchmarks write 20,000 files; where the filesystem makes
// creating a file costly, that is most of their time (cp -r of the same
// files is the floor). Set TMPDIR to compare with a tmpfs. Measured on the
// 2-CPU build machine, December 2026, under other builds' load:
//
//	                        tmpfs               ext4 (cp -r: 3.5-7 s)
//	Worktree20k             0.8-1.2 s (0.8 s CPU)  5.6-6.5 s
//	Copy20k                 1.0-2.3 s (1.2 s CPU)  6.3-9.8 s
//	Diff/worktree (200)     0.14 s              0.06-0.27 s (0.07-0.12 s CPU)
//	Diff/copy (200)         0.07 s              0.04-0.06 s

// bigRepo makes a committed repository of n source-like files in folders
// of 100, its objects packed as a repository's usually are.
func bigRepo(b *testing.B, n int) string {
	b.Helper()
	needGit(b)
	ws := b.TempDir()
	run(b, ws, "init", "-q", "-b", "main")
	var body strings.Builder
	for i := range 40 {
		fmt.Fprintf(&body, "\tx%d := compute(%d)\n", i, i)
	}
	for i := range n {
		p := filepath.Join(ws, fmt.Sprintf("pkg%03d", i/100), fmt.Sprintf("file%05d.go", i))
		if i%100 == 0 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(p, []byte(fmt.Sprintf("package p\n// file %d\nfunc f() {\n%s}\n", i, body.String())), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	write(b, ws, map[string]string{".gitignore": "node_modules/\n*.log\n"})
	run(b, ws, "add", "-A")
	run(b, ws, "-c", "gc.auto=0", "commit", "-q", "-m", "init")
	run(b, ws, "repack", "-adq")
	run(b, ws, "prune")
	return ws
}

// edit changes a file's second line.
func edit(b *testing.B, root string, i int, tag string) {
	b.Helper()
	p := filepath.Join(root, fmt.Sprintf("pkg%03d", i/100), fmt.Sprintf("file%05d.go", i))
	data, err := os.ReadFile(p)
	if err != nil {
		b.Fatal(err)
	}
	s := strings.Replace(string(data), "// file", "// "+tag+" file", 1)
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkInstanceWorktree20k creates a worktree instance of a
// 20,000-file repository with 50 uncommitted changes (30 files changed,
// 20 added). The target is 1 s a create.
func BenchmarkInstanceWorktree20k(b *testing.B) {
	ws := bigRepo(b, 20_000)
	for i := range 30 {
		edit(b, ws, i*600, "operator")
	}
	for i := range 20 {
		write(b, ws, map[string]string{fmt.Sprintf("new/n%d.go", i): "package n\n"})
	}
	run(b, ws, "status", "--porcelain") // the operator's git has refreshed the index
	m := open(b, ws, Options{})
	n := 0
	var cpu cpuMeter
	for b.Loop() {
		id := fmt.Sprintf("w%d", n)
		n++
		cpu.begin(b)
		if _, err := m.Create(Worktree, id); err != nil {
			b.Fatal(err)
		}
		cpu.end(b)
		b.StopTimer()
		if err := m.Discard(id, true); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	cpu.report(b, n)
}

// BenchmarkInstanceCopy20k creates a copy instance of the same
// repository (its .git included), without reflinks. The target is 3 s.
func BenchmarkInstanceCopy20k(b *testing.B) {
	ws := bigRepo(b, 20_000)
	write(b, ws, map[string]string{"node_modules/big/a.js": "x\n", "app.log": "log\n"})
	m := open(b, ws, Options{NoReflink: true})
	n := 0
	var cpu cpuMeter
	for b.Loop() {
		id := fmt.Sprintf("c%d", n)
		n++
		cpu.begin(b)
		if _, err := m.Create(Copy, id); err != nil {
			b.Fatal(err)
		}
		cpu.end(b)
		b.StopTimer()
		if err := m.Discard(id, true); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	cpu.report(b, n)
}

// BenchmarkInstanceDiff diffs an instance with 200 changed files (of
// 2,000) against its base, patch included. The target is 200 ms.
func BenchmarkInstanceDiff(b *testing.B) {
	for _, kind := range kinds {
		b.Run(string(kind), func(b *testing.B) {
			ws := bigRepo(b, 2_000)
			m := open(b, ws, Options{})
			in, err := m.Create(kind, "d")
			if err != nil {
				b.Fatal(err)
			}
			for i := range 200 {
				edit(b, in.Path, i*10, "agent")
			}
			// The first diff of a fresh worktree hashes every file (git
			// cannot trust an index written in the same second as the
			// checkout); it is paid once, when the studio first shows the
			// instance. The loop measures the diffs after it.
			if _, err := m.Diff("d"); err != nil {
				b.Fatal(err)
			}
			var cpu cpuMeter
			n := 0
			cpu.begin(b)
			for b.Loop() {
				n++
				d, err := m.Diff("d")
				if err != nil {
					b.Fatal(err)
				}
				if len(d.Files) != 200 {
					b.Fatalf("%d files changed", len(d.Files))
				}
			}
			cpu.end(b)
			cpu.report(b, n)
		})
	}
}
