package contract

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/attach"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/files"
	"github.com/atelier-studio/atelier/terminal"
)

// The rows of what the studio reads and runs besides sessions: the file
// pane's reads, downloads and watch, a terminal in a session's
// environment, the notification channels.
func init() {
	rows = append(rows,
		row{"the file pane reads the workspace", fileReadsRow},
		row{"the file pane sees a change", watchRow},
		row{"a terminal in a session's environment", terminalRow},
		row{"the notification channels", notifyRow},
	)
}

func fileReadsRow(t *testing.T, e attach.Engine, ws string) string {
	for p, body := range map[string]string{"a.txt": "alpha\n", "d/b.txt": "beta\n", "bin.dat": "\x00\x01\x02"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(ws, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, p), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := e.FilesOf("main")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	entries, rerr := f.ReadDir("")
	for _, en := range entries {
		if en.Name != ".state" && en.Name != ".git" {
			names = append(names, fmt.Sprintf("%s %v %d", en.Name, en.Kind, en.Size))
		}
	}
	c, cerr := f.ReadFile(files.Operator, "d/b.txt", files.ReadOptions{})
	var text string
	if c != nil {
		text = string(c.Data)
	}
	_, binErr := f.ReadFile(files.Operator, "bin.dat", files.ReadOptions{})
	_, outErr := f.ReadFile(files.Operator, "../outside", files.ReadOptions{})
	to := filepath.Join(t.TempDir(), "copy")
	st, derr := f.Download(files.Operator, "d", to)
	got, _ := os.ReadFile(filepath.Join(to, "b.txt")) // compared below
	_, unknown := e.FilesOf("nosuch")
	sort.Strings(names) // a listing's order is the tree's to choose
	return fmt.Sprintf("root %v (%s); d/b.txt %q (%s); binary refused %v; outside refused %v; download %d file(s) %q (%s); unknown instance refused %v",
		names, errWord(rerr), text, errWord(cerr), binErr != nil, outErr != nil, st.Files, got, errWord(derr), unknown != nil)
}

func watchRow(t *testing.T, e attach.Engine, ws string) string {
	f, err := e.FilesOf("main")
	if err != nil {
		t.Fatal(err)
	}
	w, err := f.Watch(files.NewIgnore())
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := w.Close(); err != nil {
			t.Error(err)
		}
	}()
	// The watch may start a moment after it is made: write until seen.
	deadline := time.Now().Add(20 * time.Second)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for n := 0; ; n++ {
		if err := os.WriteFile(filepath.Join(ws, "seen.txt"), []byte(strings.Repeat("x", n+1)), 0o644); err != nil {
			t.Fatal(err)
		}
		select {
		case batch, ok := <-w.Events():
			if !ok {
				t.Fatal("the watch ended")
			}
			for _, c := range batch {
				if c.Path == "seen.txt" {
					return fmt.Sprintf("seen.txt %s by %s", c.Kind, c.By)
				}
			}
		case <-tick.C:
		}
		if time.Now().After(deadline) {
			t.Fatal("the watch never saw the change")
		}
	}
}

func terminalRow(t *testing.T, e attach.Engine, _ string) string {
	s := create(t, e, core.CreateOptions{})
	pty, err := e.SessionShell(ctxFor(t), s.ID, terminal.Size{Cols: 80, Rows: 24}, []string{"sh", "-c", "echo from-the-terminal; exit 3"})
	if err != nil {
		t.Fatalf("the terminal: %v", err)
	}
	var out bytes.Buffer
	_, _ = io.Copy(&out, pty) // until the program ends: the pty's end is an error
	code, werr := pty.Wait()
	if err := pty.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	_, unknown := e.SessionShell(ctxFor(t), unknownID, terminal.Size{Cols: 80, Rows: 24}, nil)
	return fmt.Sprintf("printed it %v; exit %d (%s); unknown session %s",
		strings.Contains(out.String(), "from-the-terminal"), code, errWord(werr), errWord(unknown))
}

func notifyRow(t *testing.T, e attach.Engine, _ string) string {
	st, err := e.Notifications(ctxFor(t))
	res, terr := e.TestNotifications(ctxFor(t))
	return fmt.Sprintf("%d channel(s) (%s); a test reached %d (%s)", len(st.Channels), errWord(err), len(res), errWord(terr))
}
