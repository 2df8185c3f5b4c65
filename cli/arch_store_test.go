package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// opensState matches a call that opens a workspace's session store or its
// history.
var opensState = regexp.MustCompile(`\b(sessions\.Open|history\.Open)\(`)

// stateOpeners are the files outside core that may open the store or the
// history: the composition, where a host locks and locates a workspace
// before any engine runs.
var stateOpeners = map[string]bool{
	"host/run.go":    true, // the workspace lock, keyed by the store's identity
	"host/detach.go": true, // locating a host from the store's identity
}

// stateOpenersNotYet open them where DESIGN §2 says only the engine
// should; each is to go through the engine or its API. The list only
// shrinks: a file that stops opening them must leave it.
var stateOpenersNotYet = map[string]bool{
	"cli/sessions_history.go": true, // history and ids for `sessions history`, `restore`...
	"cli/trust_state.go":      true, // reading a foreign .state/ before adopting it
	"cli/studio.go":           true, // the attached studio's history on this machine
}

// TestStateOpeners: nothing outside core and the session model opens the
// store or the history but the composition files (and the listed debts).
func TestStateOpeners(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && path != root || rel == "core" || rel == "sessions" || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if opensState.Match(b) {
			found[rel] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var bad, gone []string
	for f := range found {
		if !stateOpeners[f] && !stateOpenersNotYet[f] {
			bad = append(bad, f)
		}
	}
	for f := range stateOpenersNotYet {
		if !found[f] {
			gone = append(gone, f)
		}
	}
	if len(found) == 0 {
		t.Fatal("no file opens the store: the check reads nothing")
	}
	sort.Strings(bad)
	sort.Strings(gone)
	if len(bad) > 0 {
		t.Errorf("these open the session store or the history outside core (go through the engine or its API): %s", strings.Join(bad, ", "))
	}
	if len(gone) > 0 {
		t.Errorf("these no longer open them: remove them from stateOpenersNotYet: %s", strings.Join(gone, ", "))
	}
}
