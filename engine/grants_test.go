package engine

import "testing"

func TestGrantCovers(t *testing.T) {
	exact := Grant{Tool: "Bash", Command: "go test ./..."}
	prefix := Grant{Tool: "Bash", Command: "go test", Prefix: true}
	whole := Grant{Tool: "write_file"}
	for _, c := range []struct {
		g       Grant
		tool    string
		command string
		want    bool
	}{
		{exact, "Bash", "go test ./...", true},
		{exact, "Bash", "touch other.txt", false},
		{exact, "Bash", "go test ./... -run X", false},
		{exact, "exec", "go test ./...", false},
		{prefix, "Bash", "go test", true},
		{prefix, "Bash", "go test ./core -run 'TestX'", true},
		{prefix, "Bash", "go testify", false},
		{prefix, "Bash", "go test ./... && touch x", false},
		{prefix, "Bash", "go test ./...; rm y", false},
		{prefix, "Bash", "go test $(rm y)", false},
		{prefix, "Bash", "go test ./... > /etc/passwd", false},
		{prefix, "Bash", "go test ./...\nrm y", false},
		{prefix, "Bash", "go test `rm y`", false},
		{prefix, "Bash", "xgo test", false},
		{whole, "write_file", "", true},
		{whole, "exec", "", false},
		{whole, "write_file", "echo", false},
	} {
		if got := c.g.Covers(c.tool, c.command); got != c.want {
			t.Errorf("%s covers %s %q = %v, want %v", c.g.Key(), c.tool, c.command, got, c.want)
		}
	}
	if k := prefix.Key(); k != "Bash:go test:*" {
		t.Errorf("prefix key %q", k)
	}

	for _, g := range []Grant{exact, prefix, whole, {Tool: "exec", Command: "ls a:b"}} {
		if back := ParseGrant(g.Key()); back != g {
			t.Errorf("ParseGrant(%q) = %+v, want %+v", g.Key(), back, g)
		}
	}
}

func TestSuggestPrefix(t *testing.T) {
	for cmd, want := range map[string]string{
		"go test ./...":         "go test",
		"npm run build":         "npm run build",
		"git diff --stat":       "git diff",
		"touch other.txt":       "touch",
		"rm -rf build":          "rm",
		"./configure":           "./configure",
		"make && make install":  "make",
		"cargo build --release": "cargo build",
	} {
		if got := SuggestPrefix(cmd); got != want {
			t.Errorf("SuggestPrefix(%q) = %q, want %q", cmd, got, want)
		}
	}
}
