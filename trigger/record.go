package trigger

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/trigger/state"
)

// File is the firings' record under the workspace's state folder.
const File = "triggers.jsonl"

// The states a line of the record gives a firing (or a schedule).
const (
	StateFired   = "fired"   // recorded before anything starts
	StateStarted = "started" // its session (or workflow run) was created
	StateFailed  = "failed"  // it could not start; never retried
	StateMissed  = "missed"  // schedules that came while no host ran
	StateArmed   = "armed"   // a host armed the schedule (the reference for missed ones)
)

// Firing is one line of the record (state.Firing, which the engine API
// sends as it is).
type Firing = state.Firing

// path is the record's path in workspace ws.
func path(ws string) string { return filepath.Join(ws, sessions.StateDir, File) }

// ReadAll returns the record's lines, oldest first, skipping a torn or
// corrupt line (the record is append-only: a crash can only tear the
// last). A workspace without the file has none.
func ReadAll(ws string) ([]Firing, error) {
	all, _, err := readAll(ws)
	return all, err
}

// readAll reads the record and says whether its last line is torn.
func readAll(ws string) ([]Firing, bool, error) {
	data, err := os.ReadFile(path(ws))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read the trigger record: %w", err)
	}
	torn := len(data) > 0 && data[len(data)-1] != '\n'
	var out []Firing
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var f Firing
		if json.Unmarshal(sc.Bytes(), &f) != nil || f.Trigger == "" || f.State == "" {
			continue
		}
		out = append(out, f)
	}
	return out, torn, nil
}

// Last returns each trigger's newest firing (its last line, armed lines
// aside), by trigger name: what the settings tab shows.
func Last(ws string) (map[string]Firing, error) {
	all, err := ReadAll(ws)
	if err != nil {
		return nil, err
	}
	out := map[string]Firing{}
	for _, f := range all {
		if f.State != StateArmed {
			out[f.Trigger] = f
		}
	}
	return out, nil
}

// record appends lines to the file, each synced before append returns:
// a firing is recorded before what it starts.
type record struct {
	f *os.File
}

// maxLines is the record's length past which a host starting compacts it
// (keepPer lines of each trigger's newest firings, and every firing not
// finished).
const (
	maxLines = 4000
	keepPer  = 200
)

// openRecord opens (creating) the record for appending, rewriting it
// first when its last line is torn or it grew long; it returns the lines
// it holds.
func openRecord(ws string) (*record, []Firing, error) {
	all, torn, err := readAll(ws)
	if err != nil {
		return nil, nil, err
	}
	if torn || len(all) > maxLines {
		// A torn last line (a crash mid-write) is cut, so the next line
		// starts clean; a long record is compacted.
		if len(all) > maxLines {
			all = compact(all)
		}
		var b bytes.Buffer
		for _, f := range all {
			line, err := json.Marshal(f)
			if err != nil {
				return nil, nil, err
			}
			b.Write(append(line, '\n'))
		}
		if err := sessions.WriteFileAtomic(path(ws), b.Bytes(), 0o600); err != nil {
			return nil, nil, fmt.Errorf("compact the trigger record: %w", err)
		}
	}
	f, err := sessions.OpenStateFile(filepath.Dir(path(ws)), File, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("open the trigger record: %w", err)
	}
	return &record{f: f}, all, nil
}

// compact keeps the lines of each trigger's keepPer newest firings, of
// every firing not finished (its last line says fired), and each
// trigger's newest armed and missed lines (the reference for missed
// schedules).
func compact(all []Firing) []Firing {
	type fid struct{ trigger, id string }
	state := map[fid]string{}
	for _, f := range all {
		state[fid{f.Trigger, f.ID}] = f.State
	}
	keep := map[fid]bool{}
	newest := map[string]int{}
	for i := len(all) - 1; i >= 0; i-- {
		k := fid{all[i].Trigger, all[i].ID}
		if k.id == "" || keep[k] {
			continue
		}
		if state[k] == StateFired || newest[k.trigger] < keepPer {
			keep[k] = true
			newest[k.trigger]++
		}
	}
	lastPlain := map[string]int{} // trigger+state → index of its newest id-less line
	for i, f := range all {
		if f.ID == "" {
			lastPlain[f.Trigger+"\x00"+f.State] = i
		}
	}
	var out []Firing
	for i, f := range all {
		if keep[fid{f.Trigger, f.ID}] || (f.ID == "" && lastPlain[f.Trigger+"\x00"+f.State] == i) {
			out = append(out, f)
		}
	}
	return out
}

// append writes one line and syncs it.
func (r *record) append(f Firing) error {
	line, err := json.Marshal(f)
	if err != nil {
		return err
	}
	if _, err := r.f.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("record a trigger firing: %w", err)
	}
	if err := r.f.Sync(); err != nil {
		return fmt.Errorf("record a trigger firing: %w", err)
	}
	return nil
}

func (r *record) close() error { return r.f.Close() }
