package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/atelier-studio/atelier/core"
)

// A host runs for hours; its configuration's files change meanwhile (a
// trigger written into .atelier.toml and trusted, an agent's policy edited
// in config.toml). Without a watch, such a change would wait, unsaid, for
// the next host. With Options.Reconfigure the host watches the files and,
// once they have been quiet for a moment, asks its caller to reload and
// apply what changed; what the caller says of it (applied, refused and
// why) goes out as engine notices, so every studio and every event stream
// shows it.
//
// The folders are watched, not the files: editors save by writing another
// file and renaming it over the old one, which a watch on the old file
// never sees; and a file that does not exist yet has nothing to watch. A
// folder that does not exist either (no configuration folder yet) is
// watched through its nearest existing parent until it appears.

// DefaultReloadDebounce is how long a configuration's files must stay
// still after a change before the host reloads them: an editor's save, a
// `atelier trust` right after it, land as one reload.
const DefaultReloadDebounce = 300 * time.Millisecond

// Reconfigure is how a host follows its configuration's files.
type Reconfigure struct {
	// Files are the configuration's files (absolute paths); none needs to
	// exist.
	Files []string
	// Debounce is the quiet time before a reload; 0 means
	// DefaultReloadDebounce.
	Debounce time.Duration
	// Apply reloads the configuration and applies what changed, each part
	// at its own boundary, keeping what it had when the new one is
	// refused. It returns what to tell every client, one notice each
	// (none: nothing changed). It is called on the watcher's goroutine,
	// one call at a time, never under the engine's lock.
	Apply func() []string
}

// configWatch is a running watch of a Reconfigure's files.
type configWatch struct {
	rc      Reconfigure
	e       *core.Engine
	logf    func(string, ...any)
	w       *fsnotify.Watcher
	files   map[string]bool // the files, cleaned
	folders map[string]bool // the files' folders
	watched map[string]bool // what the fsnotify watcher watches now
}

// startConfigWatch starts watching; the watch ends when ctx does, and
// done is closed once it has.
func startConfigWatch(ctx context.Context, e *core.Engine, rc Reconfigure, logf func(string, ...any)) (done <-chan struct{}, err error) {
	if rc.Apply == nil {
		return nil, errors.New("host: a configuration watch needs Apply")
	}
	if rc.Debounce <= 0 {
		rc.Debounce = DefaultReloadDebounce
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch the configuration's files: %w", err)
	}
	cw := &configWatch{rc: rc, e: e, logf: logf, w: w, files: map[string]bool{}, folders: map[string]bool{}, watched: map[string]bool{}}
	for _, f := range rc.Files {
		f = filepath.Clean(f)
		cw.files[f] = true
		cw.folders[filepath.Dir(f)] = true
	}
	if err := cw.rewatch(); err != nil {
		return nil, errors.Join(err, w.Close())
	}
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		cw.run(ctx)
	}()
	return ch, nil
}

// rewatch watches each folder of the files, or its nearest existing
// parent while it does not exist, and lets go of what it watched before
// and needs no more.
func (cw *configWatch) rewatch() error {
	want := map[string]bool{}
	for d := range cw.folders {
		for {
			if fi, err := os.Stat(d); err == nil && fi.IsDir() {
				want[d] = true
				break
			}
			up := filepath.Dir(d)
			if up == d {
				break // nothing of the path exists: nothing to watch
			}
			d = up
		}
	}
	var errs []error
	for d := range want {
		if cw.watched[d] {
			continue
		}
		if err := cw.w.Add(d); err != nil {
			errs = append(errs, fmt.Errorf("watch %s: %w", d, err))
			continue
		}
		cw.watched[d] = true
	}
	for d := range cw.watched {
		if !want[d] {
			// Gone, or replaced by a deeper folder: a watch on a removed
			// folder is dropped by the system already.
			if err := cw.w.Remove(d); err != nil && !errors.Is(err, fsnotify.ErrNonExistentWatch) {
				errs = append(errs, fmt.Errorf("stop watching %s: %w", d, err))
			}
			delete(cw.watched, d)
		}
	}
	return errors.Join(errs...)
}

// concerns reports whether an event on path can change the configuration:
// one of the files, or a folder on the way to one (made or removed).
func (cw *configWatch) concerns(path string) bool {
	path = filepath.Clean(path)
	if cw.files[path] {
		return true
	}
	for d := range cw.folders {
		if d == path || isUnder(d, path) {
			return true
		}
	}
	return false
}

// isUnder reports whether path is inside folder dir.
func isUnder(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !filepath.IsAbs(rel) && !startsUp(rel)
}

func startsUp(rel string) bool {
	return len(rel) >= 3 && rel[:3] == ".."+string(filepath.Separator)
}

// run waits for changes, debounces them and applies each quiet batch.
func (cw *configWatch) run(ctx context.Context) {
	defer func() {
		if err := cw.w.Close(); err != nil {
			cw.logf("configuration watch: %v", err)
		}
	}()
	quiet := time.NewTimer(time.Hour)
	quiet.Stop()
	for {
		select {
		case <-ctx.Done():
			quiet.Stop()
			return
		case ev, ok := <-cw.w.Events:
			if !ok {
				return
			}
			if !cw.concerns(ev.Name) {
				continue
			}
			if err := cw.rewatch(); err != nil {
				cw.say("configuration watch: " + err.Error())
			}
			quiet.Reset(cw.rc.Debounce)
		case err, ok := <-cw.w.Errors:
			if !ok {
				return
			}
			// An overflow loses events: reload, in case one was ours.
			cw.say("configuration watch: " + err.Error() + "; reloading the configuration in case a change was missed")
			quiet.Reset(cw.rc.Debounce)
		case <-quiet.C:
			for _, n := range cw.rc.Apply() {
				cw.say(n)
			}
		}
	}
}

// say tells every client (an engine notice) and the host's log.
func (cw *configWatch) say(text string) {
	cw.e.Notice("", text)
	cw.logf("%s", text)
}
