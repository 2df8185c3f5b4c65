package instances

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/atelier-studio/atelier/sessions"
)

// manifestEntry records one file of a copy as it was made: what the
// workspace held (mode, blob id) and the copy's size and time, so an
// unchanged file is known without reading it.
type manifestEntry struct {
	Path  string `json:"p"`
	Mode  uint32 `json:"m"`
	ID    string `json:"h"`
	Size  int64  `json:"s"`
	MTime int64  `json:"t"`
}

func (m *Manager) manifestPath(id string) string {
	return filepath.Join(m.dir, metaDir, id+".manifest.json")
}

// statEntry records a file already written at dst with known content.
func statEntry(dst, rel string, data []byte, mode uint32) (manifestEntry, error) {
	st, err := os.Lstat(dst)
	if err != nil {
		return manifestEntry{}, err
	}
	return manifestEntry{Path: rel, Mode: mode, ID: blobID(data), Size: st.Size(), MTime: st.ModTime().UnixNano()}, nil
}

func writeManifest(path string, man []manifestEntry) error {
	sort.Slice(man, func(i, j int) bool { return man[i].Path < man[j].Path })
	b, err := json.Marshal(man)
	if err != nil {
		return err
	}
	if err := sessions.WriteFileAtomic(path, b, 0o600); err != nil {
		return fmt.Errorf("write the manifest: %w", err)
	}
	return nil
}

func readManifest(path string) (map[string]manifestEntry, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the manifest: %w", err)
	}
	var man []manifestEntry
	if err := json.Unmarshal(b, &man); err != nil {
		return nil, fmt.Errorf("read the manifest %s: %w", path, err)
	}
	out := make(map[string]manifestEntry, len(man))
	for _, e := range man {
		out[e.Path] = e
	}
	return out, nil
}
