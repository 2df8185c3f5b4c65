package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/tui"
)

func main() {
	dir := "."
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	if err := run(dir); err != nil {
		fmt.Fprintln(os.Stderr, "studiotest:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	eng, err := core.Open(dir, core.Options{})
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	runErr := tui.Run(ctx, tui.Options{Engine: eng, Workspace: dir})
	if err := eng.Close(); err != nil && runErr == nil {
		runErr = err
	}
	return runErr
}
