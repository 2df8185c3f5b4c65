// Command atelier is a terminal studio for running AI coding agents on a
// workspace and steering them while they work. main only hands the process's
// arguments and streams to the command line in package cli.
package main

import (
	"os"

	"github.com/atelier-studio/atelier/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
