// Command studiotest opens the studio on a folder with the demo agent. It
// stands in for the atelier binary in the studio's end-to-end tests when
// the module's main package does not link the studio; it is not part of the
// product and takes no flags: `studiotest [DIR]`.
package main
