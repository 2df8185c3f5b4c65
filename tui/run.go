package tui

import (
	"context"
	"errors"
	"fmt"
	"os"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/atelier-studio/atelier/attach"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/tui/files"
)

// Run opens the studio on the terminal and returns when the operator
// quits or ctx ends. It leaves the engine open: the caller closes it, which
// stops running turns at a safe point and leaves them resumable. NO_COLOR
// in the environment turns colour off like Options.NoColor.
func Run(ctx context.Context, opts Options) (err error) {
	if os.Getenv("NO_COLOR") != "" {
		opts.NoColor = true
	}
	a, err := New(opts)
	if err != nil {
		return err
	}
	defer a.Close()
	popts := []tea.ProgramOption{tea.WithContext(ctx)}
	if opts.NoColor {
		popts = append(popts, tea.WithColorProfile(colorprofile.Ascii))
	}
	p := tea.NewProgram(a, append(popts, opts.Program...)...)
	done := make(chan struct{})
	go bridge(a.sub, a.eng, p.Send, done)
	if w, werr := a.opts.Files.Watch(a.ignore); werr == nil {
		defer func() {
			if cerr := w.Close(); err == nil {
				err = cerr
			}
		}()
		go watch(w, p.Send, done)
	} else {
		a.status.set("file tree not live: "+werr.Error(), true)
	}
	_, err = p.Run()
	close(done)
	if a.exitNote != "" {
		fmt.Fprintln(os.Stderr, a.exitNote)
	}
	if kerr := a.mem.keep(); kerr != nil {
		fmt.Fprintln(os.Stderr, "atelier: notice: not kept for the next studio:", kerr)
	}
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// watch forwards the workspace watcher's batches to the program.
func watch(w attach.Watch, send func(tea.Msg), done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		case batch, ok := <-w.Events():
			if !ok {
				return
			}
			send(files.Changes(batch))
		}
	}
}

// bridge is the one goroutine between the engine and the program: it
// forwards each drained batch of events as one message, and answers an
// overflow with a fresh snapshot.
func bridge(sub attach.Feed, eng attach.Engine, send func(tea.Msg), done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		case _, ok := <-sub.Ready():
			if !ok {
				return
			}
			evs := sub.Drain()
			if len(evs) == 1 && evs[0].Kind == core.EvResync {
				send(resyncMsg(eng.Snapshot()))
				continue
			}
			if len(evs) > 0 {
				send(eventsMsg(evs))
			}
		}
	}
}
