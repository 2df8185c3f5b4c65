package workspaces

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/instances"
	sess "github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/keys"
)

func sample() Data {
	return Data{Loaded: true,
		Folder: []sess.Session{{ID: "s1", Title: "fix the tests", Status: sess.Running}},
		Instances: []Instance{
			{ID: "wt", Kind: instances.Worktree, Branch: "atelier/wt", Sessions: []sess.Session{{ID: "s2", Title: "refactor", Status: sess.Waiting}},
				Summary: &Summary{Bytes: 12 << 10, Files: 3, Added: 10, Removed: 2}},
			{ID: "cp", Kind: instances.Copy, Sessions: []sess.Session{{ID: "s3", Title: "try", Status: sess.Ended, EndReason: sess.Completed}}},
		}}
}

func press(p *Pane, k string) Action { return p.HandleKey(keys.Press(k)) }

func TestKeysAskForTheSelectedInstance(t *testing.T) {
	p := New(themes.Styles{})
	p.SetSize(80, 20)
	p.SetData(sample())
	if a, ok := press(p, "d").(Notice); !ok || !strings.Contains(a.Text, "select an instance") {
		t.Fatalf("d on the folder: %#v", a)
	}
	if a := press(p, "f"); a != (Files{}) {
		t.Fatalf("f on the folder shows the workspace's files: %#v", a)
	}
	press(p, "down")
	for k, want := range map[string]Action{"d": Diff{"wt"}, "a": Apply{"wt"}, "f": Files{"wt"}, "x": Discard{"wt"}, "b": Branch{"wt"}, "r": Refresh{}} {
		if got := press(p, k); got != want {
			t.Errorf("%s: %#v, want %#v", k, got, want)
		}
	}
	press(p, "j")
	if a, ok := press(p, "b").(Notice); !ok || !strings.Contains(a.Text, "only a worktree") {
		t.Fatalf("b on a copy: %#v", a)
	}
	press(p, "down") // stays on the last
	if id, _ := p.Selected(); id != "cp" {
		t.Fatalf("selected %q", id)
	}
}

func TestSelectionFollowsTheInstanceAcrossData(t *testing.T) {
	p := New(themes.Styles{})
	p.SetSize(80, 20)
	p.SetData(sample())
	press(p, "down")
	press(p, "down") // cp
	d := sample()
	d.Instances = d.Instances[1:] // wt was discarded
	p.SetData(d)
	if id, ok := p.Selected(); !ok || id != "cp" {
		t.Fatalf("selected %q %v, want cp", id, ok)
	}
	d.Instances = nil
	p.SetData(d)
	if _, ok := p.Selected(); ok {
		t.Fatal("with its instance gone the selection is the folder")
	}
}

func TestUnusedAndChanges(t *testing.T) {
	d := sample()
	if d.Instances[0].Unused() || !d.Instances[1].Unused() || !(Instance{}).Unused() {
		t.Fatal("unused: no session that has not ended")
	}
	if got := (Summary{Files: 1, Added: 2}).Changes(); got != "1 file +2 −0" {
		t.Fatal(got)
	}
	for n, want := range map[int64]string{100: "100 B", 12 << 10: "12 KB", 5 << 20: "5.0 MB", 3 << 30: "3.0 GB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestSelectedRowStaysInView(t *testing.T) {
	d := Data{Loaded: true}
	for i := range 12 {
		d.Instances = append(d.Instances, Instance{ID: "in" + string(rune('a'+i)), Kind: instances.Copy})
	}
	p := New(themes.Styles{})
	p.SetSize(60, 10)
	p.SetData(d)
	for range 11 {
		p.HandleKey(tea.KeyPressMsg{Code: tea.KeyDown})
	}
	view := ansi.Strip(strings.Join(p.View(), "\n"))
	if !strings.Contains(view, "▸ ink · copy") || len(p.View()) != 10 {
		t.Fatalf("the selected instance is not in view:\n%s", view)
	}
}

func TestClickSelectsTheRowUnderIt(t *testing.T) {
	p := New(themes.Styles{})
	p.SetSize(80, 20)
	p.SetData(sample())
	view := p.View()
	for row, l := range view {
		if strings.Contains(l, "try") { // a session line of cp
			p.Click(row)
		}
	}
	if id, _ := p.Selected(); id != "cp" {
		t.Fatalf("a click on cp's session selects %q", id)
	}
	p.Click(0) // the head: nothing
	if id, _ := p.Selected(); id != "cp" {
		t.Fatalf("a click on the head moved the selection to %q", id)
	}
	for row, l := range p.View() {
		if strings.Contains(l, "the workspace folder · in place") {
			p.Click(row)
		}
	}
	if _, ok := p.Selected(); ok {
		t.Fatal("a click on the folder selects it")
	}
}
