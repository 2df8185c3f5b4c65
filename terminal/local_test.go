package terminal

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/internal/expect"
)

func newLocal(t *testing.T) (*Local, string) {
	t.Helper()
	dir := t.TempDir()
	l, err := NewLocal(LocalConfig{Workspace: dir, Shell: "/bin/sh"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Error(err)
		}
	})
	return l, dir
}

func TestLocalExecResult(t *testing.T) {
	l, dir := newLocal(t)
	tests := []struct {
		name        string
		req         ExecRequest
		code        int
		out, errOut string
	}{
		{"exit code and streams apart", ExecRequest{ShellCommand: "echo out; echo err >&2; exit 3"}, 3, "out\n", "err\n"},
		{"argv without shell", ExecRequest{Command: []string{"printf", "%s|", "a b", "$HOME"}}, 0, "a b|$HOME|", ""},
		{"runs in the workspace", ExecRequest{Command: []string{"pwd", "-P"}}, 0, mustEval(t, dir) + "\n", ""},
		{"env and stdin", ExecRequest{ShellCommand: `echo "$X"; cat`, Env: []string{"X=1"}, Stdin: []byte("in")}, 0, "1\nin", ""},
		{"missing program is 127", ExecRequest{Command: []string{"no-such-program-xyz"}}, 127, "", "no-such-program-xyz"},
		{"signal is 128+n", ExecRequest{ShellCommand: "kill -TERM $$"}, 143, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := l.Exec(context.Background(), tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if res.ExitCode != tc.code || res.Stdout != tc.out || !strings.Contains(res.Stderr, tc.errOut) {
				t.Fatalf("got code %d stdout %q stderr %q; want %d %q %q", res.ExitCode, res.Stdout, res.Stderr, tc.code, tc.out, tc.errOut)
			}
			if res.TimedOut || res.Cancelled {
				t.Fatalf("unexpected flags: %+v", res)
			}
		})
	}
}

func mustEval(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestLocalExecBadRequests(t *testing.T) {
	l, _ := newLocal(t)
	for name, req := range map[string]ExecRequest{
		"no command":    {},
		"both forms":    {Command: []string{"true"}, ShellCommand: "true"},
		"dir escapes":   {Command: []string{"true"}, Dir: "../x"},
		"absolute dir":  {Command: []string{"true"}, Dir: "/tmp"},
		"missing dir":   {Command: []string{"true"}, Dir: "nope"},
		"malformed env": {Command: []string{"true"}, Env: []string{"NOEQUALS"}},
		"empty env key": {Command: []string{"true"}, Env: []string{"=x"}},
		"empty program": {Command: []string{""}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := l.Exec(context.Background(), req)
			if !errors.Is(err, ErrBadRequest) {
				t.Fatalf("got %v, want ErrBadRequest", err)
			}
		})
	}
}

// groupOf runs a command that prints its shell's pid (its process group)
// first, and returns that pid once it appears.
func pidFromChunk(c Chunk, got chan<- int) {
	line, _, _ := strings.Cut(string(c.Data), "\n")
	if pid, err := strconv.Atoi(strings.TrimSpace(line)); err == nil && c.Stream == Stdout {
		select {
		case got <- pid:
		default:
		}
	}
}

