// Package settings is the studio's settings tab: the configuration in
// force with the file and line each value came from (secrets masked), how
// the studio notifies, whether the workspace's .atelier.toml is trusted,
// the way to destroy the workspace's state, and the end of the engine's
// run log, live. It reads nothing itself: the root loads the trust state
// and polls the run log in commands and hands them over, and carries out
// the Actions the keys ask for.
package settings
