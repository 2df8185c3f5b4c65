//go:build !linux

package files

import "strings"

// sameName compares two file names ignoring case, as the usual file systems
// of other platforms (APFS, NTFS) do, so ".STATE" is caught where it is
// ".state".
func sameName(a, b string) bool { return strings.EqualFold(a, b) }
