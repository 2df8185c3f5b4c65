package docker

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/terminal"
)

// BenchmarkDockerExec measures one short command in a warm container, the
// cost an agent's exec tool pays; p50-ms is the median.
func BenchmarkDockerExec(b *testing.B) {
	eng := needEngine(b)
	env := newEnv(b, eng, nil)
	ctx := context.Background()
	if _, err := env.Exec(ctx, terminal.ExecRequest{Command: []string{"true"}}); err != nil {
		b.Fatal(err)
	}
	var took []time.Duration
	for b.Loop() {
		start := time.Now()
		res, err := env.Exec(ctx, terminal.ExecRequest{Command: []string{"echo", "hi"}})
		if err != nil || res.Stdout != "hi\n" {
			b.Fatalf("%+v, %v", res, err)
		}
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(took[len(took)*9/10].Microseconds())/1000, "p90-ms")
}
