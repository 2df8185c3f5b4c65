package workflow

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/workflow/runs"
)

// WorkspaceDir is where a workspace keeps its workflows, relative to it.
// It is under .atelier/, which agents cannot write without the operator
// (a protected path) and which `atelier trust` covers.
const WorkspaceDir = ".atelier/workflows"

// Finder finds workflows: the workspace's (obeyed only while the
// operator's trust covers them as they are) and the user's own, in
// workflows/ beside config.toml (trusted: the user wrote them). A
// workspace workflow shadows a user one of the same name.
type Finder struct {
	Workspace string
	// UserDir is the folder of the user's config.toml; "" for none.
	UserDir string
	// Trust says whether the workspace's files (.atelier.toml and
	// .atelier/) are trusted as they are now (config.TrustStore.State).
	Trust func() (config.TrustState, error)
}

// Load finds the workflow called name and parses it. A workspace workflow
// is refused unless trusted as it is now.
func (f Finder) Load(name string) (*Workflow, error) {
	if !namePattern.MatchString(name) {
		return nil, &UnusableError{Msg: fmt.Sprintf("%q is not a workflow name", name)}
	}
	for _, src := range f.candidates(name) {
		data, err := os.ReadFile(src.File)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read workflow %s: %w", src.File, err)
		}
		if src.Workspace {
			if err := f.checkTrust(src.File); err != nil {
				return nil, err
			}
		}
		return Parse(name, src.File, data)
	}
	return nil, fmt.Errorf("workflow %q: %w (looked in %s)", name, ErrNotFound, strings.Join(f.dirs(), " and "))
}

// checkTrust refuses a workspace workflow the operator did not trust as it
// is now.
func (f Finder) checkTrust(file string) error {
	if f.Trust == nil {
		return fmt.Errorf("%s: %w: run `atelier trust` to review and trust the workspace's files", file, ErrUntrusted)
	}
	st, err := f.Trust()
	if err != nil {
		return fmt.Errorf("%s: cannot check trust: %w", file, err)
	}
	switch st {
	case config.TrustTrusted:
		return nil
	case config.TrustChanged:
		return fmt.Errorf("%s: %w: the workspace's files changed since they were trusted; run `atelier trust` to review them", file, ErrUntrusted)
	}
	return fmt.Errorf("%s: %w: run `atelier trust` to review and trust the workspace's files", file, ErrUntrusted)
}

func (f Finder) dirs() []string {
	d := []string{filepath.Join(f.Workspace, WorkspaceDir)}
	if f.UserDir != "" {
		d = append(d, filepath.Join(f.UserDir, "workflows"))
	}
	return d
}

func (f Finder) candidates(name string) []runs.Source {
	var out []runs.Source
	for i, d := range f.dirs() {
		out = append(out, runs.Source{Name: name, File: filepath.Join(d, name+".toml"), Workspace: i == 0})
	}
	return out
}

// List lists the workflow files of both places, by name; a workspace one
// hides a user one of the same name.
func (f Finder) List() ([]runs.Source, error) {
	seen := map[string]bool{}
	var out []runs.Source
	for i, d := range f.dirs() {
		ents, err := os.ReadDir(d)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("list workflows: %w", err)
		}
		for _, e := range ents {
			name, ok := strings.CutSuffix(e.Name(), ".toml")
			if !ok || !e.Type().IsRegular() || seen[name] || !namePattern.MatchString(name) {
				continue
			}
			seen[name] = true
			out = append(out, runs.Source{Name: name, File: filepath.Join(d, e.Name()), Workspace: i == 0})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
