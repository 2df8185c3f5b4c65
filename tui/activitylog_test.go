package tui

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/activity"
)

// TestActivitySurvivesARestart: what a studio logged is in the next
// studio's activity pane, older than its own entries, and nothing it
// logs itself shows twice.
func TestActivitySurvivesARestart(t *testing.T) {
	ws := t.TempDir()
	h := newHarness(t, ws, 120, 40)
	h.app.act.log("", "an entry of the first studio", themes.ToneSubtle)
	if err := h.app.mem.keep(); err != nil { // flushes the writer
		t.Fatal(err)
	}
	if b, err := os.ReadFile(activityPath(ws)); err != nil || !bytes.Contains(b, []byte("an entry of the first studio")) {
		t.Fatalf("the activity file: %q, %v", b, err)
	}
	if err := h.eng.Close(); err != nil {
		t.Fatal(err)
	}

	h2 := newHarness(t, ws, 120, 40) // Init loads the file
	var texts []string
	for _, e := range h2.app.activity.Newest(activity.Limit) {
		texts = append(texts, e.Text)
	}
	joined := strings.Join(texts, "\n")
	if strings.Count(joined, "an entry of the first studio") != 1 {
		t.Fatalf("the second studio's activity:\n%s", joined)
	}
}

// TestActivityFileIsBounded: a load skips lines it cannot read, keeps the
// newest Limit entries, and rewrites a file grown past twice the limit.
func TestActivityFileIsBounded(t *testing.T) {
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".state"), 0o700); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	n := 2*activity.Limit + 10
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "{\"time\":%q,\"text\":\"entry %d\"}\n", t0.Add(time.Duration(i)*time.Second).Format(time.RFC3339), i)
		if i == 5 {
			b.WriteString("{not json\n")
		}
	}
	b.WriteString("{\"time\":\"2026-01-01T00:00:00Z\",\"te") // a torn last line
	if err := os.WriteFile(activityPath(ws), b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	got := loadActivity(ws)
	if got.err != nil || len(got.entries) != activity.Limit || got.entries[len(got.entries)-1].Text != fmt.Sprintf("entry %d", n-1) {
		t.Fatalf("loaded %d entries (%v), last %+v", len(got.entries), got.err, got.entries[len(got.entries)-1])
	}
	data, err := os.ReadFile(activityPath(ws))
	if err != nil || bytes.Count(data, []byte("\n")) != activity.Limit {
		t.Fatalf("the file after the load has %d lines (%v), want %d", bytes.Count(data, []byte("\n")), err, activity.Limit)
	}
}
