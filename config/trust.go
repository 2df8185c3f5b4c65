package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// TrustFileName is the file, next to the user's config.toml, that records
// which workspace files the operator trusted. It is a separate file because
// config.toml is the user's to write and Atelier never rewrites it; it is
// JSON because only Atelier writes it, and the standard library reads and
// writes JSON without a schema of our own.
const TrustFileName = "trusted.json"

// TrustState says whether a workspace file is obeyed.
type TrustState string

// The trust states of a workspace.
const (
	TrustNone      TrustState = "none"      // the workspace has no .atelier.toml
	TrustUntrusted TrustState = "untrusted" // it has one the operator never trusted
	TrustTrusted   TrustState = "trusted"   // trusted with exactly this content
	TrustChanged   TrustState = "changed"   // trusted once, but its content changed since
)

// TrustStore records trusted workspace files: each file's absolute path,
// the SHA-256 of the content the operator trusted, and (up to 64 KiB) that
// content, so a review shows what changed since. Any change to the file
// makes it untrusted again. Writes are atomic and serialized between
// processes by a lock file.
type TrustStore struct {
	path string
}

// NewTrustStore returns the store kept in the file at path.
func NewTrustStore(path string) *TrustStore { return &TrustStore{path: path} }

// Path returns the store's file.
func (s *TrustStore) Path() string { return s.path }

// trustDoc is the content of the trust file.
type trustDoc struct {
	Version int                   `json:"version"`
	Files   map[string]trustEntry `json:"files"`
}

type trustEntry struct {
	SHA256    string    `json:"sha256"`
	TrustedAt time.Time `json:"trusted_at"`
	// Content is the content trusted (base64 in the file), kept so that
	// the next review shows what changed since; left out above
	// maxKeptContent, and in entries written before it was kept.
	Content []byte `json:"content,omitempty"`
}

// maxKeptContent bounds the trusted content the store keeps per file: a
// workspace config is a few kilobytes; a larger one is shown whole when it
// changes, not as a diff.
const maxKeptContent = 64 << 10

const trustVersion = 1

