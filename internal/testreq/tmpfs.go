package testreq

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// Tmpfs mounts a tmpfs of size ("1m", "8m") on a new temporary folder, so a
// test can fill a disk for real, and unmounts it at the end. It needs root
// (CI runs as root and requires it: ATELIER_TEST_REQUIRE=tmpfs); elsewhere
// the test is skipped, naming the component.
func Tmpfs(t testing.TB, size string) string {
	t.Helper()
	dir := t.TempDir()
	TmpfsAt(t, dir, size)
	return dir
}

// TmpfsAt is Tmpfs on a folder the test already has (a sandbox's
// workspace, say).
func TmpfsAt(t testing.TB, dir, size string) {
	t.Helper()
	err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size="+size)
	why := "cannot mount a tmpfs (needs root)"
	if err != nil {
		why += ": " + err.Error()
	}
	Need(t, "tmpfs", err == nil, why)
	t.Cleanup(func() {
		if err := unix.Unmount(dir, unix.MNT_DETACH); err != nil {
			t.Errorf("unmount the tmpfs %s: %v", dir, err)
		}
	})
}

// FillDisk writes a file in dir until its disk is full and returns the
// file's path: removing it frees the space.
func FillDisk(t testing.TB, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "filler")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }() // written only to fill the disk
	buf := make([]byte, 16<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return p
			}
			t.Fatal(err)
		}
	}
}
