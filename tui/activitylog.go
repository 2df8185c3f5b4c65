package tui

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/trigger"
	"github.com/atelier-studio/atelier/tui/activity"
)

// The activity stream survives a restart: each entry is appended to
// .state/activity.jsonl by a goroutine of its own (Update never waits on
// the disk; a full queue drops the entry rather than the frame), and the
// next studio loads the newest activity.Limit entries in a command after
// its first frame. The file is bounded: a load that finds more than twice
// the limit rewrites it with the newest entries. It is a convenience, not
// a record: a studio that cannot write it (a read-only state) goes on
// without it, and says so on the terminal when it closes (App.keep).

// ActivityFile is the activity stream's file in the workspace's state.
const ActivityFile = "activity.jsonl"

// activityLine is one line of the file.
type activityLine struct {
	Time    time.Time   `json:"time"`
	Session string      `json:"session,omitempty"`
	Text    string      `json:"text"`
	Tone    themes.Tone `json:"tone,omitempty"`
}

// activityLog appends entries to the file in the background.
type activityLog struct {
	path string
	ch   chan activity.Entry
	done chan struct{}
	err  error // the first write failure, read after done

	mu     sync.Mutex // add against close: no send on a closed queue
	closed bool
}

func activityPath(workspace string) string {
	return filepath.Join(workspace, sessions.StateDir, ActivityFile)
}

// openActivityLog starts the writer; the file is opened on the first
// entry, never created outside an existing state folder.
func openActivityLog(workspace string) *activityLog {
	l := &activityLog{path: activityPath(workspace), ch: make(chan activity.Entry, 256), done: make(chan struct{})}
	go l.run()
	return l
}

func (l *activityLog) run() {
	defer close(l.done)
	var f *os.File
	defer func() {
		if f == nil {
			return
		}
		if err := f.Close(); err != nil && l.err == nil {
			l.err = err
		}
	}()
	gone := false // no state folder (never made, or destroyed): nothing to keep
	for e := range l.ch {
		if l.err != nil || gone {
			continue
		}
		if f == nil {
			var err error
			f, err = os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
			if errors.Is(err, fs.ErrNotExist) {
				gone = true
				continue
			}
			if err != nil {
				l.err = err
				continue
			}
		}
		b, err := json.Marshal(activityLine{Time: e.Time, Session: e.SessionID, Text: e.Text, Tone: e.Tone})
		if err == nil {
			_, err = f.Write(append(b, '\n'))
		}
		if err != nil {
			l.err = err
		}
	}
}

// add queues an entry; it never blocks.
func (l *activityLog) add(e activity.Entry) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	select {
	case l.ch <- e:
	default: // the disk is far behind: this entry only shows, it is not kept
	}
}

// close writes what is queued, stops the writer and returns the first
// write that failed. A second close returns the same.
func (l *activityLog) close() error {
	if l == nil {
		return nil
	}
	l.stop()
	return l.err
}

// stop writes what is queued and ends the writer; close says how it went.
func (l *activityLog) stop() {
	if l == nil {
		return
	}
	l.mu.Lock()
	if !l.closed {
		l.closed = true
		close(l.ch)
	}
	l.mu.Unlock()
	<-l.done
}

// activityLoaded carries the entries of earlier studios, oldest first,
// and the trigger firings no studio saw (firings, oldest first): those
// the host recorded in .state/triggers.jsonl after the file's newest
// entry.
type activityLoaded struct {
	entries []activity.Entry
	err     error
	firings []activity.Entry
}

// The studio is the one writer of the activity file; the host records
// trigger firings in its own record (.state/triggers.jsonl, which the
// trigger runner alone appends to). A firing while no studio listened is
// in the record only: the next studio, loading the file, adds the
// firings recorded after the file's newest entry, as entries of their own
// time, and writes them to the file through its writer, so the one after
// it finds them there (and, being older than that entry, does not add
// them again).

// unseenFirings words the firings recorded in ws after the newest of
// entries (all of the record's, when there are none).
func unseenFirings(ws string, entries []activity.Entry) ([]activity.Entry, error) {
	var since time.Time
	for _, e := range entries {
		if e.Time.After(since) {
			since = e.Time
		}
	}
	reps, err := trigger.Reports(ws, since)
	if err != nil {
		return nil, err
	}
	out := make([]activity.Entry, 0, len(reps))
	for _, r := range reps {
		tone := themes.ToneSubtle
		if r.Failed {
			tone = themes.ToneWarning
		}
		out = append(out, activity.Entry{Time: r.Time, SessionID: r.Session, Text: r.Text, Tone: tone})
	}
	return out, nil
}

// loadActivity reads the newest activity.Limit entries of the file,
// skipping lines it cannot read, and bounds the file.
func loadActivity(workspace string) activityLoaded {
	loaded := readActivity(workspace)
	if loaded.err == nil {
		loaded.firings, loaded.err = unseenFirings(workspace, loaded.entries)
	}
	return loaded
}

// readActivity reads the newest activity.Limit entries of the file.
func readActivity(workspace string) activityLoaded {
	path := activityPath(workspace)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return activityLoaded{}
	}
	if err != nil {
		return activityLoaded{err: err}
	}
	var all []activity.Entry
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var l activityLine
		if json.Unmarshal(sc.Bytes(), &l) != nil || l.Text == "" {
			continue // a torn or foreign line: the stream is a convenience
		}
		all = append(all, activity.Entry{Time: l.Time, SessionID: l.Session, Text: l.Text, Tone: l.Tone})
	}
	keep := all
	if len(keep) > activity.Limit {
		keep = keep[len(keep)-activity.Limit:]
	}
	if len(all) > 2*activity.Limit {
		var b bytes.Buffer
		for _, e := range keep {
			line, err := json.Marshal(activityLine{Time: e.Time, Session: e.SessionID, Text: e.Text, Tone: e.Tone})
			if err == nil {
				b.Write(append(line, '\n'))
			}
		}
		if err := sessions.WriteFileAtomic(path, b.Bytes(), 0o600); err != nil {
			return activityLoaded{entries: keep, err: err}
		}
	}
	return activityLoaded{entries: keep}
}

// keepFirings places the firings no studio saw among the earlier entries,
// by time, and writes them to the file; those after this studio opened
// are its own to show (it heard their notices).
func (jl *journal) keepFirings(earlier, firings []activity.Entry) []activity.Entry {
	added := false
	for _, f := range firings {
		if !f.Time.Before(jl.opened) {
			continue
		}
		earlier = append(earlier, f)
		jl.actlog.add(f)
		added = true
	}
	if added {
		sort.SliceStable(earlier, func(i, j int) bool { return earlier[i].Time.Before(earlier[j].Time) })
	}
	return earlier
}
