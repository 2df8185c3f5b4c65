package tui

import (
	"path/filepath"
	"regexp"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/core"
)

// changedMain is main.go's row in the file tree marked M.
var changedMain = regexp.MustCompile(`main\.go +M`)

// TestChangeMarksAreTheHosts: the tree's A/M/D marks are the host's one
// set. Two studios attached to one host, fed no watcher batch of their
// own, both mark a file another program changed; a third studio, opened
// after the change, marks it too; a turn that starts clears the mark in
// all three.
func TestChangeMarksAreTheHosts(t *testing.T) {
	far := t.TempDir()
	writeFile(t, filepath.Join(far, "main.go"), "package main\n")
	writeFile(t, filepath.Join(far, "lib", "a.go"), "package lib\n")
	eng, url := serveFar(t, far)
	open := func() *harnessT {
		app := attachedStudio(t, url)
		h := &harnessT{t: t, app: app, eng: eng}
		h.run(app.Init())
		h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
		h.until("the tree", func() bool { return regexp.MustCompile(`main\.go`).MatchString(h.screen()) })
		return h
	}
	a, b := open(), open()
	if changedMain.MatchString(a.screen()) || changedMain.MatchString(b.screen()) {
		t.Fatalf("main.go is marked before it changed:\n%s", a.screen())
	}
	writeFile(t, filepath.Join(far, "main.go"), "package main\n\nfunc main() {}\n")
	for _, h := range []*harnessT{a, b} {
		h.until("main.go marked M", func() bool { return changedMain.MatchString(h.screen()) })
	}
	c := open()
	c.until("main.go marked M in a studio opened after the change", func() bool { return changedMain.MatchString(c.screen()) })

	if _, err := eng.Create(core.CreateOptions{Title: "a turn", Agent: "demo", AutoStart: true, Approval: core.PolicyAuto}); err != nil {
		t.Fatal(err)
	}
	for _, h := range []*harnessT{a, b, c} {
		h.until("the mark cleared by the turn's start", func() bool { return !changedMain.MatchString(h.screen()) })
	}
}
