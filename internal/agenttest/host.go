package agenttest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/terminal"
)

// Host is a harness.Host over a workspace folder. Spawn hands out what
// Fake makes, or runs the program for real in Env; Exec runs in Env.
// Files are confined to Dir. Every approval, spawn, file operation and
// command is recorded for the test to read. Set its fields before the
// adapter first uses it.
type Host struct {
	Dir string
	// Env runs real programs and commands; nil with Fake only.
	Env terminal.Env
	// Fake makes the process of a spawn; nil runs it in Env.
	Fake func(argv, env []string) (terminal.Process, error)
	// Decide answers approvals; nil allows every one.
	Decide func(ctx context.Context, req harness.ApprovalRequest) (harness.ApprovalAnswer, error)
	// Answer answers questions; nil takes the default.
	Answer func(ctx context.Context, text string, choices []string) (string, error)

	mu        sync.Mutex
	approvals []harness.ApprovalRequest
	spawns    [][]string
	spawnEnvs [][]string
	procs     []terminal.Process
	reads     []string
	writes    []string
	execs     []terminal.ExecRequest
}

var _ harness.Host = (*Host)(nil)

// NewHost returns a host over a new temporary workspace (its real path,
// symlinks resolved) with a local environment that hands programs only
// PATH and LANG: no variable of this machine leaks in. The environment
// closes when t ends.
func NewHost(t testing.TB) *Host {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env, err := terminal.NewLocal(terminal.LocalConfig{Workspace: dir,
		BaseEnv: []string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := env.Close(); err != nil {
			t.Error(err)
		}
	})
	return &Host{Dir: dir, Env: env}
}

// FakeOnly returns a Fake that hands out p on every spawn.
func FakeOnly(p terminal.Process) func(argv, env []string) (terminal.Process, error) {
	return func([]string, []string) (terminal.Process, error) { return p, nil }
}

func (h *Host) Approve(ctx context.Context, req harness.ApprovalRequest) (harness.ApprovalAnswer, error) {
	h.mu.Lock()
	h.approvals = append(h.approvals, req)
	h.mu.Unlock()
	if h.Decide == nil {
		return harness.ApprovalAnswer{Allowed: true}, nil
	}
	return h.Decide(ctx, req)
}

func (h *Host) Ask(ctx context.Context, text string, choices []string, def string) (string, error) {
	if h.Answer == nil {
		return def, nil
	}
	return h.Answer(ctx, text, choices)
}

func (h *Host) Workspace() string { return h.Dir }

func (h *Host) Spawn(ctx context.Context, argv, env []string) (terminal.Process, error) {
	h.mu.Lock()
	h.spawns = append(h.spawns, argv)
	h.spawnEnvs = append(h.spawnEnvs, env)
	h.mu.Unlock()
	var p terminal.Process
	var err error
	switch {
	case h.Fake != nil:
		p, err = h.Fake(argv, env)
	case h.Env != nil:
		p, err = h.Env.Spawn(ctx, argv, env)
	default:
		err = fmt.Errorf("agenttest: spawn %v: the host has neither a fake nor an environment", argv)
	}
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	h.procs = append(h.procs, p)
	h.mu.Unlock()
	return p, nil
}

func (h *Host) Exec(ctx context.Context, req terminal.ExecRequest) (terminal.ExecResult, error) {
	h.mu.Lock()
	h.execs = append(h.execs, req)
	h.mu.Unlock()
	if h.Env == nil {
		return terminal.ExecResult{}, fmt.Errorf("agenttest: exec: the host has no environment")
	}
	return h.Env.Exec(ctx, req)
}

// inside resolves path against Dir and refuses one outside it.
func (h *Host) inside(path string) (string, error) {
	p := path
	if !filepath.IsAbs(p) {
		p = filepath.Join(h.Dir, p)
	}
	p = filepath.Clean(p)
	if p != h.Dir && !strings.HasPrefix(p, h.Dir+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is outside the workspace", p)
	}
	return p, nil
}

func (h *Host) ReadFile(ctx context.Context, path string) ([]byte, error) {
	p, err := h.inside(path)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	h.reads = append(h.reads, p)
	h.mu.Unlock()
	return os.ReadFile(p)
}

func (h *Host) WriteFile(ctx context.Context, path string, data []byte) error {
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

// Approvals are the approvals asked so far, in order.
func (h *Host) Approvals() []harness.ApprovalRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]harness.ApprovalRequest(nil), h.approvals...)
}

// Spawns are the argv of every spawn so far, and SpawnEnvs their
// environments.
func (h *Host) Spawns() [][]string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([][]string(nil), h.spawns...)
}

func (h *Host) SpawnEnvs() [][]string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([][]string(nil), h.spawnEnvs...)
}

// Procs are the processes spawns handed out.
func (h *Host) Procs() []terminal.Process {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]terminal.Process(nil), h.procs...)
}

// Reads and Writes are the files read and written (their full paths),
// and Execs the commands run.
func (h *Host) Reads() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.reads...)
}

func (h *Host) Writes() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.writes...)
}

func (h *Host) Execs() []terminal.ExecRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]terminal.ExecRequest(nil), h.execs...)
}
