package instances

import (
	"os"
	"path/filepath"
	"testing"
)

// blobID must name content as git does: the manifest's ids are looked up
// in the workspace's repository and compared with its trees'.
func TestBlobIDAgreesWithGit(t *testing.T) {
	needGit(t)
	dir := t.TempDir()
	for _, c := range []string{"", "a\n", "no newline", string([]byte{0, 1, 2, 255})} {
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, want := blobID([]byte(c)), run(t, dir, "hash-object", "--no-filters", p); got != want {
			t.Errorf("blobID(%q) = %s, git says %s", c, got, want)
		}
	}
}

// The copy's streamed hash and blobID agree.
func TestCopyManifestIDs(t *testing.T) {
	ws := t.TempDir()
	big := make([]byte, 3<<20)
	for i := range big {
		big[i] = byte(i * 7)
	}
	write(t, ws, map[string]string{"small": "s\n", "big": string(big)})
	m := open(t, ws, Options{})
	if _, err := m.Create(Copy, "c"); err != nil {
		t.Fatal(err)
	}
	man, err := readManifest(m.manifestPath("c"))
	if err != nil {
		t.Fatal(err)
	}
	if man["small"].ID != blobID([]byte("s\n")) || man["big"].ID != blobID(big) || len(man) != 2 {
		t.Errorf("manifest %+v", man)
	}
}
