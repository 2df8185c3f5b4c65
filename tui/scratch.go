package tui

import (
	"path"
	"strings"
)

// editorScratch reports whether a path is an editor's own bookkeeping, not
// a file anyone means to change: vim's swap files (.x.swp, .swo, .swx...)
// and its write probe (4913), backups ending in ~, emacs's autosaves
// (#x#) and locks (.#x). Saving a file in vim touches three of them, so
// the activity stream would log four changes for one save; it logs the
// file's own change only. The tree still shows them: they are on disk.
func editorScratch(p string) bool {
	b := path.Base(p)
	switch {
	case b == "4913", strings.HasSuffix(b, "~"):
		return true
	case strings.HasPrefix(b, ".#"), len(b) > 2 && strings.HasPrefix(b, "#") && strings.HasSuffix(b, "#"):
		return true
	}
	ext := path.Ext(b)
	return len(ext) == 4 && strings.HasPrefix(ext, ".sw") && ext[3] >= 'a' && ext[3] <= 'z' && strings.HasPrefix(b, ".")
}
