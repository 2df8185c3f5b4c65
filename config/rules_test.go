package config

import "testing"

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"*", "", true},
		{"*", "anything at all/with/slashes", true},
		{"go test *", "go test ./...", true},
		{"go test *", "go test", false},
		{"go test*", "go test", true},
		{"go test *", "go vet ./...", false},
		{"rm *", "rm -rf /", true},
		{"docs/*", "docs/a/b.md", true},
		{"*.go", "main.go", true},
		{"*.go", "main.go.bak", false},
		{"a?c", "abc", true},
		{"a?c", "ac", false},
		{"*a*b*c*", "xxaxxbxxcxx", true},
		{"*a*b*c*", "xxaxxcxxbxx", false},
		{"é*", "été", true},
		{"exact", "exact", true},
		{"exact", "exact ", false},
	}
	for _, tt := range tests {
		if got := globMatch(tt.pattern, tt.s); got != tt.want {
			t.Errorf("globMatch(%q, %q) = %v, want %v", tt.pattern, tt.s, got, tt.want)
		}
	}
}

func TestDecideFirstMatchWins(t *testing.T) {
	a := Agent{Rules: []Rule{
		{Tool: "exec", Pattern: "go test *", Action: ActionAllow},
		{Tool: "exec", Pattern: "*", Action: ActionDeny},
		{Tool: "*", Pattern: "docs/*", Action: ActionAllow},
	}}
	tests := []struct {
		tool, subject string
		want          Action
		ok            bool
	}{
		{"exec", "go test ./...", ActionAllow, true},
		{"exec", "go build", ActionDeny, true},
		{"write_file", "docs/a.md", ActionAllow, true},
		{"write_file", "main.go", "", false},
	}
	for _, tt := range tests {
		got, ok := a.Decide(tt.tool, tt.subject)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Decide(%s, %q) = %s, %v; want %s, %v", tt.tool, tt.subject, got, ok, tt.want, tt.ok)
		}
	}
}

func BenchmarkGlobMatchWorstCase(b *testing.B) {
	pattern := "*a*a*a*a*a*a*a*b"
	s := ""
	for range 200 {
		s += "a"
	}
	for b.Loop() {
		globMatch(pattern, s)
	}
}
