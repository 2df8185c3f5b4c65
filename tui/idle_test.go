package tui

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/attach"
	"github.com/atelier-studio/atelier/core"
)

// TestIdleStudioSleeps: a studio with nothing running and nothing
// changing does no work of its own: over 10 s, once its first frame and
// the startup's loads are done, at most 2 messages reach its model (the
// fading of a status message may be one). Each message is a wake-up of
// the model (an Update, a View); a tick left running, a blinking cursor
// or a poll shows here as dozens.
func TestIdleStudioSleeps(t *testing.T) {
	if testing.Short() {
		t.Skip("takes 10 s of idling")
	}
	ws := t.TempDir()
	writeFiles(t, ws, "README.md", "src/main.go", "src/util/a.go")
	eng, err := core.Open(ws, core.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer closeEngine(t, eng)

	var mu sync.Mutex
	var last time.Time
	counting := false
	seen := map[string]int{}
	filter := func(_ tea.Model, msg tea.Msg) tea.Msg {
		mu.Lock()
		defer mu.Unlock()
		last = time.Now()
		if counting {
			seen[fmt.Sprintf("%T", msg)]++
		}
		return msg
	}
	in, inW := io.Pipe()
	defer func() {
		if err := inW.Close(); err != nil {
			t.Error(err)
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{Engine: attach.Local(eng), NoColor: true, Program: []tea.ProgramOption{
			tea.WithInput(in), tea.WithOutput(io.Discard), tea.WithWindowSize(140, 42),
			tea.WithFilter(filter), tea.WithoutSignalHandler()}})
	}()
	// Settled: no message for a second (the first frame, the tree's and
	// the engine's first loads are done).
	deadline := time.Now().Add(20 * time.Second)
	for {
		time.Sleep(100 * time.Millisecond)
		mu.Lock()
		quiet := !last.IsZero() && time.Since(last) > time.Second
		if quiet {
			counting = true
		}
		mu.Unlock()
		if quiet {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the studio never settled: messages kept coming for 20 s")
		}
	}
	time.Sleep(10 * time.Second)
	mu.Lock()
	counting = false
	total := 0
	var kinds []string
	for k, n := range seen {
		total += n
		kinds = append(kinds, fmt.Sprintf("%s×%d", k, n))
	}
	mu.Unlock()
	cancel()
	if err := <-done; err != nil && ctx.Err() == nil {
		t.Fatal(err)
	}
	sort.Strings(kinds)
	if total > 2 {
		t.Fatalf("an idle studio woke %d times in 10 s: %s", total, strings.Join(kinds, ", "))
	}
	t.Logf("idle for 10 s: %d messages %v", total, kinds)
}
