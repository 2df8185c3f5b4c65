package instances

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/atelier-studio/atelier/sessions"
)

// An apply is journalled so that a crash never leaves half of it:
//
//  1. every new content is staged under .meta/apply-<n>/ (fsynced);
//  2. the journal .meta/apply-<n>.json is written atomically, listing each
//     file with the id it had before and the id it gets: from here on the
//     apply is decided, and a recovery finishes it;
//  3. the workspace files are written (each atomically);
//  4. the Commit hook records the apply, and the journal is marked
//     committed; 5. the journal and the staging are removed.
//
// A crash before 2 leaves only staging, which the next Open removes: the
// apply is rolled back, nothing having been written. A crash after 2 is
// finished by the next Open: each file still as it was before is written,
// each already written is left, and a file that is neither (the operator
// changed it meanwhile) is left alone and reported.

type journal struct {
	ID       string         `json:"id"`
	Instance string         `json:"instance"`
	Kind     Kind           `json:"kind"`
	State    string         `json:"state"` // "applying" or "committed"
	Files    []journalEntry `json:"files"`
}

type journalEntry struct {
	Path   string `json:"path"`
	Status Status `json:"status"`
	Merged bool   `json:"merged,omitempty"`
	Mode   uint32 `json:"mode,omitempty"`
	Before string `json:"before,omitempty"` // blob id the workspace had ("" none)
	After  string `json:"after,omitempty"`  // blob id written ("" removal)
	Stage  string `json:"stage,omitempty"`  // staged content's file name
	// BeforeMode and Backup keep what the workspace had, to roll back.
	BeforeMode uint32 `json:"before_mode,omitempty"`
	Backup     string `json:"backup,omitempty"`
}

const (
	stateApplying  = "applying"
	stateCommitted = "committed"
)

// errCrash is the failure a test injects to stop an apply dead.
var errCrash = errors.New("injected crash")

func (m *Manager) journalPath(jid string) string {
	return filepath.Join(m.dir, metaDir, "apply-"+jid+".json")
}

func (m *Manager) stagePath(jid string) string {
	return filepath.Join(m.dir, metaDir, "apply-"+jid)
}

// write performs a planned apply (steps 1 to 5 above) under the lease.
func (m *Manager) write(in Instance, res *ApplyResult) error {
	var rb [8]byte
	if _, err := rand.Read(rb[:]); err != nil {
		return err
	}
	j := journal{ID: hex.EncodeToString(rb[:]), Instance: in.ID, Kind: in.Kind, State: stateApplying}
	stage := m.stagePath(j.ID)
	if err := os.Mkdir(stage, 0o700); err != nil {
		return err
	}
	for i, f := range res.Files {
		before, err := readState(m.wsPath(f.Path))
		if err != nil {
			return m.abandon(j.ID, err)
		}
		e := journalEntry{Path: f.Path, Status: f.Status, Merged: f.Merged, Mode: f.Mode, Before: before.ID, BeforeMode: before.Mode}
		if before.ID != "" {
			e.Backup = "b" + strconv.Itoa(i)
			if err := writeSynced(filepath.Join(stage, e.Backup), before.Data); err != nil {
				return m.abandon(j.ID, err)
			}
		}
		if f.Status != Removed {
			e.After, e.Stage = blobID(f.Content), strconv.Itoa(i)
			if err := writeSynced(filepath.Join(stage, e.Stage), f.Content); err != nil {
				return m.abandon(j.ID, err)
			}
		}
		j.Files = append(j.Files, e)
	}
	if err := syncDir(stage); err != nil {
		return m.abandon(j.ID, err)
	}
	release, err := m.lease(paths(res.Files))
	if err != nil {
		return m.abandon(j.ID, err)
	}
	defer release()
	if err := m.saveJournal(j); err != nil {
		return m.abandon(j.ID, err)
	}
	left, err := m.finish(j, m.inject)
	if errors.Is(err, errCrash) {
		return err // as a kill -9 would: the journal stays, Open finishes it
	}
	if err != nil {
		if _, rerr := m.rollback(j); rerr != nil {
			return fmt.Errorf("%w; rolling back failed too (%w): the next open tries again", err, rerr)
		}
		return m.abandon(j.ID, fmt.Errorf("%w (rolled back: nothing was applied)", err))
	}
	for _, p := range left {
		res.Unmerged = append(res.Unmerged, Unmerged{p, "the operator changed it during the apply"})
	}
	res.CommitErr = m.commit(&j)
	return m.cleanup(j.ID)
}

// lease calls the Lease hook, if any.
func (m *Manager) lease(ps []string) (func(), error) {
	if m.opt.Hooks.Lease == nil {
		return func() {}, nil
	}
	release, err := m.opt.Hooks.Lease(ps)
	if err != nil {
		return nil, fmt.Errorf("take the workspace's write lease: %w", err)
	}
	if release == nil {
		release = func() {}
	}
	return release, nil
}

