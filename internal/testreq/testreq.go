package testreq

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Required reports whether ATELIER_TEST_REQUIRE (a comma list) names component.
func Required(component string) bool {
	for _, c := range strings.Split(os.Getenv("ATELIER_TEST_REQUIRE"), ",") {
		if strings.TrimSpace(c) == component {
			return true
		}
	}
	return false
}

// Need skips the test when ok is false, naming the missing component and why,
// unless the component is required, in which case the test fails.
func Need(t testing.TB, component string, ok bool, why string) {
	t.Helper()
	if ok {
		return
	}
	if Required(component) {
		t.Fatalf("%s is required (ATELIER_TEST_REQUIRE) but missing: %s", component, why)
	}
	t.Skipf("skipping: %s is missing: %s", component, why)
}

// Binary looks up a program on PATH and calls Need with the result; it
// returns the program's path.
func Binary(t testing.TB, component, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	Need(t, component, err == nil, name+" not found on PATH")
	return p
}