// WorkspaceFile returns the absolute path of a workspace's .atelier.toml,
// with symbolic links in the workspace path resolved, so one workspace has
// one identity however it is reached.
func WorkspaceFile(workspace string) (string, error) {
	abs, err := filepath.Abs(workspace)
	if err != nil {
		return "", fmt.Errorf("workspace path %s: %w", workspace, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return filepath.Join(abs, WorkspaceFileName), nil
}

// Digest returns the hex SHA-256 of a workspace file's content, as the
// store records it; show it with the content when asking the operator.
func Digest(content []byte) string {
	sum := sha256.Sum256(content)
	return hex.EncodeToString(sum[:])
}

// State reports whether the workspace's file is trusted as it is now.
func (s *TrustStore) State(workspace string) (TrustState, error) {
	file, err := WorkspaceFile(workspace)
	if err != nil {
		return "", err
	}
	data, found, err := readTrusted(file)
	if err != nil {
		return "", fmt.Errorf("trust state of %s: %w", file, err)
	}
	if !found {
		return TrustNone, nil
	}
	return s.stateOf(file, data)
}

// stateOf compares content already read with what was trusted.
func (s *TrustStore) stateOf(file string, content []byte) (TrustState, error) {
	doc, err := s.read()
	if err != nil {
		return "", err
	}
	e, ok := doc.Files[file]
	switch {
	case !ok:
		return TrustUntrusted, nil
	case e.SHA256 != Digest(content):
		return TrustChanged, nil
	}
	return TrustTrusted, nil
}

// Review is a workspace file as the operator must see it before trusting
// it: its content now and its digest, and what was trusted before.
type Review struct {
	File    string     // the file's absolute path
	Content []byte     // its content now
	Digest  string     // the digest of Content: give it to TrustDigest
	State   TrustState // TrustUntrusted, TrustChanged or TrustTrusted
	// Previous is the content trusted last when the file changed since and
	// the store kept it (nil otherwise): show the change as a diff.
	Previous []byte
	// TrustedAt is when the file was last trusted (zero if never).
	TrustedAt time.Time
	// Covers names the files in Content, relative to the workspace:
	// .atelier.toml (when it exists), then each file under .atelier/.
	Covers []string
}

// Review reads the workspace's file and what the store knows of it, to
// show the operator before TrustDigest. A workspace without the file gives
// ErrNoWorkspaceFile.
func (s *TrustStore) Review(workspace string) (Review, error) {
	file, err := WorkspaceFile(workspace)
	if err != nil {
		return Review{}, fmt.Errorf("review: %w", err)
	}
	data, covers, found, err := readTrustedOf(file)
	if err != nil {
		return Review{}, fmt.Errorf("review %s: %w", file, err)
	}
	if !found {
		return Review{}, fmt.Errorf("review %s: %w", file, ErrNoWorkspaceFile)
	}
	doc, err := s.read()
	if err != nil {
		return Review{}, err
	}
	r := Review{File: file, Content: data, Digest: Digest(data), State: TrustUntrusted, Covers: covers}
	e, ok := doc.Files[file]
	switch {
	case !ok:
		return r, nil
	case e.SHA256 == r.Digest:
		r.State = TrustTrusted
	default:
		r.State = TrustChanged
		if e.Content != nil && Digest(e.Content) == e.SHA256 {
			r.Previous = e.Content
		}
	}
	r.TrustedAt = e.TrustedAt
	return r, nil
}

// Trust trusts the workspace's file with its current content.
func (s *TrustStore) Trust(workspace string) error {
	return s.TrustDigest(workspace, "")
}

// TrustDigest trusts the workspace's file only if its content still has the
// digest the operator was shown (see Digest); otherwise it returns
// ErrDigestMismatch and changes nothing. An empty digest trusts whatever
// the file holds now.
func (s *TrustStore) TrustDigest(workspace, digest string) error {
	file, err := WorkspaceFile(workspace)
	if err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	data, found, err := readTrusted(file)
	if err != nil {
		return fmt.Errorf("trust %s: %w", file, err)
	}
	if !found {
		return fmt.Errorf("trust %s: %w", file, ErrNoWorkspaceFile)
	}
	sum := Digest(data)
	if digest != "" && digest != sum {
		return fmt.Errorf("trust %s: %w", file, ErrDigestMismatch)
	}
	e := trustEntry{SHA256: sum, TrustedAt: time.Now().UTC()}
	if len(data) <= maxKeptContent {
		e.Content = data
	}
	return s.update(func(doc *trustDoc) bool {
		doc.Files[file] = e
		return true
	})
}

// Distrust forgets the workspace's file; its settings are ignored again.
// Distrusting a file that was not trusted does nothing.
func (s *TrustStore) Distrust(workspace string) error {
	file, err := WorkspaceFile(workspace)
	if err != nil {
		return fmt.Errorf("distrust: %w", err)
	}
	return s.update(func(doc *trustDoc) bool {
		if _, ok := doc.Files[file]; !ok {
			return false
		}
		delete(doc.Files, file)
		return true
	})
}

// read loads the store; a missing file is an empty store.
func (s *TrustStore) read() (*trustDoc, error) {
	doc := &trustDoc{Version: trustVersion, Files: map[string]trustEntry{}}
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return doc, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read trust file: %w", err)
	}
	if err := json.Unmarshal(data, doc); err != nil {
		return nil, fmt.Errorf("read trust file %s: %w", s.path, err)
	}
	if doc.Version != trustVersion {
		return nil, fmt.Errorf("read trust file %s: unknown version %d", s.path, doc.Version)
	}
	if doc.Files == nil {
		doc.Files = map[string]trustEntry{}
	}
	return doc, nil
}

// update changes the store under the lock and writes it back atomically
// when change reports a change. A store that cannot be read is left as it
// is: the operator decides what to do with it.
func (s *TrustStore) update(change func(*trustDoc) bool) error {
	return updateJSON(s.path, "trust file", s.read, change)
}

// updateJSON is the read-modify-write of the JSON documents config keeps
// beside config.toml (the trust file, the workspace rules): under the
// file's lock, read reads it, change edits it, and the document is written
// back atomically when change reports a change. A document that cannot be
// read is left as it is. what names the file in errors.
func updateJSON[T any](path, what string, read func() (*T, error), change func(*T) bool) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("update %s: %w", what, err)
	}
	unlock, err := lockFile(path + ".lock")
	if err != nil {
		return fmt.Errorf("update %s: %w", what, err)
	}
	defer unlock()
	doc, err := read()
	if err != nil {
		return fmt.Errorf("update %s: %w", what, err)
	}
	if !change(doc) {
		return nil
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err == nil {
		err = writeAtomic(path, append(data, '\n'))
	}
	if err != nil {
		return fmt.Errorf("update %s: %w", what, err)
	}
	return nil
}

// writeAtomic replaces path with data: a temporary file in the same
// directory, synced, renamed over path, and the directory synced, so a
// crash leaves either the old file or the new one.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	name := tmp.Name()
	// After the rename this finds nothing; before it, a leftover temporary
	// file is harmless.
	defer func() { _ = os.Remove(name) }()
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close() // the failure above is the one to report
		return err
	}
	if err := tmp.Chmod(0o600); err != nil {
		_ = tmp.Close() // the failure above is the one to report
		return err
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close() // the failure above is the one to report
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(name, path); err != nil {
		return err
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()  // best effort: not every filesystem syncs directories
		_ = d.Close() // only read
	}
	return nil
}
