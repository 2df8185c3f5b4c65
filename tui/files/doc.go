// Package files is the studio's file tree pane. It loads the workspace
// lazily: a directory is listed (in a tea.Cmd, never in Update) the first
// time it is expanded, so opening a huge workspace costs one listing.
// Listing goes through a Lister, so the pane does not care whether the
// entries come from the disk directly or from the workspace package's
// confined, .gitignore-aware reader.
package files
