package cli

import (
	"os"
	"sync"
	"time"

	"github.com/atelier-studio/atelier/config"
)

// wsRules answers the engine's question "does the operator always allow
// this call here?" (core.Options.WorkspaceRule) from the user's workspace
// rules, read again only when the file changed: the engine asks with its
// lock held, for each call its policy would otherwise ask about.
type wsRules struct {
	store     *config.RulesStore
	workspace string

	mu    sync.Mutex
	mod   time.Time
	size  int64
	rules []config.WorkspaceRule
}

func (w *wsRules) allow(tool, subject string) (string, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	fi, err := os.Stat(w.store.Path())
	switch {
	case err != nil:
		w.rules, w.mod, w.size = nil, time.Time{}, 0 // none kept, or unreadable: the policy decides
	case !fi.ModTime().Equal(w.mod) || fi.Size() != w.size:
		rules, err := w.store.Rules(w.workspace)
		if err != nil {
			rules = nil // a broken file allows nothing; the settings tab says why
		}
		w.rules, w.mod, w.size = rules, fi.ModTime(), fi.Size()
	}
	for _, r := range w.rules {
		if r.Tool == tool && r.Subject == subject {
			return "allowed by this workspace's rule: " + r.String() + " (listed in the settings tab)", true
		}
	}
	return "", false
}
