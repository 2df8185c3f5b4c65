package config

import (
	"strings"
	"testing"
)

func TestExampleLoads(t *testing.T) {
	for _, where := range []string{"user", "workspace"} {
		t.Run(where, func(t *testing.T) {
			f := newFixture(t)
			if where == "user" {
				f.writeUser(Example)
			} else {
				f.writeWorkspace(Example)
				f.trust()
			}
			cfg := f.load()
			if cfg.DefaultAgent() != "local" || len(cfg.Agents()) != 5 {
				t.Errorf("example: default %q, %d agents", cfg.DefaultAgent(), len(cfg.Agents()))
			}
		})
	}
}

// TestExampleDocumentsEveryKey keeps Example complete as the schema grows.
func TestExampleDocumentsEveryKey(t *testing.T) {
	set, probs := parseFile("example.toml", []byte(Example), "")
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	has := func(suffix string) bool {
		for k := range set {
			if strings.HasSuffix(k, suffix) {
				return true
			}
		}
		return false
	}
	var want []string
	for name := range agentFields {
		want = append(want, "."+name)
	}
	for section, fields := range sectionFields {
		for name := range fields {
			want = append(want, section+"."+name)
		}
	}
	want = append(want, "default_agent", "keys.quit")
	for _, w := range want {
		if w == ".env" {
			w = ".env.GOFLAGS"
		}
		if !has(w) {
			t.Errorf("Example does not show %s", strings.TrimPrefix(w, "."))
		}
	}
	for _, h := range Harnesses() {
		if !strings.Contains(Example, string(h)) {
			t.Errorf("Example does not mention harness %s", h)
		}
	}
	for _, field := range ruleFields {
		if !strings.Contains(Example, "\n"+field+" = ") {
			t.Errorf("Example has no rule %s", field)
		}
	}
}

func BenchmarkLoadExample(b *testing.B) {
	f := newFixture(b)
	f.writeUser(Example)
	opts := f.opts()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(opts); err != nil {
			b.Fatal(err)
		}
	}
}
