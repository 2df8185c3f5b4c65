package docker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/atelier-studio/atelier/internal/testreq"
)

// testImage is built by .ci/setup.d/docker.sh from busybox-static.
func testImage() string {
	if img := os.Getenv("ATELIER_TEST_DOCKER_IMAGE"); img != "" {
		return img
	}
	return "atelier-test-busybox:latest"
}

// needEngine returns an Engine for the engine the environment names, or
// skips (fails where docker is required) when there is none or it lacks the
// test image.
func needEngine(t testing.TB) *Engine {
	t.Helper()
	eng, err := NewEngine(EngineOptions{})
	testreq.Need(t, "docker", err == nil, "no Docker engine configured: "+errString(err))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = eng.Ping(ctx)
	testreq.Need(t, "docker", err == nil, "no Docker engine answers (run .ci/setup.d/docker.sh): "+errString(err))
	err = eng.checkImage(ctx, testImage())
	testreq.Need(t, "docker", err == nil, "the test image is missing (run .ci/setup.d/docker.sh): "+errString(err))
	t.Cleanup(func() { closeEngine(t, eng) })
	return eng
}

// closeEngine closes eng at the end of a test, failing it if Close fails.
func closeEngine(t testing.TB, eng *Engine) {
	t.Helper()
	if err := eng.Close(); err != nil {
		t.Error(err)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// newEnv makes an environment for a fresh session on a fresh workspace
// owned by uid 12345, the user its container runs as.
func newEnv(t testing.TB, eng *Engine, tweak func(*Config)) *Env {
	t.Helper()
	ws := t.TempDir()
	if err := os.Chown(ws, 12345, 12345); err != nil && os.Getuid() == 0 {
		t.Fatal(err)
	}
	cfg := Config{
		SessionID: "test-" + randomHex(4),
		Workspace: ws,
		Image:     testImage(),
		User:      "12345:12345",
	}
	if os.Getuid() != 0 {
		cfg.User = "" // the host user, who owns the workspace
	}
	if tweak != nil {
		tweak(&cfg)
	}
	env, err := eng.NewEnv(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := env.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return env
}

// containerState says whether the container exists and runs.
func containerState(t testing.TB, eng *Engine, id string) (exists, running bool) {
	t.Helper()
	res, err := eng.cli.ContainerInspect(context.Background(), id, client.ContainerInspectOptions{})
	if err != nil {
		if strings.Contains(strings.ToLower(err.Error()), "no such container") {
			return false, false
		}
		t.Fatal(err)
	}
	return true, res.Container.State.Running
}

// tcpProxy forwards a loopback TCP port to the engine's unix socket and
// counts the connections it carried.
type tcpProxy struct {
	addr  string
	conns atomic.Int64
}

func startTCPProxy(t *testing.T, socket string) *tcpProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &tcpProxy{addr: ln.Addr().String()}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		if err := ln.Close(); err != nil {
			t.Error(err)
		}
		wg.Wait()
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.conns.Add(1)
			wg.Add(1)
			go func() {
				// A proxied connection ends when either side hangs up:
				// the copy and close errors below only say which did,
				// and the test checks what went through, not how it ended.
				defer wg.Done()
				defer func() { _ = c.Close() }()
				u, err := net.Dial("unix", socket)
				if err != nil {
					return
				}
				defer func() { _ = u.Close() }()
				done := make(chan struct{})
				go func() {
					_, _ = io.Copy(u, c)
					_ = u.(*net.UnixConn).CloseWrite()
					close(done)
				}()
				_, _ = io.Copy(c, u)
				_ = c.(*net.TCPConn).CloseWrite()
				<-done
			}()
		}
	}()
	return p
}

func isGone(err error) bool { return errors.Is(err, ErrContainerGone) }

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
