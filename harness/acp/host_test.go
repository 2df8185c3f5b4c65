package acp

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/terminal"
)

// testHost is a harness.Host over a temp workspace with a real local
// environment. File access is confined to the workspace, and every
// approval, file operation and command is recorded for the test.
type testHost struct {
	dir    string
	env    terminal.Env
	fake   func() terminal.Process
	decide func(ctx context.Context, req harness.ApprovalRequest) (harness.ApprovalAnswer, error)

	mu        sync.Mutex
	approvals []harness.ApprovalRequest
	reads     []string
	writes    []string
	execs     []terminal.ExecRequest
	procs     []terminal.Process
}

func newTestHost(t *testing.T) *testHost {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// Only what an agent needs: no variable of this machine's leaks in.
	env, err := terminal.NewLocal(terminal.LocalConfig{Workspace: dir,
		BaseEnv: []string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mustClose(t, env) })
	return &testHost{dir: dir, env: env}
}

func (h *testHost) Approve(ctx context.Context, req harness.ApprovalRequest) (harness.ApprovalAnswer, error) {
	h.mu.Lock()
	h.approvals = append(h.approvals, req)
	decide := h.decide
	h.mu.Unlock()
	if decide == nil {
		return harness.ApprovalAnswer{Allowed: true}, nil
	}
	return decide(ctx, req)
}

func (h *testHost) Ask(ctx context.Context, text string, choices []string, def string) (string, error) {
	return def, nil
}

func (h *testHost) Workspace() string { return h.dir }

func (h *testHost) Spawn(ctx context.Context, argv, env []string) (terminal.Process, error) {
	var p terminal.Process
	if h.fake != nil {
		p = h.fake()
	} else {
		var err error
		if p, err = h.env.Spawn(ctx, argv, env); err != nil {
			return nil, err
		}
	}
	h.mu.Lock()
	h.procs = append(h.procs, p)
	h.mu.Unlock()
	return p, nil
}

func (h *testHost) Exec(ctx context.Context, req terminal.ExecRequest) (terminal.ExecResult, error) {
	h.mu.Lock()
	h.execs = append(h.execs, req)
	h.mu.Unlock()
	return h.env.Exec(ctx, req)
}

func (h *testHost) inside(p string) (string, error) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(h.dir, p)
	}
	p = filepath.Clean(p)
	if p != h.dir && !strings.HasPrefix(p, h.dir+"/") {
		return "", fmt.Errorf("%s is outside the workspace", p)
	}
	return p, nil
}

func (h *testHost) ReadFile(ctx context.Context, path string) ([]byte, error) {
	p, err := h.inside(path)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	h.reads = append(h.reads, p)
	h.mu.Unlock()
	return os.ReadFile(p)
}

func (h *testHost) WriteFile(ctx context.Context, path string, data []byte) error {
	p, err := h.inside(path)
	if err != nil {
		return err
	}
	h.mu.Lock()
	h.writes = append(h.writes, p)
	h.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o644)
}

func (h *testHost) snapshot() (approvals []harness.ApprovalRequest, reads, writes []string, execs []terminal.ExecRequest) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append(approvals, h.approvals...), append(reads, h.reads...), append(writes, h.writes...), append(execs, h.execs...)
}

// pipeProc is a terminal.Process whose other end runs in the test.
type pipeProc struct {
	inR, outR, errR *io.PipeReader
	inW, outW, errW *io.PipeWriter

	once sync.Once
	done chan struct{}
	code int
}

func newPipeProc() *pipeProc {
	p := &pipeProc{done: make(chan struct{})}
	p.inR, p.inW = io.Pipe()
	p.outR, p.outW = io.Pipe()
	p.errR, p.errW = io.Pipe()
	return p
}

func (p *pipeProc) Stdin() io.WriteCloser { return p.inW }
func (p *pipeProc) Stdout() io.Reader     { return p.outR }
func (p *pipeProc) Stderr() io.Reader     { return p.errR }
func (p *pipeProc) Wait() (int, error)    { <-p.done; return p.code, nil }
func (p *pipeProc) Kill() error           { p.exit(137); return nil }

func (p *pipeProc) exit(code int) {
	p.once.Do(func() {
		p.code = code
		_ = p.outW.Close() // a pipe\'s Close never fails
		_ = p.errW.Close() // a pipe\'s Close never fails
		p.inR.CloseWithError(io.ErrClosedPipe)
		close(p.done)
	})
}

func allow(context.Context, harness.ApprovalRequest) (harness.ApprovalAnswer, error) {
	return harness.ApprovalAnswer{Allowed: true}, nil
}

func deny(context.Context, harness.ApprovalRequest) (harness.ApprovalAnswer, error) {
	return harness.ApprovalAnswer{Message: "not that file"}, nil
}

// closeSession ends a session's process; an error fails the test.
func closeSession(t testing.TB, a *Agent, id string) {
	t.Helper()
	if err := a.CloseSession(id); err != nil {
		t.Errorf("close session %s: %v", id, err)
	}
}

// mustClose closes c (an environment, an engine); an error fails the test.
func mustClose(t testing.TB, c io.Closer) {
	t.Helper()
	if err := c.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
}

// put writes b as the fake CLI would. A failure means the adapter stopped
// reading, which each test checks through what the adapter did instead.
func put(w io.Writer, b []byte) { _, _ = w.Write(b) }
