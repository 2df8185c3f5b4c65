package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoad feeds arbitrary bytes to Load as the user's file: it must never
// panic, and must either succeed or return an *Error whose problems all
// name their file. (A trusted workspace file goes through the same parser
// and checks; trusting one per input would make every run fsync.)
func FuzzLoad(f *testing.F) {
	f.Add([]byte(Example))
	f.Add([]byte("[agents.x]\nharness = \"acp\"\n"))
	f.Add([]byte("[[agents.a.rules]]\ntool = \"exec\"\n[[agents.a.rules]]\naction = 1\n"))
	f.Add([]byte("a = { b = [ { c = \"\"\"\n\"\"\" } ] }\n"))
	f.Add([]byte("[ui]\ntheme = \"~/x\"\n[docker]\nmemory = \"9999999999999TiB\"\n"))
	f.Add([]byte("\xff\xfe[\"\\u0000\"]\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		user := filepath.Join(dir, "config.toml")
		if err := os.WriteFile(user, data, 0o600); err != nil {
			t.Fatal(err)
		}
		opts := LoadOptions{UserConfigPath: user, Env: func(string) string { return "" }}
		cfg, err := Load(opts)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) || len(ce.Problems) == 0 {
				t.Fatalf("error %T %v, want *Error with problems", err, err)
			}
			for _, p := range ce.Problems {
				if p.File == "" || p.Msg == "" {
					t.Errorf("problem without file or message: %+v", p)
				}
			}
			return
		}
		nLines := strings.Count(string(data), "\n") + 1
		for _, e := range cfg.Effective() {
			if e.Line > nLines {
				t.Errorf("%s at line %d of a %d-line file", e.Key, e.Line, nLines)
			}
		}
		for _, a := range cfg.Agents() {
			_, _ = cfg.APIKey(a)
			_, _ = cfg.AgentEnv(a)
		}
	})
}

// FuzzScanPositions runs the position scanner on anything: it must end and
// never panic, even on text the TOML parser would refuse.
func FuzzScanPositions(f *testing.F) {
	f.Add(Example)
	f.Add(`[a."b`)
	f.Add("x = '''\n")
	f.Add("[[a]]\n[[a.b]]\n[[a]]\n[a.b.c]\n")
	f.Fuzz(func(t *testing.T, src string) {
		for _, at := range scanPositions(src) {
			if at.Line < 1 || at.Col < 1 {
				t.Errorf("position %+v", at)
			}
		}
	})
}
