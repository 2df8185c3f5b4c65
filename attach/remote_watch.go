package attach

import (
	"context"
	"path"
	"sync"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/files"
)

// Watch follows the host's change stream (GET …/files/changes): the
// batches its watcher sees, with who made each change. A .gitignore that
// changes is read again into ig, as the local watcher does. A stream that
// drops is opened again, with a notice: changes made meanwhile are not
// replayed, they show when their folder is read again.
func (rf *RemoteFiles) Watch(ig *files.Ignore) (Watch, error) {
	if ig == nil {
		ig = files.NewIgnore()
	}
	ctx, cancel := context.WithCancel(rf.ctx)
	s, err := rf.f.Changes(ctx)
	if err != nil {
		cancel()
		return nil, Err(err)
	}
	w := &remoteWatch{rf: rf, ig: ig, cancel: cancel, out: make(chan []files.Change, 16), done: make(chan struct{})}
	go w.run(ctx, s)
	return w, nil
}

type remoteWatch struct {
	rf     *RemoteFiles
	ig     *files.Ignore
	cancel context.CancelFunc
	out    chan []files.Change
	done   chan struct{}
	once   sync.Once
}

func (w *remoteWatch) Events() <-chan []files.Change { return w.out }

// Close ends the stream; Events is closed once the follower has stopped.
func (w *remoteWatch) Close() error {
	w.once.Do(w.cancel)
	<-w.done
	return nil
}

// run forwards the stream's batches, and opens it again when it drops.
func (w *remoteWatch) run(ctx context.Context, s *client.ChangeStream) {
	defer close(w.done)
	defer close(w.out)
	pause := 100 * time.Millisecond
	for {
		for batch := range s.C {
			if !w.send(ctx, w.apply(batch)) {
				return
			}
		}
		if ctx.Err() != nil {
			return
		}
		why := "the connection dropped"
		if err := s.Err(); err != nil {
			why = err.Error()
		}
		if !w.send(ctx, []files.Change{notice("the engine's file changes stopped (" + why + "): reconnecting")}) {
			return
		}
		for {
			wait(ctx, pause)
			if ctx.Err() != nil {
				return
			}
			pause = min(pause*2, 5*time.Second)
			var err error
			if s, err = w.rf.f.Changes(ctx); err == nil {
				break
			}
		}
		pause = 100 * time.Millisecond
		if !w.send(ctx, []files.Change{notice("the engine's file changes are followed again; what changed meanwhile shows when its folder is read again")}) {
			return
		}
	}
}

func (w *remoteWatch) send(ctx context.Context, batch []files.Change) bool {
	if len(batch) == 0 {
		return true
	}
	select {
	case w.out <- batch:
		return true
	case <-ctx.Done():
		return false
	}
}

// apply turns a batch of the API into the file layer's, reading again the
// .gitignore files it changed and forgetting the bases of files gone.
func (w *remoteWatch) apply(batch []client.WorkspaceChange) []files.Change {
	out := make([]files.Change, 0, len(batch))
	for _, c := range batch {
		fc := files.Change{Kind: files.ChangeKind(c.Kind), Path: c.Path, OldPath: c.OldPath, By: c.By, Time: c.Time,
			IsDir: c.IsDir, Size: c.Size, Message: c.Message}
		out = append(out, fc)
		switch fc.Kind {
		case files.Deleted:
			w.rf.forget(fc.Path)
		case files.Renamed:
			w.rf.forget(fc.OldPath)
		}
		for _, p := range []string{fc.Path, fc.OldPath} {
			if path.Base(p) == ".gitignore" {
				// A rule file that cannot be read leaves the rules as they
				// were (the tree shows a few entries dimmed or not), and the
				// studio says so.
				if err := w.ig.Load(w.rf, parentOf(p)); err != nil {
					out = append(out, notice("the ignore rules in "+p+" could not be read again: "+err.Error()))
				}
			}
		}
	}
	return out
}

func notice(msg string) files.Change {
	return files.Change{Kind: files.Notice, Message: msg, Time: time.Now()}
}
