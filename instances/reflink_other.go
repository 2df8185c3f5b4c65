//go:build !linux

package instances

import (
	"errors"
	"os"
)

// clone is not available here: the caller copies.
func clone(out, in *os.File) error { return errors.ErrUnsupported }
