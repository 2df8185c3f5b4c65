package claude

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/terminal"
)

// scriptEnv is an execution environment whose Spawn starts a fake CLI run
// by script: the real engine drives the adapter against it.
type scriptEnv struct {
	t      *testing.T
	script func(f *fakeProc)
	wg     *sync.WaitGroup
}

func (e scriptEnv) Exec(context.Context, terminal.ExecRequest) (terminal.ExecResult, error) {
	return terminal.ExecResult{}, errors.New("no commands here")
}

func (e scriptEnv) Spawn(context.Context, []string, []string) (terminal.Process, error) {
	f := newFakeProc()
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		defer func() {
			if r := recover(); r != nil {
				e.t.Errorf("fake CLI: %v", r)
				f.Exit(1)
			}
		}()
		e.script(f)
	}()
	e.t.Cleanup(func() { f.Exit(0) })
	return f, nil
}

func (e scriptEnv) Shell(context.Context, terminal.Size, []string) (terminal.PTY, error) {
	return nil, errors.New("no shells here")
}

func (e scriptEnv) Close() error { return nil }

// canUseTool is the CLI's permission request for a Write of path.
func canUseTool(id, toolUseID, path string) string {
	in, _ := json.Marshal(map[string]string{"file_path": path, "content": "pwned\n"})
	return fmt.Sprintf(`{"type":"control_request","request_id":%q,"request":{"subtype":"can_use_tool","tool_name":"Write","input":%s,"tool_use_id":%q}}`,
		id, in, toolUseID)
}

// TestCanUseToolProtectedDespiteGrant: through the real engine, claude's
// permission request for a write to a protected path, in every form a
// hostile workspace offers (absolute, "..", symlinks, .git, .atelier), asks
// a person even though the session holds a grant for Write (given on an
// ordinary file just before), and the CLI is told deny when the person
// denies.
func TestCanUseToolProtectedDespiteGrant(t *testing.T) {
	variants := []string{".state/x", ".atelier.toml", "sub/../.state/x", ".//.atelier.toml", "link", "dir/x",
		"hooks/pre-commit", ".git/config", "gitcfg", ".atelier/workflows/x.toml", "workflow", "intostate/../x"}
	for _, v := range variants {
		t.Run(v, func(t *testing.T) {
			ws := hostileClaudeWorkspace(t)
			answers := make(chan map[string]any, 2)
			script := func(f *fakeProc) {
				f.answerInit(expect(f, "control_request/initialize"))
				f.replay(expect(f, "user"))
				sendAll(f, initLine())
				f.send(canUseTool("r1", "toolu_1", ws+"/ok.txt"))
				answers <- expect(f, "control_response")
				f.send(canUseTool("r2", "toolu_2", ws+"/"+v))
				answers <- expect(f, "control_response")
				sendAll(f, resultLine(0))
				for f.read() != nil {
				}
				f.Exit(0)
			}
			var wg sync.WaitGroup
			defer wg.Wait()
			e, err := core.Open(ws, core.Options{Agents: core.MapResolver{"claude": newTestAgent(t, Settings{})}, NoHistory: true,
				Envs: func(sessions.Session, string) (terminal.Env, error) {
					return scriptEnv{t: t, script: script, wg: &wg}, nil
				}})
			if err != nil {
				t.Fatal(err)
			}
			defer mustClose(t, e)
			_, sub := e.Subscribe()
			s, err := e.Create(core.CreateOptions{Agent: "claude", Instructions: "go", Approval: core.PolicyAsk, AutoStart: true})
			if err != nil {
				t.Fatal(err)
			}
			var asked []sessions.Interaction
			deadline := time.After(20 * time.Second)
			for ended := false; !ended; {
				select {
				case <-sub.Ready():
				case <-deadline:
					t.Fatalf("timed out; approvals %+v", asked)
				}
				for _, ev := range sub.Drain() {
					if ev.SessionID != s.ID {
						continue
					}
					if ev.Kind == core.EvInteraction && ev.Interaction.Kind == sessions.Approval && !ev.Interaction.Resolved {
						asked = append(asked, *ev.Interaction)
						d := sessions.AllowSession // the grant
						if len(asked) > 1 {
							d = sessions.Deny
						}
						if err := e.As("").Answer(s.ID, ev.Interaction.ID, core.Answer{Decision: d}); err != nil {
							t.Fatal(err)
						}
					}
					ended = ended || ev.Kind == core.EvSession && ev.Session.Status == sessions.Ended
				}
			}
			if len(asked) != 2 || asked[0].Protected || asked[0].Path != "ok.txt" || !asked[1].Protected || asked[1].Path != v {
				t.Fatalf("approvals %+v", asked)
			}
			for i, want := range []string{"allow", "deny"} {
				body, _ := json.Marshal((<-answers)["response"])
				if !strings.Contains(string(body), `"behavior":"`+want+`"`) {
					t.Errorf("answer %d: %s, want %s", i+1, body, want)
				}
			}
		})
	}
}

// hostileClaudeWorkspace lays out a workspace with every protected path
// and symlinks to them.
func hostileClaudeWorkspace(t *testing.T) string {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{".state/inner", ".git/hooks", ".atelier/workflows", "sub"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{".atelier.toml", ".git/config"} {
		if err := os.WriteFile(filepath.Join(ws, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, to := range map[string]string{"link": ".atelier.toml", "dir": ".state", "hooks": ".git/hooks",
		"gitcfg": ".git/config", "workflow": ".atelier/workflows/x.toml", "intostate": ".state/inner"} {
		if err := os.Symlink(to, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}
