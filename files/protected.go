package files

import (
	"path"
	"strings"
)

// Names of the protected paths: the engine may write them, an agent's tool
// only with an explicit approval, whatever the approval policy.
const (
	ConfigFile = ".atelier.toml"
	StateDir   = ".state"
)

// IsProtected reports whether the workspace-relative path rel names
// .atelier.toml or anything under .state/ once it is normalised lexically
// ("./.state/x" and "a/../.state" are caught). It is case-sensitive, like the
// file systems Atelier runs on. It cannot see symlinks: the engine should ask
// Workspace.Protected, which also resolves them.
func IsProtected(rel string) bool {
	rel = strings.ReplaceAll(rel, "\\", "/")
	c := path.Clean("/" + rel)[1:]
	return c == ConfigFile || c == StateDir || strings.HasPrefix(c, StateDir+"/")
}
