package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// Workspace rules. "Always allow this command in this workspace" (W on an
// approval, in the studio) is kept for the user, per workspace, in
// workspace-rules.json next to config.toml: a file of its own, machine
// written, so config.toml is never rewritten. The engine allows a call a
// rule matches, after the agent's own rules (a deny there still denies)
// and before the approval policy, and says which rule did; the settings
// tab lists them and removes one.

// RulesFileName is the workspace rules' file, in the user's config folder.
const RulesFileName = "workspace-rules.json"

// WorkspaceRule always allows the calls of Tool whose subject (the command
// line, the path) is exactly Subject, in one workspace.
type WorkspaceRule struct {
	Tool    string    `json:"tool"`
	Subject string    `json:"subject"`
	Added   time.Time `json:"added"`
}

// String is the rule as the studio shows it: "exec `go test ./...`".
func (r WorkspaceRule) String() string {
	if r.Tool == "exec" {
		return r.Tool + " `" + r.Subject + "`"
	}
	return r.Tool + " " + r.Subject
}

type rulesDoc struct {
	Version    int                        `json:"version"`
	Workspaces map[string][]WorkspaceRule `json:"workspaces"`
}

// RulesStore is the workspace rules' file.
type RulesStore struct{ path string }

// NewRulesStore returns the store kept at path.
func NewRulesStore(path string) *RulesStore { return &RulesStore{path: path} }

// RulesStore returns the store next to the user's config file.
func (o LoadOptions) RulesStore() (*RulesStore, error) {
	user, err := o.UserFile()
	if err != nil {
		return nil, fmt.Errorf("open the workspace rules: %w", err)
	}
	return NewRulesStore(filepath.Join(filepath.Dir(user), RulesFileName)), nil
}

// Path is the store's file.
func (s *RulesStore) Path() string { return s.path }

// Rules returns workspace's rules, oldest first.
func (s *RulesStore) Rules(workspace string) ([]WorkspaceRule, error) {
	doc, err := s.read()
	if err != nil {
		return nil, err
	}
	return doc.Workspaces[workspace], nil
}

// Allows returns the rule of workspace that allows a call of tool on
// subject, if one does.
func (s *RulesStore) Allows(workspace, tool, subject string) (WorkspaceRule, bool, error) {
	rules, err := s.Rules(workspace)
	if err != nil {
		return WorkspaceRule{}, false, err
	}
	for _, r := range rules {
		if r.Tool == tool && r.Subject == subject {
			return r, true, nil
		}
	}
	return WorkspaceRule{}, false, nil
}

// Add keeps a rule for workspace; the same rule twice is kept once.
func (s *RulesStore) Add(workspace string, r WorkspaceRule) error {
	if r.Tool == "" || r.Subject == "" {
		return errors.New("add a workspace rule: a tool and a subject are needed")
	}
	return s.update(func(doc *rulesDoc) bool {
		for _, x := range doc.Workspaces[workspace] {
			if x.Tool == r.Tool && x.Subject == r.Subject {
				return false
			}
		}
		doc.Workspaces[workspace] = append(doc.Workspaces[workspace], r)
		return true
	})
}

// Remove drops workspace's rule for tool on subject.
func (s *RulesStore) Remove(workspace, tool, subject string) error {
	return s.update(func(doc *rulesDoc) bool {
		rules := doc.Workspaces[workspace]
		i := slices.IndexFunc(rules, func(x WorkspaceRule) bool { return x.Tool == tool && x.Subject == subject })
		if i < 0 {
			return false
		}
		doc.Workspaces[workspace] = slices.Delete(rules, i, i+1)
		if len(doc.Workspaces[workspace]) == 0 {
			delete(doc.Workspaces, workspace)
		}
		return true
	})
}

func (s *RulesStore) read() (*rulesDoc, error) {
	doc := &rulesDoc{Version: 1, Workspaces: map[string][]WorkspaceRule{}}
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return doc, nil
	}
	if err == nil {
		err = json.Unmarshal(data, doc)
	}
	if err == nil && doc.Version != 1 {
		err = fmt.Errorf("unknown version %d", doc.Version)
	}
	if err != nil {
		return nil, fmt.Errorf("read the workspace rules %s: %w", s.path, err)
	}
	if doc.Workspaces == nil {
		doc.Workspaces = map[string][]WorkspaceRule{}
	}
	return doc, nil
}

// update changes the file under its lock and writes it back atomically;
// a file that cannot be read is left for the operator.
func (s *RulesStore) update(change func(*rulesDoc) bool) error {
	return updateJSON(s.path, "the workspace rules", s.read, change)
}
