// Package cli is Atelier's command line: the cobra commands that open the
// studio, run a headless session, and act on sessions through the engine.
// Every command builds its dependencies explicitly from its flags; errors
// carry a kind that maps to an exit code (see ExitCode).
package cli
