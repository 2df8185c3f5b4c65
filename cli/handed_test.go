package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/atelier-studio/atelier/internal/fakeanthropic"
	"github.com/atelier-studio/atelier/internal/poll"
	"github.com/atelier-studio/atelier/internal/redact"
)

// TestHostTakesTheClientsKey: a host started from a shell without the
// agent's key runs a session with the key exported where `atelier run` is
// typed, as an in-process run would: the run hands it over with its create.
// The host keeps it for that session only (a run from a shell without it
// fails on the API's 401, so nothing went into the host's environment)
// and redacts it like its own secrets.
func TestHostTakesTheClientsKey(t *testing.T) {
	t.Parallel()
	const key, key2 = "sk-ant-handed-over-4e1f7", "sk-ant-rotated-9c2d0b"
	var current atomic.Value // the key the API takes, which its answers repeat
	current.Store(key)
	api := fakeanthropic.New(t, func(fakeanthropic.Call) []fakeanthropic.Block {
		return []fakeanthropic.Block{{Text: "the model was called with " + current.Load().(string)}}
	})
	api.RequireKey(key)
	b := newServeSandbox(t)
	var env []string
	for _, kv := range b.env {
		if !strings.HasPrefix(kv, "ANTHROPIC_") {
			env = append(env, kv)
		}
	}
	b.env = env
	b.configure(`default_agent = "api"

[agents.api]
harness = "anthropic"
model = "claude-test"
base_url = "` + api.URL + `"
api_key_env = "ATELIER_TEST_HANDED"
`)
	st := b.detach() // from a shell without the key

	withKey := append(append([]string(nil), env...), "ATELIER_TEST_HANDED="+key)
	b.env = withKey
	r := b.run("run", "say hello")
	if r.code != ExitOK || !strings.Contains(r.out, "the model was called with "+redact.Marker("ATELIER_TEST_HANDED")) {
		t.Fatalf("run with the key exported: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.out, r.err)
	}
	if pid := b.hostPID(); pid != st.PID {
		t.Fatalf("the run did not go through the host %d (now %d)", st.PID, pid)
	}

	// A send hands over the sender's variables too: the key changed, and
	// the session's next turn uses the one exported where send is typed.
	id := strings.TrimSpace(b.run("sessions", "create", "--mode", "continuous", "first").want(t, ExitOK).out)
	poll.Until(t, "the first turn to end", func() bool { return b.record(id).Status == "WAITING" })
	api.RequireKey(key2)
	current.Store(key2)
	b.env = append(append([]string(nil), env...), "ATELIER_TEST_HANDED="+key2)
	if r := b.run("sessions", "send", "--wait", id, "second"); r.code != ExitOK {
		t.Fatalf("send with the new key: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.out, r.err)
	}
	api.RequireKey(key)
	current.Store(key)

	b.env = env
	r = b.run("run", "say hello again")
	if r.code == ExitOK || !strings.Contains(r.out+r.err, "401") {
		t.Fatalf("run without the key: exit %d, want the API's 401\nstdout:\n%s\nstderr:\n%s", r.code, r.out, r.err)
	}
	b.env = withKey // the cleanup's serve --stop
	// Nothing the host wrote holds the key: transcripts, logs, engine.log.
	err := filepath.WalkDir(filepath.Join(b.ws, ".state"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(data), key) || strings.Contains(string(data), key2) {
			t.Errorf("%s holds a handed key", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
