package tui

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/themes"
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

// activityLoaded carries the entries of earlier studios, oldest first.
type activityLoaded struct {
	entries []activity.Entry
	err     error
}

// loadActivity reads the newest activity.Limit entries of the file,
// skipping lines it cannot read, and bounds the file.
func loadActivity(workspace string) activityLoaded {
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
