package instances

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	"github.com/atelier-studio/atelier/files"
)

// Kind says how an instance was made.
type Kind string

const (
	// Worktree is a git worktree of the workspace's repository on its own
	// branch atelier/<id>, made from HEAD plus the operator's changes.
	Worktree Kind = "worktree"
	// Copy is a copy of the workspace folder (git or not) without .state/,
	// ignored files and the omitted heavy folders.
	Copy Kind = "copy"
)

// DefaultOmit names the heavy folders a copy leaves out, wherever they are.
var DefaultOmit = []string{"node_modules", ".venv", "target", "dist"}

// BranchPrefix starts the name of every worktree instance's branch.
const BranchPrefix = "atelier/"

// Instance is one registered instance of a workspace.
type Instance struct {
	ID   string `json:"id"`
	Kind Kind   `json:"kind"`
	// Path is the instance's folder, outside the workspace.
	Path string `json:"path"`
	// Base is the commit a worktree instance was made from (the snapshot
	// of HEAD plus the operator's changes). A copy has no commit: its base
	// is the manifest of file hashes kept beside the registry.
	Base string `json:"base,omitempty"`
	// Head is the workspace's HEAD when a worktree instance was made.
	Head string `json:"head,omitempty"`
	// Branch is a worktree instance's branch (atelier/<id>).
	Branch  string    `json:"branch,omitempty"`
	Created time.Time `json:"created"`
	// Ready is false while the instance is being made; an instance left
	// unready by a crash is removed on the next Open.
	Ready bool `json:"ready"`
}

// Options configure a Manager.
type Options struct {
	// StateID is the workspace's state id (sessions.Store.Trust().ID): it
	// names the folder of the workspace's instances, so a workspace that
	// moves keeps them.
	StateID string
	// Root is the folder holding every workspace's instances; "" means
	// DefaultRoot().
	Root string
	// Include lists patterns (.gitignore syntax) of ignored files that an
	// instance carries anyway (".env"); they stay ignored there, out of
	// every diff and apply.
	Include []string
	// Omit names the folders a copy leaves out; nil means DefaultOmit.
	Omit []string
	// NoReflink makes copies plain copies even where the filesystem
	// could clone (to measure the slow path).
	NoReflink bool
	// Hooks are where the engine acts during Apply and its recovery.
	Hooks Hooks
}

// Hooks let the engine take part in an Apply without this package
// importing it.
type Hooks struct {
	// Lease is called before any workspace file is written, with the
	// workspace-relative paths about to be written; the engine takes the
	// workspace's write lease and returns its release. nil: no lease.
	Lease func(paths []string) (release func(), err error)
	// Commit is called once the files are written, with their provenance;
	// the engine writes the history commit ("applied instance X"). nil:
	// nothing is recorded. An error is reported but the files stay.
	Commit func(Provenance) error
}

// Manager makes, inspects, applies and removes the instances of one
// workspace. Its methods are safe for concurrent use within one process;
// the engine (one per workspace) is the only process that should hold one.
type Manager struct {
	workspace string // absolute, symlinks resolved
	dir       string // <root>/<state id>: the instances and their metadata
	opt       Options

	mu sync.Mutex // serialises registry changes and applies

	// inject, set by tests, fails an apply before its file n: errCrash
	// stops it dead (as kill -9 would), another error is a write failure.
	inject func(n int) error

	// recovered lists the applies Open finished.
	recovered []Recovered
}

var (
	idPattern    = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)
	statePattern = regexp.MustCompile(`^[0-9a-f]{32}$`)
)

// ErrNotFound is returned for an id that names no instance.
var ErrNotFound = errors.New("no such instance")

// DefaultRoot is $XDG_DATA_HOME/atelier/instances, else
// ~/.local/share/atelier/instances.
func DefaultRoot() (string, error) {
	if x := os.Getenv("XDG_DATA_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "atelier", "instances"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find the user's data directory: %w", err)
	}
	return filepath.Join(home, ".local", "share", "atelier", "instances"), nil
}

// Open returns the manager of workspace's instances, and finishes or
// rolls back an apply a crash interrupted and removes instances a crash
// left half made (so call it before anything else writes the workspace).
func Open(workspace string, opt Options) (*Manager, error) {
	if !statePattern.MatchString(opt.StateID) {
		return nil, fmt.Errorf("open instances: state id %q is not a state id", opt.StateID)
	}
	ws, err := filepath.Abs(workspace)
	if err == nil {
		ws, err = filepath.EvalSymlinks(ws)
	}
	if err != nil {
		return nil, fmt.Errorf("open instances of %s: %w", workspace, err)
	}
	if fi, err := os.Stat(ws); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("open instances of %s: not a folder", workspace)
	}
	root := opt.Root
	if root == "" {
		if root, err = DefaultRoot(); err != nil {
			return nil, err
		}
	}
	if !filepath.IsAbs(root) {
		return nil, fmt.Errorf("open instances: root %q is not an absolute path", root)
	}
	dir := filepath.Join(root, opt.StateID)
	if within(ws, dir) {
		return nil, fmt.Errorf("open instances: root %s is inside the workspace", root)
	}
	if opt.Omit == nil {
		opt.Omit = DefaultOmit
	}
	if err := os.MkdirAll(filepath.Join(dir, metaDir), 0o700); err != nil {
		return nil, fmt.Errorf("open instances: %w", err)
	}
	m := &Manager{workspace: ws, dir: dir, opt: opt}
	if err := m.recoverApply(); err != nil {
		return nil, err
	}
	if err := m.removeUnready(); err != nil {
		return nil, err
	}
	return m, nil
}

// Workspace is the workspace folder the manager's instances are of.
func (m *Manager) Workspace() string { return m.workspace }

// Dir is the folder holding this workspace's instances.
func (m *Manager) Dir() string { return m.dir }

// include compiles the include patterns, nil when there are none.
func (m *Manager) include() *files.Ignore {
	if len(m.opt.Include) == 0 {
		return nil
	}
	inc := files.NewIgnore()
	inc.AddPatterns(m.opt.Include...)
	return inc
}

// within reports whether p is dir or inside it.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !filepath.IsAbs(rel) && (rel == "." || len(rel) < 3 || rel[:3] != "../")
}

// checkID refuses an id that could not name a folder and a branch.
func checkID(id string) error {
	if !idPattern.MatchString(id) {
		return fmt.Errorf("instance id %q: use 1 to 64 lower-case letters, digits, '-' or '_'", id)
	}
	return nil
}
