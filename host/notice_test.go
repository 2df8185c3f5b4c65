package host

import (
	"strings"
	"testing"
)

// TestBuildNotice: the same build says nothing; another build, or one
// that does not say, gets one line naming both builds and the restart.
func TestBuildNotice(t *testing.T) {
	cases := []struct {
		name, host, client string
		want               []string // "" for no notice
	}{
		{"the same build", "v1.2.3", "v1.2.3", nil},
		{"the same development build", "(devel) (0123456789ab)", "(devel) (0123456789ab)", nil},
		{"an older host", "v1.2.2", "v1.2.3", []string{"build v1.2.2", "this is v1.2.3", "`atelier serve --restart`", "next boundary"}},
		{"another commit", "(devel) (aaaaaaaaaaaa)", "(devel) (bbbbbbbbbbbb)", []string{"(aaaaaaaaaaaa)", "(bbbbbbbbbbbb)"}},
		{"a host that does not say", "", "v1.2.3", []string{"an unknown build", "this is v1.2.3"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := BuildNotice(c.host, c.client)
			if c.want == nil {
				if got != "" {
					t.Fatalf("BuildNotice(%q, %q) = %q, want none", c.host, c.client, got)
				}
				return
			}
			if strings.ContainsAny(got, "\n\r") {
				t.Fatalf("not one line: %q", got)
			}
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("BuildNotice(%q, %q) = %q, lacks %q", c.host, c.client, got, w)
				}
			}
		})
	}
}
