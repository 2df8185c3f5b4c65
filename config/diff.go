package config

import (
	"path/filepath"
	"slices"
	"strings"
)

// A running engine host reloads its configuration when a file of it
// changes. It applies only what differs, each part at its own boundary, so
// it needs to know what differs: Compare says it, by key and by trigger.

// Change is how one configuration differs from another.
type Change struct {
	// Keys are the effective keys (Effective's, secrets masked) whose value
	// was added, removed or changed, sorted; triggers are not among them
	// but in the three lists below.
	Keys []string
	// Armed, Disarmed and Rearmed name the triggers that are new, gone, or
	// written differently (their condition or action; not where they are
	// written).
	Armed, Disarmed, Rearmed []string
}

// Empty reports whether nothing differs.
func (c Change) Empty() bool {
	return len(c.Keys) == 0 && len(c.Armed) == 0 && len(c.Disarmed) == 0 && len(c.Rearmed) == 0
}

// TriggersChanged reports whether any trigger was added, removed or
// changed.
func (c Change) TriggersChanged() bool {
	return len(c.Armed) > 0 || len(c.Disarmed) > 0 || len(c.Rearmed) > 0
}

// Compare says how next differs from prev. Where a value is written (its
// file and line) is no difference: moving a key from one file to the other
// changes nothing in force.
func Compare(prev, next *Config) Change {
	var ch Change
	before := map[string]string{}
	for _, e := range prev.Effective() {
		if !strings.HasPrefix(e.Key, "triggers.") {
			before[e.Key] = e.Value
		}
	}
	after := map[string]string{}
	for _, e := range next.Effective() {
		if strings.HasPrefix(e.Key, "triggers.") {
			continue
		}
		after[e.Key] = e.Value
		if v, ok := before[e.Key]; !ok || v != e.Value {
			ch.Keys = append(ch.Keys, e.Key)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			ch.Keys = append(ch.Keys, k)
		}
	}
	slices.Sort(ch.Keys)

	old := map[string]Trigger{}
	for _, t := range prev.Triggers {
		old[t.Name] = t
	}
	seen := map[string]bool{}
	for _, t := range next.Triggers {
		seen[t.Name] = true
		o, ok := old[t.Name]
		switch {
		case !ok:
			ch.Armed = append(ch.Armed, t.Name)
		case !sameTrigger(o, t):
			ch.Rearmed = append(ch.Rearmed, t.Name)
		}
	}
	for _, t := range prev.Triggers {
		if !seen[t.Name] {
			ch.Disarmed = append(ch.Disarmed, t.Name)
		}
	}
	return ch
}

// sameTrigger compares what a trigger says, as written.
func sameTrigger(a, b Trigger) bool {
	return a.OnEvent == b.OnEvent && a.Schedule == b.Schedule && a.OnChange == b.OnChange &&
		a.Agent == b.Agent && a.Prompt == b.Prompt && a.Workflow == b.Workflow && a.Input == b.Input
}

// Watched are the files whose change can change the configuration Load
// reads with o: the user's config.toml, the trust file beside it, and the
// workspace's .atelier.toml when o names a workspace. A file that cannot be
// located (no configuration folder) is left out; none of them needs to
// exist.
func (o LoadOptions) Watched() []string {
	var out []string
	if user, err := o.UserFile(); err == nil {
		out = append(out, user, filepath.Join(filepath.Dir(user), TrustFileName))
	}
	if o.Workspace != "" {
		if ws, err := WorkspaceFile(o.Workspace); err == nil {
			out = append(out, ws)
		}
	}
	return out
}
