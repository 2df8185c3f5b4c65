package screen

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"

	"github.com/atelier-studio/atelier/terminal"
)

// startShell runs command on a real local pty behind a Screen.
func startShell(t *testing.T, size terminal.Size, opts Options, command ...string) *Screen {
	t.Helper()
	l, err := terminal.NewLocal(terminal.LocalConfig{
		Workspace: t.TempDir(),
		BaseEnv:   []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/tmp", "PS1=$ "},
		Shell:     "/bin/sh",
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Error(err)
		}
	})
	p, err := l.Shell(context.Background(), size, command)
	if err != nil {
		t.Fatal(err)
	}
	opts.Size = size
	s, err := New(p, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

// waitScreen waits until the plain text of the screen satisfies ok.
func waitScreen(t *testing.T, s *Screen, what string, ok func(plain string) bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		plain := ansi.Strip(s.Render())
		if ok(plain) {
			return
		}
		select {
		case <-s.Updates():
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatalf("screen never showed %s; it shows:\n%s", what, plain)
		}
	}
}

func contains(text string) func(string) bool {
	return func(plain string) bool { return strings.Contains(plain, text) }
}

func TestShellTypedThroughTheScreen(t *testing.T) {
	s := startShell(t, terminal.Size{Cols: 60, Rows: 10}, Options{}, "/bin/sh")
	waitScreen(t, s, "the prompt", contains("$"))
	s.SendText("echo hello-$((40+2))")
	s.SendKey(Key{Code: vt.KeyEnter})
	waitScreen(t, s, "the command's output", func(p string) bool {
		return strings.Contains(p, "\nhello-42")
	})
	f := s.Frame()
	if len(f.Lines) != 10 || f.Cols != 60 || ansi.StringWidth(f.Lines[0]) != 60 {
		t.Fatalf("frame %dx%d, first line %d wide", f.Cols, len(f.Lines), ansi.StringWidth(f.Lines[0]))
	}

	// Colours come through as SGR sequences.
	s.SendText(`printf '\033[31mRED\033[0m plain\n'` + "\r")
	waitScreen(t, s, "red text", contains("RED plain"))
	if r := s.Render(); !strings.Contains(r, "31m") || !strings.Contains(r, "RED") {
		t.Fatalf("no colour in %q", r)
	}

	// Resize reaches the program.
	if err := s.Resize(terminal.Size{Cols: 100, Rows: 30}); err != nil {
		t.Fatal(err)
	}
	s.SendText("stty size\r")
	waitScreen(t, s, "the new size", contains("30 100"))
	if f := s.Frame(); f.Cols != 100 || f.Rows != 30 {
		t.Fatalf("frame is %dx%d", f.Cols, f.Rows)
	}

	// The alternate screen hides the main one and gives it back.
	s.SendText(`printf '\033[?1049h\033[HALT\055SCREEN'; sleep 0.5; printf '\033[?1049l'` + "\r")
	waitScreen(t, s, "the alternate screen", func(p string) bool {
		return strings.Contains(p, "ALT-SCREEN") && !strings.Contains(p, "hello-42")
	})
	if !s.Frame().AltScreen {
		t.Fatal("frame does not say alternate screen")
	}
	waitScreen(t, s, "the main screen back", func(p string) bool {
		return strings.Contains(p, "hello-42") && !strings.Contains(p, "ALT-SCREEN")
	})

	s.SendText("exit\r")
	select {
	case <-s.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the shell did not end")
	}
}

func TestKeysAndBracketedPaste(t *testing.T) {
	// cat -v shows the bytes the program receives.
	s := startShell(t, terminal.Size{Cols: 80, Rows: 10}, Options{}, "/bin/sh", "-c", `stty -echo; printf '\033[?2004hREADY\n'; exec cat -v`)
	waitScreen(t, s, "ready", contains("READY"))
	s.Paste("pasted\r")
	waitScreen(t, s, "the bracketed paste", contains("^[[200~pasted"))
	s.SendKey(Key{Code: vt.KeyUp})
	s.SendKey(Key{Code: vt.KeyEnter})
	waitScreen(t, s, "the end of the paste and the key", contains("^[[201~^[[A"))
	s.SendKey(Key{Code: 'c', Mod: vt.ModCtrl})
	select {
	case <-s.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("ctrl-c did not end cat")
	}
}

func TestScrollbackCapped(t *testing.T) {
	s := startShell(t, terminal.Size{Cols: 40, Rows: 10}, Options{Scrollback: 100}, "/bin/sh", "-c", "seq 1 3000; sleep 30")
	waitScreen(t, s, "the end of the output", contains("3000"))
	if n := s.ScrollbackLen(); n != 100 {
		t.Fatalf("scrollback holds %d lines, cap 100", n)
	}
	// The live screen ends with 3000; scrolled back 20 lines, it shows
	// the lines 20 earlier.
	up := strings.Fields(ansi.Strip(s.RenderScrolled(20)))
	if len(up) == 0 || up[0] != "2972" {
		t.Fatalf("scrolled back 20: %q", up)
	}
}

func TestFramesCoalesced(t *testing.T) {
	var frames int64
	count := make(chan struct{}, 1<<16)
	start := time.Now()
	s := startShell(t, terminal.Size{Cols: 80, Rows: 24}, Options{OnFrame: func() { count <- struct{}{} }}, "/bin/sh", "-c", "seq 1 5000; echo DONE; sleep 30")
	waitScreen(t, s, "the end", contains("DONE"))
	took := time.Since(start)
	// Let the last frame land, then nothing changes: no frame may come.
	time.Sleep(200 * time.Millisecond)
	frames = int64(len(count))
	if max := int64(took.Seconds()*60) + 3; frames > max {
		t.Fatalf("%d frames in %v: more than 60 a second", frames, took)
	}
	time.Sleep(300 * time.Millisecond)
	if extra := int64(len(count)) - frames; extra != 0 {
		t.Fatalf("%d frames while nothing changed", extra)
	}
}

func TestBadSize(t *testing.T) {
	if _, err := New(nil, Options{}); err == nil {
		t.Fatal("a zero size was accepted")
	}
}
