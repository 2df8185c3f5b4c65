//go:build !linux

package files

// renameNoReplace renames without replacing an existing destination, by
// link and unlink (directories cannot be hard-linked: a plain rename after a
// check, racy but the best a portable build has).
func renameNoReplace(olddir int, oldname string, newdir int, newname string) error {
	return linkUnlink(olddir, oldname, newdir, newname)
}

// fdPath is unavailable without /proc.
func fdPath(fd int) (string, bool) { return "", false }
