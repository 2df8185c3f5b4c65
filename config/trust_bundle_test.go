package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeAtelier writes a file under the workspace's .atelier/.
func (f *fixture) writeAtelier(rel, body string) {
	f.t.Helper()
	p := filepath.Join(f.ws, WorkspaceDirName, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func TestTrustCoversAtelierDir(t *testing.T) {
	f := newFixture(t)
	f.writeWorkspace(wsAgent)
	s := f.store()
	f.trust()
	f.writeAtelier("workflows/build.toml", "key = \"id\"\n")
	if st, _ := s.State(f.ws); st != TrustChanged {
		t.Fatalf("a workflow added after trust: state %s, want changed", st)
	}
	if _, ok := f.load().Agent("ws"); ok {
		t.Error("the configuration is obeyed while a new workflow is untrusted")
	}
	rev, err := s.Review(f.ws)
	if err != nil {
		t.Fatal(err)
	}
	want := wsAgent + "# ==== .atelier/workflows/build.toml ====\nkey = \"id\"\n"
	if string(rev.Content) != want {
		t.Errorf("review shows\n%s\nwant\n%s", rev.Content, want)
	}
	if strings.Join(rev.Covers, " ") != ".atelier.toml .atelier/workflows/build.toml" {
		t.Errorf("review covers %q", rev.Covers)
	}
	if err := s.TrustDigest(f.ws, rev.Digest); err != nil {
		t.Fatal(err)
	}
	if st, _ := s.State(f.ws); st != TrustTrusted {
		t.Errorf("after trust: %s", st)
	}
	f.writeAtelier("workflows/build.toml", "key = \"other\"\n")
	if st, _ := s.State(f.ws); st != TrustChanged {
		t.Errorf("a workflow changed after trust: state %s, want changed", st)
	}
}

func TestTrustAtelierDirWithoutConfig(t *testing.T) {
	f := newFixture(t)
	s := f.store()
	if st, _ := s.State(f.ws); st != TrustNone {
		t.Fatalf("empty workspace: %s", st)
	}
	f.writeAtelier("workflows/a.toml", "x = 1\n")
	if st, _ := s.State(f.ws); st != TrustUntrusted {
		t.Fatalf("a workflow alone: %s, want untrusted", st)
	}
	if err := s.Trust(f.ws); err != nil {
		t.Fatal(err)
	}
	if st, _ := s.State(f.ws); st != TrustTrusted {
		t.Errorf("after trust: %s", st)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(f.ws, WorkspaceDirName, "workflows", "b.toml")); err != nil {
		t.Fatal(err)
	}
	if st, _ := s.State(f.ws); st != TrustChanged {
		t.Errorf("a link added: %s, want changed", st)
	}
}
