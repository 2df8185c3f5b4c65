// Package teststate keeps tests' workspace secrets out of the user's home:
// every workspace state a test makes gets a secret in the user's state
// directory (sessions/trust.go), so a package whose tests open workspaces
// runs them with XDG_STATE_HOME pointed at a temporary folder (and
// XDG_DATA_HOME, where workspace instances are made, inside it).
package teststate

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// marker tells a child process (a test binary re-run as a helper, which
// inherits the environment) that the folder is already set: it must share
// its parent's secrets, not make its own.
const marker = "ATELIER_TEST_STATE_HOME"

// Main runs the tests with a private state directory, removes it after,
// and exits with the tests' code.
func Main(m *testing.M) {
	os.Exit(Run(m))
}

// Run is Main for a TestMain with more to do after the tests: it returns
// the tests' exit code.
func Run(m *testing.M) int {
	if os.Getenv(marker) != "" {
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "atelier-test-state-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "teststate:", err)
		return 1
	}
	defer func() {
		if err := os.RemoveAll(dir); err != nil {
			fmt.Fprintln(os.Stderr, "teststate:", err)
		}
	}()
	// Instances of the tests' workspaces (package instances) go to the
	// data directory: kept here too, never among the user's.
	data := filepath.Join(dir, "data")
	for k, v := range map[string]string{"XDG_STATE_HOME": dir, "XDG_DATA_HOME": data, marker: dir} {
		if err := os.Setenv(k, v); err != nil {
			fmt.Fprintln(os.Stderr, "teststate:", err)
			return 1
		}
	}
	return m.Run()
}
