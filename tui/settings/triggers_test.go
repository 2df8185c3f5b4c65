package settings

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/themes"
)

// TestGoldenTriggers: the triggers' section lists each trigger's name,
// condition, what it starts and its last firing (reading…, never fired,
// or the record's word); a record that cannot be read says why; a
// workspace without triggers has no section.
func TestGoldenTriggers(t *testing.T) {
	st := themes.Build(themes.Dark(), true)
	cfg := &config.Config{Triggers: []config.Trigger{
		{Name: "deployed", OnEvent: "deploy", Agent: "quick"},
		{Name: "nightly", Schedule: "@every 30m"},
		{Name: "docs", OnChange: "docs/**/*.md", Workflow: "review"},
	}}
	p := New(st, cfg, "/ws", "auto", true)
	text := func() string { return ansi.Strip(strings.Join(p.triggerLines(), "\n")) }
	reading := text()
	p.SetFirings(map[string]string{"deployed": "2026-12-02 13:00:02 started session 2612021300aa",
		"nightly": "2026-12-02 12:30:00 missed due 3 times (…) while no engine ran"}, nil)
	got := reading + "\n\n" + text()
	p.SetFirings(nil, errors.New("read the trigger record: permission denied"))
	got += "\n\n" + text()
	if none := New(st, &config.Config{}, "/ws", "auto", true).triggerLines(); none != nil {
		t.Errorf("without triggers: %q", none)
	}
	got += "\n"
	path := filepath.Join("testdata", "triggers.txt")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("triggers.txt differs (run with -update if meant):\n--- got\n%s\n--- want\n%s", got, want)
	}
}
