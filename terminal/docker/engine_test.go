package docker

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/atelier-studio/atelier/terminal"
)

func TestCleanupSparesLiveSessions(t *testing.T) {
	eng := needEngine(t)
	ctx := context.Background()
	live := newEnv(t, eng, nil)
	ws := live.Config().Workspace
	stale := newEnv(t, eng, func(c *Config) { c.Workspace = ws })
	other := newEnv(t, eng, nil) // another workspace: never this cleanup's business
	for _, e := range []*Env{live, stale, other} {
		if _, err := e.Exec(ctx, terminal.ExecRequest{Command: []string{"true"}}); err != nil {
			t.Fatal(err)
		}
	}
	var asked []string
	removed, err := eng.Cleanup(ctx, ws, func(id string) bool {
		asked = append(asked, id)
		return id == live.Config().SessionID
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(removed, []string{stale.ContainerID()}) {
		t.Fatalf("removed %v, want only the stale session's %s", removed, stale.ContainerID())
	}
	if slices.Contains(asked, other.Config().SessionID) {
		t.Fatal("cleanup asked about another workspace's session")
	}
	for _, e := range []*Env{live, other} {
		if _, running := containerState(t, eng, e.ContainerID()); !running {
			t.Fatalf("cleanup stopped %s's container", e.Config().SessionID)
		}
	}
	if exists, _ := containerState(t, eng, stale.ContainerID()); exists {
		t.Fatal("the stale container is still there")
	}
}

func TestLazyAllocation(t *testing.T) {
	eng := needEngine(t)
	env := newEnv(t, eng, nil)
	if err := env.Close(); err != nil {
		t.Fatal(err)
	}
	list, err := eng.cli.ContainerList(context.Background(), client.ContainerListOptions{
		All: true, Filters: make(client.Filters).Add("label", LabelSession+"="+env.Config().SessionID),
	})
	if err != nil || len(list.Items) != 0 {
		t.Fatalf("a session that ran nothing has containers: %v, %v", list.Items, err)
	}
}

func TestMissingImage(t *testing.T) {
	eng := needEngine(t)
	env := newEnv(t, eng, func(c *Config) { c.Image = "atelier-no-such-image:never" })
	_, err := env.Exec(context.Background(), terminal.ExecRequest{Command: []string{"true"}})
	if !errors.Is(err, ErrImageMissing) || !strings.Contains(err.Error(), "atelier-no-such-image:never") {
		t.Fatalf("got %v, want ErrImageMissing naming the image", err)
	}
}

func TestWorkspaceNotVisible(t *testing.T) {
	eng := needEngine(t)
	env := newEnv(t, eng, nil)
	if _, err := env.Exec(context.Background(), terminal.ExecRequest{Command: []string{"true"}}); err != nil {
		t.Fatal(err)
	}
	// What a remote engine does: it mounts its own directory at the path,
	// which is not the workspace this host sees.
	env.cfg.Workspace = t.TempDir()
	err := env.checkMount(context.Background(), env.ContainerID())
	if !errors.Is(err, ErrWorkspaceNotVisible) {
		t.Fatalf("got %v, want ErrWorkspaceNotVisible", err)
	}
	if left, _ := filepath.Glob(filepath.Join(env.cfg.Workspace, ".atelier-mount-check-*")); len(left) != 0 {
		t.Fatalf("marker left behind: %v", left)
	}
}

func TestNoEngine(t *testing.T) {
	eng, err := NewEngine(EngineOptions{Host: "unix://" + filepath.Join(t.TempDir(), "none.sock")})
	if err != nil {
		t.Fatal(err)
	}
	env, err := eng.NewEnv(Config{SessionID: "s1", Workspace: t.TempDir(), Image: "x"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = env.Exec(context.Background(), terminal.ExecRequest{Command: []string{"true"}})
	if !errors.Is(err, ErrNoEngine) || !strings.Contains(err.Error(), "none.sock") {
		t.Fatalf("got %v, want ErrNoEngine naming the host", err)
	}
	if err := eng.Ping(context.Background()); !errors.Is(err, ErrNoEngine) {
		t.Fatalf("ping: %v", err)
	}
}

func TestDockerHostOverTCP(t *testing.T) {
	needEngine(t)
	socket, ok := strings.CutPrefix(os.Getenv("DOCKER_HOST"), "unix://")
	if !ok {
		t.Skip("DOCKER_HOST is not a unix socket to forward")
	}
	proxy := startTCPProxy(t, socket)
	t.Setenv("DOCKER_HOST", "tcp://"+proxy.addr)
	eng, err := NewEngine(EngineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer closeEngine(t, eng)
	if eng.Host() != "tcp://"+proxy.addr {
		t.Fatalf("host %q", eng.Host())
	}
	env := newEnv(t, eng, nil)
	res, err := env.Exec(context.Background(), terminal.ExecRequest{ShellCommand: "echo over tcp"})
	if err != nil || res.Stdout != "over tcp\n" {
		t.Fatalf("got %+v, %v", res, err)
	}
	if proxy.conns.Load() == 0 {
		t.Fatal("nothing went through the TCP address")
	}
}

// writeContext writes a docker CLI config dir whose current context is
// name, pointing at host.
func writeContext(t *testing.T, name, host string) string {
	t.Helper()
	dir := t.TempDir()
	id := sha256Hex(name)
	meta := filepath.Join(dir, "contexts", "meta", id)
	if err := os.MkdirAll(meta, 0o755); err != nil {
		t.Fatal(err)
	}
	for path, data := range map[string]string{
		filepath.Join(dir, "config.json"): `{"auths":{},"currentContext":"` + name + `"}`,
		filepath.Join(meta, "meta.json"):  `{"Name":"` + name + `","Metadata":{},"Endpoints":{"docker":{"Host":"` + host + `","SkipTLSVerify":false}}}`,
	} {
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestResolveEndpoint(t *testing.T) {
	ctxDir := writeContext(t, "remote", "tcp://10.1.2.3:2375")
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		name    string
		opts    EngineOptions
		want    string
		wantErr error
	}{
		{"DOCKER_HOST wins", EngineOptions{Getenv: env(map[string]string{"DOCKER_HOST": "tcp://1.2.3.4:2375", "DOCKER_CONFIG": ctxDir})}, "tcp://1.2.3.4:2375", nil},
		{"current context", EngineOptions{Getenv: env(map[string]string{"DOCKER_CONFIG": ctxDir})}, "tcp://10.1.2.3:2375", nil},
		{"DOCKER_CONTEXT default", EngineOptions{Getenv: env(map[string]string{"DOCKER_CONFIG": ctxDir, "DOCKER_CONTEXT": "default"})}, client.DefaultDockerHost, nil},
		{"no config", EngineOptions{Getenv: env(map[string]string{"HOME": t.TempDir()})}, client.DefaultDockerHost, nil},
		{"explicit host", EngineOptions{Host: "unix:///x.sock", Getenv: env(map[string]string{"DOCKER_HOST": "tcp://1.2.3.4:1"})}, "unix:///x.sock", nil},
		{"ssh refused", EngineOptions{Getenv: env(map[string]string{"DOCKER_HOST": "ssh://me@box"})}, "", ErrUnsupportedHost},
		{"unknown context", EngineOptions{Getenv: env(map[string]string{"DOCKER_CONFIG": ctxDir, "DOCKER_CONTEXT": "nope"})}, "", os.ErrNotExist},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ep, err := resolveEndpoint(tc.opts)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("got %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil || ep.Host != tc.want {
				t.Fatalf("got %q, %v; want %q", ep.Host, err, tc.want)
			}
		})
	}
}

func TestDockerContextReachesEngine(t *testing.T) {
	needEngine(t)
	dir := writeContext(t, "atelier-test", os.Getenv("DOCKER_HOST"))
	eng, err := NewEngine(EngineOptions{Getenv: func(k string) string {
		if k == "DOCKER_CONFIG" {
			return dir
		}
		return ""
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer closeEngine(t, eng)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := eng.Ping(ctx); err != nil {
		t.Fatalf("the context's engine: %v", err)
	}
}

func TestConfigChecks(t *testing.T) {
	eng, err := NewEngine(EngineOptions{Host: "unix:///nonexistent.sock"})
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	for name, cfg := range map[string]Config{
		"no session":        {Workspace: ws, Image: "i"},
		"bad session id":    {SessionID: "../x", Workspace: ws, Image: "i"},
		"no image":          {SessionID: "s", Workspace: ws},
		"relative ws":       {SessionID: "s", Workspace: "ws", Image: "i"},
		"missing ws":        {SessionID: "s", Workspace: filepath.Join(ws, "nope"), Image: "i"},
		"relative mount":    {SessionID: "s", Workspace: ws, Image: "i", MountPath: "w"},
		"bad user":          {SessionID: "s", Workspace: ws, Image: "i", User: "root"},
		"bad env":           {SessionID: "s", Workspace: ws, Image: "i", Env: []string{"X"}},
		"negative resource": {SessionID: "s", Workspace: ws, Image: "i", MemoryBytes: -1},
		"relative home":     {SessionID: "s", Workspace: ws, Image: "i", Home: "ws"},
		"relative source":   {SessionID: "s", Workspace: ws, Image: "i", Mounts: []Mount{{Source: "git"}}},
		"missing source":    {SessionID: "s", Workspace: ws, Image: "i", Mounts: []Mount{{Source: filepath.Join(ws, "nope")}}},
		"relative target":   {SessionID: "s", Workspace: ws, Image: "i", Mounts: []Mount{{Source: ws, Target: "x"}}},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := eng.NewEnv(cfg); !errors.Is(err, terminal.ErrBadRequest) {
				t.Fatalf("got %v, want ErrBadRequest", err)
			}
		})
	}
}
