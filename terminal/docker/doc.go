// Package docker runs a session's commands in a container of its own: one
// container per session, labelled with the session, created from a
// configured image on the session's first command and removed when the
// session ends. A later environment of the session (the process that takes
// it over after a crash, or a short command beside the process that runs it)
// reattaches that container rather than making a second. The workspace (or
// the folder of the instance the session is on, with the git metadata a
// worktree instance points to mounted read-only at the same path) is
// bind-mounted (read-only for a read-only session), the container runs as the
// host user without privileges or capabilities and, unless configured, without
// a network. Env implements terminal.Env; Engine connects to the Docker
// engine (DOCKER_HOST or the current Docker context) and cleans up containers
// left behind by sessions that are gone.
package docker
