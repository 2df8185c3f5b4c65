// Package golden compares what a test renders with a file kept in the
// repository (a screen, a help text, a generated document), and rewrites
// the file when the test runs with -update. It is imported by tests only.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files and the documents the tests keep")

// Updating says whether this run rewrites the files (-update).
func Updating() bool { return *update }

// File compares got with the file at path, failing the test with both
// when they differ; with -update it writes got there instead (making its
// folder).
func File(t testing.TB, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run '%s' -update makes it)", err, t.Name())
	}
	if string(want) != got {
		t.Errorf("%s differs (go test -run '%s' -update rewrites it if the change is meant):\n--- got\n%s\n--- want\n%s", path, t.Name(), got, want)
	}
}

// Check is File for testdata/name, beside the test.
func Check(t testing.TB, name, got string) {
	t.Helper()
	File(t, filepath.Join("testdata", name), got)
}
