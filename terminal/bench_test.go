package terminal

import (
	"context"
	"slices"
	"testing"
	"time"
)

// BenchmarkLocalExec measures one short command on the host; p50-ms is the
// median.
func BenchmarkLocalExec(b *testing.B) {
	l, err := NewLocal(LocalConfig{Workspace: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := l.Close(); err != nil {
			b.Error(err)
		}
	}()
	var took []time.Duration
	for b.Loop() {
		start := time.Now()
		res, err := l.Exec(context.Background(), ExecRequest{Command: []string{"echo", "hi"}})
		if err != nil || res.Stdout != "hi\n" {
			b.Fatalf("%+v, %v", res, err)
		}
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
}
