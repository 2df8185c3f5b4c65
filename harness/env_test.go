package harness

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

var testSpec = EnvSpec{
	Prefixes:    []string{"ANTHROPIC_", "CLAUDE_CODE_"},
	Names:       []string{"AWS_REGION"},
	Credentials: []string{"ANTHROPIC_API_KEY"},
}

func TestEnvSpecPick(t *testing.T) {
	environ := []string{"PATH=/bin", "ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=u", "CLAUDE_CODE_X=1",
		"AWS_REGION=eu", "AWS_REGION_X=no", "OPENAI_API_KEY=foreign", "XANTHROPIC_Y=no", "=broken", "NOEQUALS"}
	got := testSpec.Pick(environ)
	want := []string{"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=u", "CLAUDE_CODE_X=1", "AWS_REGION=eu"}
	if !slices.Equal(got, want) {
		t.Errorf("Pick = %q, want %q", got, want)
	}
	if got := testSpec.WithoutCredentials(got); slices.Contains(got, "ANTHROPIC_API_KEY=k") || len(got) != 3 {
		t.Errorf("WithoutCredentials = %q", got)
	}
}

func TestBaseEnv(t *testing.T) {
	for name, want := range map[string]bool{"PATH": true, "HOME": true, "LC_ALL": true, "LC_CTYPE": true,
		"HTTPS_PROXY": true, "SSL_CERT_FILE": true, "ANTHROPIC_API_KEY": false, "AWS_SECRET_ACCESS_KEY": false, "GITHUB_TOKEN": false} {
		if BaseEnv(name) != want {
			t.Errorf("BaseEnv(%s) = %v", name, !want)
		}
	}
}

func TestMergeEnv(t *testing.T) {
	got := MergeEnv([]string{"A=inherited", "B=1"}, []string{"C=2", "A=explicit"}, nil, []string{"B=last"})
	want := []string{"A=explicit", "B=last", "C=2"}
	if !slices.Equal(got, want) {
		t.Errorf("MergeEnv = %q, want %q", got, want)
	}
}

// TestIsolate runs the wrapper with sh in an environment full of other
// programs' variables: the program sees the base variables, the declared
// ones and those named in env, nothing else.
func TestIsolate(t *testing.T) {
	env := []string{"EXTRA_SET=yes"}
	argv := testSpec.Isolate([]string{"sh", "-c", "env"}, env)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=/home/x", "LC_ALL=C", "HTTPS_PROXY=http://proxy:3128",
		"ANTHROPIC_API_KEY=own-key", "CLAUDE_CODE_Y=own", "AWS_REGION=eu", "EXTRA_SET=yes",
		"OPENAI_API_KEY=foreign-key", "GITHUB_TOKEN=foreign-token", "AWS_REGION_OTHER=foreign", "XANTHROPIC_Z=foreign"}
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSpace(string(out)), "\n")
	for _, want := range []string{"PATH=/usr/bin:/bin", "HOME=/home/x", "LC_ALL=C", "HTTPS_PROXY=http://proxy:3128",
		"ANTHROPIC_API_KEY=own-key", "CLAUDE_CODE_Y=own", "AWS_REGION=eu", "EXTRA_SET=yes"} {
		if !slices.Contains(got, want) {
			t.Errorf("%s lost; the program saw %q", want, got)
		}
	}
	for _, kv := range got {
		if strings.Contains(kv, "foreign") {
			t.Errorf("%s kept; the program saw %q", kv, got)
		}
	}
	if strings.Contains(strings.Join(argv, " "), "own-key") {
		t.Errorf("a value is on the command line: %q", argv)
	}
}

// TestEnvSpecWith: the names a CLI's configuration adds are declared by the
// new spec, and the spec it came from is left as it was, so one session's
// configuration does not leak into another's.
func TestEnvSpecWith(t *testing.T) {
	base := EnvSpec{Names: make([]string, 1, 4)}
	base.Names[0] = "AWS_REGION"
	a, b := base.With("A_KEY"), base.With("B_KEY")
	if !a.Declares("A_KEY") || !a.Declares("AWS_REGION") || a.Declares("B_KEY") {
		t.Errorf("a declares %q", a.Names)
	}
	if !b.Declares("B_KEY") || b.Declares("A_KEY") || base.Declares("A_KEY") || base.Declares("B_KEY") {
		t.Errorf("b declares %q, base %q", b.Names, base.Names)
	}
}

// TestLookup: the last entry of a name wins, as exec takes it; a name that
// is only a prefix of another's, or absent, has no value.
func TestLookup(t *testing.T) {
	env := []string{"HOME=/first", "HOMEDIR=/no", "=x", "NOEQUALS", "HOME=/last", "EMPTY="}
	for name, want := range map[string]string{"HOME": "/last", "HOM": "", "EMPTY": "", "NOEQUALS": "", "MISSING": ""} {
		if got := Lookup(env, name); got != want {
			t.Errorf("Lookup(%s) = %q, want %q", name, got, want)
		}
	}
	for name, want := range map[string]bool{"VAULT_TOKEN": true, "_x1": true, "1X": false, "A-B": false, "A;rm -rf": false, "": false} {
		if EnvName(name) != want {
			t.Errorf("EnvName(%q) = %v", name, !want)
		}
	}
}
