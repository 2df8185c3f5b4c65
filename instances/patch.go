package instances

import (
	"fmt"
	"strings"

	"github.com/atelier-studio/atelier/files"
	"github.com/atelier-studio/atelier/internal/textdiff"
)

// writePatch counts a changed file's lines and writes its part of the
// patch, in git's format, from its old and new content.
func writePatch(f *FileChange, old, neu []byte, patch *strings.Builder) {
	fmt.Fprintf(patch, "diff --git a/%s b/%s\n", f.Path, f.Path)
	switch f.Status {
	case Added:
		fmt.Fprintf(patch, "new file mode %o\n", f.NewMode)
	case Removed:
		fmt.Fprintf(patch, "deleted file mode %o\n", f.OldMode)
	default:
		if f.OldMode != f.NewMode {
			fmt.Fprintf(patch, "old mode %o\nnew mode %o\n", f.OldMode, f.NewMode)
		}
	}
	if f.OldMode == modeGitlink || f.NewMode == modeGitlink {
		old, neu = gitlinkText(f.OldID, f.OldMode), gitlinkText(f.NewID, f.NewMode)
	} else if files.IsBinary(old) || files.IsBinary(neu) {
		f.Binary = true
		fmt.Fprintf(patch, "Binary files a/%s and b/%s differ\n", f.Path, f.Path)
		return
	}
	a, b := splitLines(string(old)), splitLines(string(neu))
	for _, op := range textdiff.Script(a, b) {
		switch op.Kind {
		case '-':
			f.Removed++
		case '+':
			f.Added++
		}
	}
	nameA, nameB := "a/"+f.Path, "b/"+f.Path
	if f.Status == Added {
		nameA = "/dev/null"
	}
	if f.Status == Removed {
		nameB = "/dev/null"
	}
	patch.WriteString(textdiff.Unified(nameA, nameB, a, b, 3))
}

// gitlinkText is how git shows a submodule's commit in a patch.
func gitlinkText(id string, mode uint32) []byte {
	if mode != modeGitlink || id == "" {
		return nil
	}
	return []byte("Subproject commit " + id + "\n")
}

// splitLines splits a text into lines without a last empty one.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