// finish writes the journal's files into the workspace (idempotently);
// left lists those the operator changed meanwhile, which it leaves.
// inject, in tests, may fail it before file n.
func (m *Manager) finish(j journal, inject func(n int) error) (left []string, err error) {
	stage := m.stagePath(j.ID)
	for n, e := range j.Files {
		if inject != nil {
			if err := inject(n); err != nil {
				return left, err
			}
		}
		now, err := readState(m.wsPath(e.Path))
		if err != nil {
			return left, err
		}
		switch {
		case now.ID == e.After && (e.After == "" || now.Mode == e.Mode):
			continue // written before a crash
		case now.ID != e.Before:
			left = append(left, e.Path)
			continue
		}
		if e.Status == Removed {
			err = m.removeFile(e.Path)
		} else {
			var data []byte
			if data, err = os.ReadFile(filepath.Join(stage, e.Stage)); err == nil {
				err = m.writeFile(e.Path, data, e.Mode)
			}
		}
		if err != nil {
			return left, fmt.Errorf("write %s: %w", e.Path, err)
		}
	}
	return left, nil
}

// rollback restores the files an interrupted apply wrote from their
// backups; left lists those the operator changed meanwhile, left alone.
func (m *Manager) rollback(j journal) (left []string, err error) {
	stage := m.stagePath(j.ID)
	for _, e := range j.Files {
		now, err := readState(m.wsPath(e.Path))
		if err != nil {
			return left, err
		}
		switch {
		case now.ID == e.Before && now.Mode == e.BeforeMode:
			continue // not written
		case now.ID != e.After:
			left = append(left, e.Path)
			continue
		}
		if e.Before == "" {
			err = m.removeFile(e.Path)
		} else {
			var data []byte
			if data, err = os.ReadFile(filepath.Join(stage, e.Backup)); err == nil {
				err = m.writeFile(e.Path, data, e.BeforeMode)
			}
		}
		if err != nil {
			return left, fmt.Errorf("restore %s: %w", e.Path, err)
		}
	}
	return left, nil
}

// commit calls the Commit hook and marks the journal committed.
func (m *Manager) commit(j *journal) error {
	var cerr error
	if m.opt.Hooks.Commit != nil {
		p := Provenance{Apply: j.ID, Instance: j.Instance, Kind: j.Kind}
		for _, e := range j.Files {
			p.Files = append(p.Files, AppliedFile{Path: e.Path, Status: e.Status, Merged: e.Merged, Mode: e.Mode})
		}
		cerr = m.opt.Hooks.Commit(p)
	}
	j.State = stateCommitted
	if err := m.saveJournal(*j); err != nil && cerr == nil {
		cerr = err
	}
	return cerr
}

func (m *Manager) saveJournal(j journal) error {
	b, err := json.Marshal(j)
	if err != nil {
		return err
	}
	return sessions.WriteFileAtomic(m.journalPath(j.ID), b, 0o600)
}

// abandon removes the staging of an apply that never started writing.
func (m *Manager) abandon(jid string, err error) error {
	if cerr := m.cleanup(jid); cerr != nil {
		return fmt.Errorf("%w (and removing its staging: %w)", err, cerr)
	}
	return err
}

func (m *Manager) cleanup(jid string) error {
	if err := os.Remove(m.journalPath(jid)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return os.RemoveAll(m.stagePath(jid))
}

// Recovered describes an apply a crash interrupted and Open finished.
type Recovered struct {
	Apply    string
	Instance string
	// Left lists files the operator changed after the crash, left as
	// they are.
	Left []string
	// RolledBack: the apply could not be finished (Err says why) and was
	// undone instead; nothing was committed.
	RolledBack bool
	Err        error
}

// recoverApply finishes every journalled apply and removes the staging of
// those that had not started (rolled back: nothing was written).
func (m *Manager) recoverApply() error {
	meta := filepath.Join(m.dir, metaDir)
	ents, err := os.ReadDir(meta)
	if err != nil {
		return err
	}
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, "apply-") {
			continue
		}
		jid := strings.TrimSuffix(strings.TrimPrefix(name, "apply-"), ".json")
		if e.IsDir() {
			if _, err := os.Stat(m.journalPath(jid)); errors.Is(err, fs.ErrNotExist) {
				if err := os.RemoveAll(filepath.Join(meta, name)); err != nil {
					return fmt.Errorf("roll back apply %s: %w", jid, err)
				}
			}
			continue
		}
		r, err := m.recoverOne(jid)
		if err != nil {
			return fmt.Errorf("finish apply %s: %w", jid, err)
		}
		m.recovered = append(m.recovered, r)
	}
	return nil
}

func (m *Manager) recoverOne(jid string) (Recovered, error) {
	b, err := os.ReadFile(m.journalPath(jid))
	if err != nil {
		return Recovered{}, err
	}
	var j journal
	if err := json.Unmarshal(b, &j); err != nil {
		return Recovered{}, err
	}
	r := Recovered{Apply: j.ID, Instance: j.Instance}
	if j.State == stateApplying {
		release, err := m.lease(journalPaths(j))
		if err != nil {
			return r, err
		}
		left, err := m.finish(j, nil)
		if err != nil {
			r.RolledBack, r.Err = true, err
			left, err = m.rollback(j)
		} else {
			err = m.commit(&j)
		}
		release()
		if err != nil {
			return r, err
		}
		r.Left = left
	}
	return r, m.cleanup(jid)
}

// Recovered lists the applies the last Open finished.
func (m *Manager) Recovered() []Recovered { return m.recovered }

func journalPaths(j journal) []string {
	out := make([]string, len(j.Files))
	for i, e := range j.Files {
		out[i] = e.Path
	}
	return out
}