func TestLocalExecTimeoutKillsGroup(t *testing.T) {
	l, _ := newLocal(t)
	pids := make(chan int, 1)
	res, err := l.Exec(context.Background(), ExecRequest{
		ShellCommand: "echo $$; sleep 30 & sleep 31; echo never",
		Timeout:      300 * time.Millisecond,
		OnChunk:      func(c Chunk) { pidFromChunk(c, pids) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.Cancelled || res.ExitCode != 137 || strings.Contains(res.Stdout, "never") {
		t.Fatalf("got %+v, want a timed out kill", res)
	}
	assertGroupGone(t, <-pids)
}

func TestLocalExecCancelKillsGroup(t *testing.T) {
	l, _ := newLocal(t)
	ctx, cancel := context.WithCancel(context.Background())
	pids := make(chan int, 1)
	go func() {
		<-time.After(200 * time.Millisecond)
		cancel()
	}()
	res, err := l.Exec(ctx, ExecRequest{
		ShellCommand: "echo $$; sleep 30 & sleep 31",
		OnChunk:      func(c Chunk) { pidFromChunk(c, pids) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Cancelled || res.TimedOut {
		t.Fatalf("got %+v, want cancelled", res)
	}
	assertGroupGone(t, <-pids)

	res, err = l.Exec(ctx, ExecRequest{Command: []string{"true"}})
	if err != nil || !res.Cancelled {
		t.Fatalf("exec with a done context: got %+v, %v; want cancelled without running", res, err)
	}
}

func TestLocalExecKillsLeftoversAtExit(t *testing.T) {
	l, _ := newLocal(t)
	pids := make(chan int, 1)
	res, err := l.Exec(context.Background(), ExecRequest{
		ShellCommand: "echo $$; sleep 30 & exit 0",
		Timeout:      20 * time.Second,
		OnChunk:      func(c Chunk) { pidFromChunk(c, pids) },
	})
	if err != nil || res.ExitCode != 0 || res.TimedOut {
		t.Fatalf("got %+v, %v", res, err)
	}
	assertGroupGone(t, <-pids)
}

func TestLocalExecOutputCap(t *testing.T) {
	l, _ := newLocal(t)
	res, err := l.Exec(context.Background(), ExecRequest{
		ShellCommand: "echo START; i=0; while [ $i -lt 2000 ]; do echo line-$i; i=$((i+1)); done; echo END; echo small >&2",
		MaxOutput:    1000,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.StdoutTruncated || res.StderrTruncated {
		t.Fatalf("truncation flags: %+v", res)
	}
	if !strings.HasPrefix(res.Stdout, "START\n") || !strings.HasSuffix(res.Stdout, "END\n") || !strings.Contains(res.Stdout, "bytes omitted") {
		t.Fatalf("stdout should keep head and tail with a marker: %q", res.Stdout)
	}
	if len(res.Stdout) > 1100 {
		t.Fatalf("stdout kept %d bytes, cap 1000", len(res.Stdout))
	}
	if res.Stderr != "small\n" {
		t.Fatalf("stderr %q", res.Stderr)
	}
}

func TestLocalExecStreamsChunks(t *testing.T) {
	l, dir := newLocal(t)
	// The command waits for a file that the test creates only when the
	// first line arrived through OnChunk: without streaming it times out.
	var mu sync.Mutex
	var seen []string
	res, err := l.Exec(context.Background(), ExecRequest{
		ShellCommand: "echo first; while [ ! -e go ]; do sleep 0.02; done; echo second",
		Timeout:      10 * time.Second,
		OnChunk: func(c Chunk) {
			mu.Lock()
			seen = append(seen, string(c.Data))
			mu.Unlock()
			if strings.Contains(string(c.Data), "first") {
				if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
					t.Error(err) // the command then runs until its timeout
				}
			}
		},
	})
	if err != nil || res.TimedOut || res.Stdout != "first\nsecond\n" {
		t.Fatalf("got %+v, %v", res, err)
	}
	if strings.Join(seen, "") != res.Stdout {
		t.Fatalf("chunks %q do not add up to %q", seen, res.Stdout)
	}
}

func TestLocalReadOnlyRefuses(t *testing.T) {
	l, err := NewLocal(LocalConfig{Workspace: t.TempDir(), ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, err = l.Exec(ctx, ExecRequest{Command: []string{"touch", "x"}})
	if !errors.Is(err, ErrReadOnlyLocal) {
		t.Fatalf("exec: %v", err)
	}
	if _, err := l.Spawn(ctx, []string{"cat"}, nil); !errors.Is(err, ErrReadOnlyLocal) {
		t.Fatalf("spawn: %v", err)
	}
	if _, err := l.Shell(ctx, Size{Cols: 80, Rows: 24}, nil); !errors.Is(err, ErrReadOnlyLocal) {
		t.Fatalf("shell: %v", err)
	}
}

func TestLocalClosedRefuses(t *testing.T) {
	l, _ := newLocal(t)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Exec(context.Background(), ExecRequest{Command: []string{"true"}}); !errors.Is(err, ErrClosed) {
		t.Fatalf("got %v, want ErrClosed", err)
	}
}

func TestLocalSpawnRoundTrip(t *testing.T) {
	l, _ := newLocal(t)
	p, err := l.Spawn(context.Background(), []string{"sh", "-c", `while read l; do echo "out $l"; echo "err $l" >&2; done; exit 7`}, []string{"A=1"})
	if err != nil {
		t.Fatal(err)
	}
	out, errOut := bufio.NewReader(p.Stdout()), bufio.NewReader(p.Stderr())
	for _, msg := range []string{"one", "two"} {
		if _, err := io.WriteString(p.Stdin(), msg+"\n"); err != nil {
			t.Fatal(err)
		}
		if line, err := out.ReadString('\n'); err != nil || line != "out "+msg+"\n" {
			t.Fatalf("stdout %q, %v", line, err)
		}
		if line, err := errOut.ReadString('\n'); err != nil || line != "err "+msg+"\n" {
			t.Fatalf("stderr %q, %v", line, err)
		}
	}
	if err := p.Stdin().Close(); err != nil {
		t.Fatal(err)
	}
	if code, err := p.Wait(); err != nil || code != 7 {
		t.Fatalf("wait: %d, %v", code, err)
	}
	if rest, _ := io.ReadAll(out); len(rest) != 0 {
		t.Fatalf("unexpected output %q", rest)
	}
}

func TestLocalSpawnKillAndClose(t *testing.T) {
	l, _ := newLocal(t)
	ctx, cancel := context.WithCancel(context.Background())
	procs := map[string]Process{}
	for _, how := range []string{"kill", "cancel", "close"} {
		c := ctx
		if how != "cancel" {
			c = context.Background()
		}
		p, err := l.Spawn(c, []string{"sh", "-c", "echo $$; sleep 30 & sleep 31"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		procs[how] = p
	}
	pgids := map[string]int{}
	for how, p := range procs {
		line, err := bufio.NewReader(p.Stdout()).ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		pgids[how], _ = strconv.Atoi(strings.TrimSpace(line))
	}
	if err := procs["kill"].Kill(); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	for how, p := range procs {
		if code, err := p.Wait(); err != nil || code != 137 {
			t.Fatalf("%s: wait %d, %v", how, code, err)
		}
		assertGroupGone(t, pgids[how])
	}
}

func TestLocalShellResize(t *testing.T) {
	l, _ := newLocal(t)
	p, err := l.Shell(context.Background(), Size{Cols: 80, Rows: 24}, []string{"/bin/sh"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	}()
	r := expect.New(p)
	send := func(s string) {
		t.Helper()
		if _, err := io.WriteString(p, s); err != nil {
			t.Fatal(err)
		}
	}
	send("stty size\n")
	r.WaitFor(t, "24 80")
	if err := p.Resize(Size{Cols: 100, Rows: 30}); err != nil {
		t.Fatal(err)
	}
	send("stty size\n")
	r.WaitFor(t, "30 100")
	send("exit 5\n")
	if code, err := p.Wait(); err != nil || code != 5 {
		t.Fatalf("wait %d, %v", code, err)
	}
	if err := p.Resize(Size{}); !errors.Is(err, ErrBadRequest) {
		t.Fatalf("resize to zero: %v", err)
	}
}

func TestExecResultJSON(t *testing.T) {
	in := ExecResult{ExitCode: 2, Stdout: "o\x1b[31mred\n", Stderr: "e", StdoutTruncated: true, TimedOut: true, Duration: 1500 * time.Millisecond}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out ExecResult
	if err := json.Unmarshal(b, &out); err != nil || out != in {
		t.Fatalf("round trip: %+v, %v (json %s)", out, err, b)
	}
}

// TestLocalEnvIsExplicit: a command sees BaseEnv, Env and the request's
// variables, and nothing else of this process's environment (an API key
// exported where Atelier runs stays out). Before, a nil BaseEnv meant the
// whole of os.Environ().
func TestLocalEnvIsExplicit(t *testing.T) {
	t.Setenv("ATELIER_TEST_OPERATOR_KEY", "sk-operator-secret")
	for _, c := range []struct {
		name string
		base []string
		want string
	}{
		{"no base", nil, "req=r cfg=c base="},
		{"a base", []string{"BASE=b"}, "req=r cfg=c base=b"},
	} {
		t.Run(c.name, func(t *testing.T) {
			l, err := NewLocal(LocalConfig{Workspace: t.TempDir(), BaseEnv: c.base, Env: []string{"CFG=c"}})
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := l.Close(); err != nil {
					t.Error(err)
				}
			}()
			res, err := l.Exec(context.Background(), ExecRequest{Command: []string{"/usr/bin/env"}, Env: []string{"REQ=r"}})
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("env: %v %+v", err, res)
			}
			if strings.Contains(res.Stdout, "sk-operator-secret") {
				t.Fatalf("the operator's environment reached the command:\n%s", res.Stdout)
			}
			vars := map[string]string{}
			for _, line := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
				k, v, _ := strings.Cut(line, "=")
				vars[k] = v
			}
			if got := "req=" + vars["REQ"] + " cfg=" + vars["CFG"] + " base=" + vars["BASE"]; got != c.want {
				t.Errorf("%s, want %s (all: %q)", got, c.want, res.Stdout)
			}
		})
	}
}
