package host

import "fmt"

// BuildNotice is what a client says when the host it attached to runs
// another build than its own: one line that names both and how to hand
// the workspace to a host of the client's build, or "" when they are the
// same build. Sessions keep running on the old host either way (its API
// is versioned, so a client of another build still works with it); the
// notice only tells the user that a fix or a feature of their build is
// not what serves them. A host that reports no version is of an unknown
// build, which says so too.
func BuildNotice(hostVersion, clientVersion string) string {
	if hostVersion == clientVersion {
		return ""
	}
	if hostVersion == "" {
		hostVersion = "an unknown build"
	} else {
		hostVersion = "build " + hostVersion
	}
	return fmt.Sprintf("the engine host runs %s, this is %s: `atelier serve --restart` hands over at the next boundary",
		hostVersion, clientVersion)
}
