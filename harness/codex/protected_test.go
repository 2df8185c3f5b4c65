package codex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/internal/agenttest"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/terminal"
)

// cliEnv is an execution environment whose Spawn starts a fake app-server:
// it answers the handshake and turn/start, then runs then with a way to
// send a line and to wait for the adapter's answer to a request of its own.
type cliEnv struct {
	t    *testing.T
	then func(send func(string), answer func(id int) string)
}

func (e cliEnv) Exec(context.Context, terminal.ExecRequest) (terminal.ExecResult, error) {
	return terminal.ExecResult{}, errors.New("no commands here")
}

func (e cliEnv) Shell(context.Context, terminal.Size, []string) (terminal.PTY, error) {
	return nil, errors.New("no shells here")
}

func (e cliEnv) Close() error { return nil }

func (e cliEnv) Spawn(context.Context, []string, []string) (terminal.Process, error) {
	f := agenttest.NewProc()
	e.t.Cleanup(func() { f.Exit(0) })
	go func() {
		dec := json.NewDecoder(f.InR)
		send := func(line string) { put(f.OutW, []byte(line+"\n")) }
		answer := func(id int) string {
			for {
				var m message
				if err := dec.Decode(&m); err != nil {
					return "no answer: " + err.Error()
				}
				if m.Method == "" && string(m.ID) == fmt.Sprint(id) {
					var a approvalResponse
					_ = json.Unmarshal(m.Result, &a)
					return a.Decision
				}
			}
		}
		for {
			var m message
			if err := dec.Decode(&m); err != nil {
				return
			}
			var res string
			switch m.Method {
			case "initialize":
				res = `{"userAgent":"fake"}`
			case "thread/start":
				res = `{"thread":{"id":"th1"}}`
			case "turn/start":
				res = `{"turn":{"id":"tu1","status":"inProgress"}}`
			default:
				continue
			}
			b, _ := json.Marshal(message{ID: m.ID, Result: json.RawMessage(res)})
			put(f.OutW, append(b, '\n'))
			if m.Method == "turn/start" {
				e.then(send, answer)
				send(`{"method":"turn/completed","params":{"threadId":"th1","turn":{"id":"tu1","status":"completed"}}}`)
				_, _ = io.Copy(io.Discard, f.InR) // until the adapter closes stdin
				f.Exit(0)
				return
			}
		}
	}()
	return f, nil
}

// fileChangeItem is Codex's item/started of a file change.
func fileChangeItem(id string, changes ...map[string]any) string {
	b, _ := json.Marshal(map[string]any{"method": "item/started", "params": map[string]any{"threadId": "th1", "turnId": "tu1",
		"item": map[string]any{"type": "fileChange", "id": id, "changes": changes, "status": "inProgress"}}})
	return string(b)
}

func change(path, kind, move string) map[string]any {
	k := map[string]any{"type": kind}
	if move != "" {
		k["move_path"] = move
	}
	return map[string]any{"path": path, "kind": k, "diff": "pwned\n"}
}

func fileApproval(rpcID int, item string) string {
	return fmt.Sprintf(`{"method":"item/fileChange/requestApproval","id":%d,"params":{"threadId":"th1","turnId":"tu1","itemId":%q,"reason":null,"grantRoot":null}}`, rpcID, item)
}

// TestFileChangeProtectedDespiteGrant: through the real engine, a Codex
// patch that touches a protected path (however named, as a second file of
// the patch, or as a move's destination) asks a person although the
// session holds a grant for apply_patch (given on an ordinary patch just
// before); denied, Codex is told decline.
func TestFileChangeProtectedDespiteGrant(t *testing.T) {
	cases := []struct {
		name      string
		changes   func(ws string) []map[string]any
		protected string // the path the protected approval names
	}{
		{"state file second in the patch", func(ws string) []map[string]any {
			return []map[string]any{change(ws+"/plain.txt", "update", ""), change(ws+"/.state/x", "add", "")}
		}, "/.state/x"},
		{"config through a symlink", func(ws string) []map[string]any {
			return []map[string]any{change(ws+"/link", "update", "")}
		}, "/link"},
		{"dot-dot into state", func(ws string) []map[string]any {
			return []map[string]any{change(ws+"/sub/../.state/x", "add", "")}
		}, "/sub/../.state/x"},
		{"dot-slash config", func(ws string) []map[string]any {
			return []map[string]any{change(ws+"/.//.atelier.toml", "update", "")}
		}, "/.//.atelier.toml"},
		{"move into git hooks", func(ws string) []map[string]any {
			return []map[string]any{change(ws+"/plain.txt", "update", ws+"/.git/hooks/pre-commit")}
		}, "/.git/hooks/pre-commit"},
		{"git config through a symlink", func(ws string) []map[string]any {
			return []map[string]any{change(ws+"/gitcfg", "update", "")}
		}, "/gitcfg"},
		{"workflow through a dangling symlink", func(ws string) []map[string]any {
			return []map[string]any{change(ws+"/workflow", "add", "")}
		}, "/workflow"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ws := hostileCodexWorkspace(t)
			decisions := make(chan string, 2)
			then := func(send func(string), answer func(int) string) {
				send(fileChangeItem("c1", change(ws+"/ok.txt", "add", "")))
				send(fileApproval(100, "c1"))
				decisions <- answer(100)
				send(fileChangeItem("c2", c.changes(ws)...))
				send(fileApproval(101, "c2"))
				decisions <- answer(101)
			}
			e, err := core.Open(ws, core.Options{Agents: core.MapResolver{"codex": New(Settings{})}, NoHistory: true,
				Envs: func(sessions.Session, string) (terminal.Env, error) { return cliEnv{t: t, then: then}, nil }})
			if err != nil {
				t.Fatal(err)
			}
			defer mustClose(t, e)
			_, sub := e.Subscribe()
			s, err := e.Create(core.CreateOptions{Agent: "codex", Instructions: "go", Approval: core.PolicyAsk, AutoStart: true})
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
			if len(asked) != 2 || asked[0].Protected || asked[1].Tool != ToolPatch || !asked[1].Protected || asked[1].Path != ws+c.protected {
				t.Fatalf("approvals %+v", asked)
			}
			if d1, d2 := <-decisions, <-decisions; d1 != "accept" || d2 != "decline" {
				t.Errorf("decisions %q %q", d1, d2)
			}
		})
	}
}

// hostileCodexWorkspace lays out a workspace with every protected path
// and symlinks to them.
func hostileCodexWorkspace(t *testing.T) string {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{".state", ".git/hooks", ".atelier/workflows", "sub"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{".atelier.toml", ".git/config", "plain.txt"} {
		if err := os.WriteFile(filepath.Join(ws, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, to := range map[string]string{"link": ".atelier.toml", "gitcfg": ".git/config",
		"workflow": ".atelier/workflows/x.toml"} {
		if err := os.Symlink(to, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}
