package acp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/terminal"
)

// defaultOutputLimit caps what a terminal keeps when the agent sets no
// limit.
const defaultOutputLimit = 1 << 20

// terminals are the commands an agent started with terminal/create, each
// run by Host.Exec (in the session's execution environment, under the
// write lease, attributed to the session) on its own goroutine.
type terminals struct {
	mu   sync.Mutex
	next int
	m    map[string]*term
	// gone keeps released terminals' output until the turn ends: the
	// agent's tool update that shows it may be handled after the release.
	gone map[string]string
}

type term struct {
	cancel context.CancelFunc
	done   chan struct{}

	mu        sync.Mutex
	out       []byte
	limit     int
	truncated bool
	res       terminal.ExecResult
	err       error
}

func newTerminals() *terminals { return &terminals{m: map[string]*term{}, gone: map[string]string{}} }

// create starts the command; ctx bounds its life (the turn's).
func (ts *terminals) create(ctx context.Context, host harness.Host, p acpsdk.CreateTerminalRequest) (string, error) {
	// The output comes through OnChunk; the result's own copy is not used.
	req := terminal.ExecRequest{MaxOutput: 1}
	if len(p.Args) == 0 && strings.ContainsAny(p.Command, " \t|&;<>()$`'\"*?~\n") {
		req.ShellCommand = p.Command // a command line, as some agents send
	} else {
		req.Command = append([]string{p.Command}, p.Args...)
	}
	if p.Cwd != nil && *p.Cwd != "" {
		dir, err := relDir(host.Workspace(), *p.Cwd)
		if err != nil {
			return "", err
		}
		req.Dir = dir
	}
	for _, e := range p.Env {
		req.Env = append(req.Env, e.Name+"="+e.Value)
	}
	t := &term{done: make(chan struct{}), limit: defaultOutputLimit}
	if p.OutputByteLimit != nil && *p.OutputByteLimit >= 0 {
		t.limit = *p.OutputByteLimit
	}
	req.OnChunk = func(c terminal.Chunk) { t.add(c.Data) }
	var tctx context.Context
	tctx, t.cancel = context.WithCancel(ctx)
	ts.mu.Lock()
	ts.next++
	id := fmt.Sprintf("term-%d", ts.next)
	ts.m[id] = t
	ts.mu.Unlock()
	go func() {
		res, err := host.Exec(tctx, req)
		t.mu.Lock()
		t.res, t.err = res, err
		t.mu.Unlock()
		close(t.done)
	}()
	return id, nil
}

// relDir turns the agent's working directory (absolute, as ACP has it)
// into one relative to the workspace, refusing one outside it.
func relDir(root, dir string) (string, error) {
	if !filepath.IsAbs(dir) {
		return dir, nil
	}
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fmt.Errorf("terminal working directory %s is outside the workspace", dir)
	}
	if rel == "." {
		rel = ""
	}
	return rel, nil
}

// add keeps the output's tail within the limit, cut at a character start.
func (t *term) add(p []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.out = append(t.out, p...)
	if over := len(t.out) - t.limit; over > 0 {
		for over < len(t.out) && !utf8.RuneStart(t.out[over]) {
			over++
		}
		t.out = append(t.out[:0], t.out[over:]...)
		t.truncated = true
	}
}

func (ts *terminals) get(id string) (*term, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t := ts.m[id]
	if t == nil {
		return nil, fmt.Errorf("%w %q", ErrUnknownTerminal, id)
	}
	return t, nil
}

// status is the exit status once the command ended, nil before.
func (t *term) status() *acpsdk.TerminalExitStatus {
	select {
	case <-t.done:
	default:
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	st := &acpsdk.TerminalExitStatus{}
	switch {
	case t.err != nil:
		code := 127
		st.ExitCode = &code
	case t.res.Cancelled || t.res.TimedOut:
		sig := "SIGKILL"
		st.Signal = &sig
	default:
		code := t.res.ExitCode
		st.ExitCode = &code
	}
	return st
}

func (t *term) output() (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := string(t.out)
	if t.err != nil {
		out += t.err.Error()
	}
	return out, t.truncated
}

func (ts *terminals) output(id string) (acpsdk.TerminalOutputResponse, error) {
	t, err := ts.get(id)
	if err != nil {
		return acpsdk.TerminalOutputResponse{}, err
	}
	out, trunc := t.output()
	return acpsdk.TerminalOutputResponse{Output: out, Truncated: trunc, ExitStatus: t.status()}, nil
}

// text is a terminal's output for a tool part ("" for an unknown id).
func (ts *terminals) text(id string) string {
	t, err := ts.get(id)
	if err != nil {
		ts.mu.Lock()
		defer ts.mu.Unlock()
		return ts.gone[id]
	}
	out, _ := t.output()
	return out
}

func (ts *terminals) wait(ctx context.Context, id string) (acpsdk.WaitForTerminalExitResponse, error) {
	t, err := ts.get(id)
	if err != nil {
		return acpsdk.WaitForTerminalExitResponse{}, err
	}
	select {
	case <-t.done:
	case <-ctx.Done():
		return acpsdk.WaitForTerminalExitResponse{}, ctx.Err()
	}
	st := t.status()
	return acpsdk.WaitForTerminalExitResponse{ExitCode: st.ExitCode, Signal: st.Signal}, nil
}

func (ts *terminals) kill(id string) error {
	t, err := ts.get(id)
	if err != nil {
		return err
	}
	t.cancel()
	return nil
}

func (ts *terminals) release(id string) error {
	t, err := ts.get(id)
	if err != nil {
		return err
	}
	t.cancel()
	out, _ := t.output()
	ts.mu.Lock()
	delete(ts.m, id)
	ts.gone[id] = out
	ts.mu.Unlock()
	return nil
}

// closeAll kills and forgets every terminal (at the end of a turn).
func (ts *terminals) closeAll() {
	ts.mu.Lock()
	m := ts.m
	ts.m = map[string]*term{}
	ts.gone = map[string]string{}
	ts.mu.Unlock()
	for _, t := range m {
		t.cancel()
	}
}
