package host

import (
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/core"
)

// noticesOf collects the engine's workspace notices as they are published.
func noticesOf(t *testing.T, e *core.Engine) <-chan string {
	t.Helper()
	_, sub := e.Subscribe()
	out := make(chan string, 64)
	go func() {
		for range sub.Ready() {
			for _, ev := range sub.Drain() {
				if ev.Kind == core.EvNotice && ev.SessionID == "" {
					out <- ev.Text
				}
			}
		}
	}()
	t.Cleanup(sub.Close)
	return out
}

// TestReconfigureWatchesReplacedFiles: a running host sees its
// configuration file appear in a folder that did not exist when it
// started, and a save by rename over it; a burst of saves is one reload;
// a file beside it that is not the configuration reloads nothing; what
// Apply says goes out as an engine notice.
func TestReconfigureWatchesReplacedFiles(t *testing.T) {
	dir := shortDir(t)
	file := filepath.Join(dir, "cfg", "atelier", "config.toml")
	var applied atomic.Int32
	engines := make(chan *core.Engine, 1)
	runHost(t, Options{
		Open: func(ws string) (*core.Engine, error) {
			e, err := core.Open(ws, core.Options{NoHistory: true})
			if err == nil {
				engines <- e
			}
			return e, err
		},
		IdleExit: -1,
		Reconfigure: &Reconfigure{Files: []string{file}, Debounce: 100 * time.Millisecond,
			Apply: func() []string { return []string{fmt.Sprintf("applied %d", applied.Add(1))} }},
	})
	notices := noticesOf(t, <-engines)
	want := func(text string) {
		t.Helper()
		select {
		case n := <-notices:
			if n != text {
				t.Fatalf("notice %q, want %q", n, text)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no notice %q in 10 s (%d reloads)", text, applied.Load())
		}
	}

	// The folder is made, then the file written in a burst.
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if err := os.WriteFile(file, fmt.Appendf(nil, "# %d\n", i), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	want("applied 1")

	// An editor's save: another file renamed over it.
	tmp := file + ".swp"
	if err := os.WriteFile(tmp, []byte("# saved\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, file); err != nil {
		t.Fatal(err)
	}
	want("applied 2")

	// Another file in the folder is none of the configuration's.
	if err := os.WriteFile(filepath.Join(filepath.Dir(file), "other"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-notices:
		t.Fatalf("another file reloaded the configuration: %q", n)
	case <-time.After(500 * time.Millisecond):
	}
	if n := applied.Load(); n != 2 {
		t.Fatalf("%d reloads, want 2", n)
	}
}
