package history

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"
)

// checkChain asserts the history is one linear chain holding want commits
// and that git finds the repository sound.
func checkChain(t *testing.T, h *History, want int) []Commit {
	t.Helper()
	log, err := h.Log(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != want {
		t.Errorf("history holds %d commits, want %d", len(log), want)
	}
	for i := 0; i+1 < len(log); i++ {
		if log[i].Parent != log[i+1].Hash {
			t.Errorf("commit %d's parent is %s, want %s: the chain forked", i, log[i].Parent, log[i+1].Hash)
		}
	}
	if out, err := h.git.run(context.Background(), call{}, "fsck", "--strict", "--no-dangling"); err != nil {
		t.Errorf("fsck: %v\n%s", err, out)
	}
	return log
}

func TestConcurrentCommitsSerialise(t *testing.T) {
	ws := workspace(t)
	shared := open(t, ws, Options{})
	other := open(t, ws, Options{}) // a second History on the same workspace
	const writers, turns = 4, 5
	var wg sync.WaitGroup
	errs := make(chan error, writers*turns)
	for w := 0; w < writers; w++ {
		h := shared
		if w%2 == 1 {
			h = other
		}
		wg.Add(1)
		go func(w int, h *History) {
			defer wg.Done()
			for n := 1; n <= turns; n++ {
				path := fmt.Sprintf("w%d.txt", w)
				if err := os.WriteFile(ws+"/"+path, []byte(strconv.Itoa(n)), 0o644); err != nil {
					errs <- err
					return
				}
				_, err := h.CommitTurn(context.Background(), TurnCommit{SessionID: fmt.Sprintf("s%d", w), Turn: n, Changed: []string{path}})
				if err != nil {
					errs <- err
				}
			}
		}(w, h)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	checkChain(t, shared, writers*turns+1)
	for w := 0; w < writers; w++ {
		c, err := shared.Blame(context.Background(), fmt.Sprintf("w%d.txt", w))
		if err != nil || c.SessionID != fmt.Sprintf("s%d", w) {
			t.Errorf("blame w%d.txt = %+v, %v", w, c, err)
		}
	}
}

// helperEnv makes the test binary act as a second process committing turns.
const helperEnv = "ATELIER_HISTORY_HELPER_WS"

func TestHelperProcessCommits(t *testing.T) {
	ws := os.Getenv(helperEnv)
	if ws == "" {
		t.Skip("helper for TestTwoProcessesSerialise")
	}
	h, err := Open(ws, Options{})
	if err != nil {
		t.Fatal(err)
	}
	session := os.Getenv(helperEnv + "_SESSION")
	for n := 1; n <= 10; n++ {
		path := session + ".txt"
		if err := os.WriteFile(ws+"/"+path, []byte(strconv.Itoa(n)), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := h.CommitTurn(context.Background(), TurnCommit{SessionID: session, Turn: n, Changed: []string{path}}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestTwoProcessesSerialise(t *testing.T) {
	ws := workspace(t)
	h := open(t, ws, Options{})
	var cmds []*exec.Cmd
	for _, s := range []string{"p1", "p2"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcessCommits$", "-test.count=1")
		cmd.Env = append(os.Environ(), helperEnv+"="+ws, helperEnv+"_SESSION="+s)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	// This process commits too, meanwhile.
	for n := 1; n <= 10; n++ {
		write(t, ws, "p0.txt", strconv.Itoa(n))
		turn(t, h, "p0", n, []string{"p0.txt"})
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("helper process: %v", err)
		}
	}
	checkChain(t, h, 31)
	for _, s := range []string{"p0", "p1", "p2"} {
		if log, _ := h.Log(context.Background(), s); len(log) != 10 || log[0].Turn != 10 {
			t.Errorf("session %s has %d commits", s, len(log))
		}
	}
}

func TestWaitingForTheLockHonoursContext(t *testing.T) {
	ws := workspace(t)
	h := open(t, ws, Options{})
	other := open(t, ws, Options{})
	release, err := other.acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = h.CommitTurn(ctx, TurnCommit{SessionID: "s1", Turn: 1})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("commit while another writer holds the lock: %v", err)
	}
}
