package codex

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/modeltest"
	"github.com/atelier-studio/atelier/internal/netns"
	"github.com/atelier-studio/atelier/internal/testreq"
	"github.com/atelier-studio/atelier/terminal"
)

// realRig is the codex CLI from PATH against a fake Responses server, in a
// temp workspace with a throwaway HOME and CODEX_HOME.
type realRig struct {
	t   *testing.T
	ws  string
	srv *fakeResponses
	h   *testHost
	s   Settings
}

func newRealRig(t *testing.T, replies ...[]byte) *realRig {
	t.Helper()
	bin := testreq.Binary(t, "codex", "codex")
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	home := filepath.Join(root, "home")
	for _, d := range []string{ws, filepath.Join(home, ".codex")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env, err := terminal.NewLocal(terminal.LocalConfig{Workspace: ws,
		BaseEnv: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LANG=C.UTF-8"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close() })
	srv := newFakeResponses(t, replies...)
	return &realRig{t: t, ws: ws, srv: srv, h: &testHost{dir: ws, env: env},
		s: Settings{Command: []string{bin}, Model: "gpt-5.5", BaseURL: srv.URL + "/v1", APIKey: "sk-fake",
			Home: filepath.Join(home, ".codex"), Env: []string{"RUST_LOG=warn"}}}
}

func (r *realRig) turn(a *Agent, ctx context.Context, input, resume string) (harness.TurnResult, *modeltest.Recorder, error) {
	rec := &modeltest.Recorder{}
	res, err := a.Turn(ctx, harness.TurnRequest{SessionID: "s1", Turn: 1, Input: input, Resume: resume}, rec, r.h)
	return res, rec, err
}

func TestRealExploratory(t *testing.T) {
	if !netns.Enter(t) {
		return
	}
	r := newRealRig(t, execCall("call_1", "touch created_by_codex.txt"), sseText("msg_1", "Created it."))
	a := New(r.s)
	defer a.CloseSession("s1")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, rec, err := r.turn(a, ctx, "create the marker", "")
	t.Logf("res %+v err %v", res, err)
	for _, e := range rec.Events() {
		t.Logf("%+v", e)
	}
	t.Logf("approvals %+v", r.h.Approvals())
	for i, b := range r.srv.Bodies() {
		t.Logf("body %d: %.3000s", i, b[max(0, len(b)-3000):])
	}
	t.Logf("other %v", r.srv.other)
	_, err = os.Stat(filepath.Join(r.ws, "created_by_codex.txt"))
	t.Logf("stat %v", err)
}
