// Package settings is the studio's settings tab: the configuration in
// force with the file and line each value came from (secrets masked), how
// the studio notifies, whether the workspace's .atelier.toml is trusted,
// the latest engine activity, and the way to destroy the workspace's
// state. It reads nothing itself: the root loads the trust state in a
// command and hands it over, and carries out the Actions the keys ask for.
package settings
