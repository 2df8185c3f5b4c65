package history

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// tree20k writes a workspace of 20,000 small, distinct source files in 200
// folders.
func tree20k(b *testing.B) string {
	b.Helper()
	ws := workspace(b)
	body := strings.Repeat("// a line of generated source code\n", 6)
	for d := 0; d < 200; d++ {
		dir := filepath.Join(ws, "pkg", fmt.Sprintf("d%03d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := 0; f < 100; f++ {
			// Distinct contents: one object per file, as in a real tree.
			content := fmt.Sprintf("// file %d of folder %d\n%s", f, d, body)
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.go", f)), []byte(content), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	return ws
}

// reportPercentiles adds p50 and p95 of the per-turn latencies.
func reportPercentiles(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	ms := func(x time.Duration) float64 { return float64(x) / float64(time.Millisecond) }
	b.ReportMetric(ms(d[len(d)/2]), "p50-ms")
	b.ReportMetric(ms(d[len(d)*95/100]), "p95-ms")
}

// BenchmarkTurnCommit20k measures the commit at the end of a turn that
// changed 5 known files of a 20k-file workspace, logs included.
func BenchmarkTurnCommit20k(b *testing.B) {
	benchTurns(b, true)
}

// BenchmarkTurnCommitFullScan20k is the same turn when the changed paths are
// unknown (an agent CLI's shell commands, say) and the workspace is scanned.
func BenchmarkTurnCommitFullScan20k(b *testing.B) {
	benchTurns(b, false)
}

func benchTurns(b *testing.B, known bool) {
	ws := tree20k(b)
	start := time.Now()
	h, err := Open(ws, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("first snapshot of 20k files: %v", time.Since(start))
	logPath := ".state/sessions/bench/messages.jsonl"
	write(b, ws, logPath, "")
	ctx := context.Background()
	var lat []time.Duration
	var spawns int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		changed := make([]string, 5)
		for k := range changed {
			changed[k] = fmt.Sprintf("pkg/d%03d/f%03d.go", (i*5+k)%200, (i*7+k)%100)
			write(b, ws, changed[k], fmt.Sprintf("// turn %d edit %d\n", i, k))
		}
		f, err := os.OpenFile(filepath.Join(ws, logPath), os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			b.Fatal(err)
		}
		_, err = fmt.Fprintf(f, "{\"turn\":%d}\n", i)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			b.Fatal(err)
		}
		tc := TurnCommit{SessionID: "bench", Turn: i + 1, Summary: "edit five files", Logs: []string{logPath}}
		if known {
			tc.Changed = changed
		}
		b.StartTimer()
		t0 := time.Now()
		before := h.git.spawns.Load()
		if _, err := h.CommitTurn(ctx, tc); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
		spawns += h.git.spawns.Load() - before
	}
	b.StopTimer()
	reportPercentiles(b, lat)
	// The processes started per commit: a figure the machine's load
	// leaves alone, unlike the times.
	b.ReportMetric(float64(spawns)/float64(b.N), "git-spawns/op")
}

// BenchmarkFirstSnapshot20k measures Open on a 20k-file workspace without
// a history: init and the first snapshot commit.
func BenchmarkFirstSnapshot20k(b *testing.B) {
	ws := tree20k(b)
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if err := os.RemoveAll(filepath.Join(ws, ".state")); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		t0 := time.Now()
		if _, err := Open(ws, Options{}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	reportPercentiles(b, lat)
}

// BenchmarkOperatorCommit20k measures the operator commit the engine makes
// before each turn on a 20k-file workspace: one file edited outside any
// turn, the rest unchanged (a status scan, then a small commit).
func BenchmarkOperatorCommit20k(b *testing.B) {
	ws := tree20k(b)
	h, err := Open(ws, Options{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		write(b, ws, fmt.Sprintf("pkg/d%03d/f%03d.go", i%200, i%100), fmt.Sprintf("// operator edit %d\n", i))
		b.StartTimer()
		t0 := time.Now()
		if _, made, err := h.OperatorCommit(ctx, nil); err != nil || !made {
			b.Fatalf("operator commit: made %v, %v", made, err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	reportPercentiles(b, lat)
}

// BenchmarkInstanceBegin20k measures an instance's first use: its index
// started from the workspace branch's tree and the snapshot of a 20k-file
// copy, under the lock every writer of the workspace waits on.
func BenchmarkInstanceBegin20k(b *testing.B) {
	ws := tree20k(b)
	h, err := Open(ws, Options{})
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(ws, "pkg"))); err != nil {
		b.Fatal(err)
	}
	work := filepath.Join(b.TempDir(), "copy")
	if err := os.MkdirAll(work, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(dir, filepath.Join(work, "pkg")); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id := fmt.Sprintf("b%d", i)
		if _, err := h.Instance(id, work); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := h.DropInstance(id); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// BenchmarkInstanceTurn20k measures a turn of an instance of a 20k-file
// workspace that changed 5 known files, 200 files away from the workspace.
func BenchmarkInstanceTurn20k(b *testing.B) {
	ws := tree20k(b)
	h, err := Open(ws, Options{})
	if err != nil {
		b.Fatal(err)
	}
	work := b.TempDir()
	if err := os.CopyFS(work, os.DirFS(ws)); err != nil {
		b.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(work, ".state")); err != nil {
		b.Fatal(err)
	}
	in, err := h.Instance("bench", work)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for f := 0; f < 200; f++ {
		if err := os.WriteFile(filepath.Join(work, "pkg", "d001", fmt.Sprintf("f%03d.go", f%100)), []byte(fmt.Sprint("diverged ", f)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := in.CommitTurn(ctx, TurnCommit{SessionID: "s0", Turn: 0}); err != nil {
		b.Fatal(err)
	}
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var changed []string
		for k := 0; k < 5; k++ {
			rel := fmt.Sprintf("pkg/d%03d/f%03d.go", 100+k, i%100)
			if err := os.WriteFile(filepath.Join(work, rel), []byte(fmt.Sprint("turn ", i, k)), 0o644); err != nil {
				b.Fatal(err)
			}
			changed = append(changed, rel)
		}
		start := time.Now()
		if _, err := in.CommitTurn(ctx, TurnCommit{SessionID: "s1", Turn: i + 1, Changed: changed}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	reportPercentiles(b, lat)
}

// BenchmarkTurnCycle20k measures what the engine does per turn on a
// 20k-file workspace: the operator commit before the turn (which catches
// the index up after a fast turn commit) and the turn's commit of 5 known
// files. It shows where the index's cost went, not only the turn's part.
func BenchmarkTurnCycle20k(b *testing.B) {
	ws := tree20k(b)
	h, err := Open(ws, Options{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var lat []time.Duration
	var spawns int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		changed := make([]string, 5)
		for k := range changed {
			changed[k] = fmt.Sprintf("pkg/d%03d/f%03d.go", (i*5+k)%200, (i*7+k)%100)
			write(b, ws, changed[k], fmt.Sprintf("// turn %d edit %d\n", i, k))
		}
		b.StartTimer()
		t0 := time.Now()
		before := h.git.spawns.Load()
		if _, _, err := h.OperatorCommit(ctx, changed); err != nil {
			b.Fatal(err)
		}
		if _, err := h.CommitTurn(ctx, TurnCommit{SessionID: "bench", Turn: i + 1, Summary: "edit five files", Changed: changed}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
		spawns += h.git.spawns.Load() - before
	}
	b.StopTimer()
	reportPercentiles(b, lat)
	b.ReportMetric(float64(spawns)/float64(b.N), "git-spawns/op")
}
