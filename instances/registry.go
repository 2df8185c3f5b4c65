package instances

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/atelier-studio/atelier/sessions"
)

// metaDir, under the manager's folder, holds the registry, the copies'
// manifests and the apply journal; the instances are its siblings, and an
// id cannot start with a dot, so no instance is ever named like it.
const metaDir = ".meta"

// registryFile lists the workspace's instances.
const registryFile = "registry.json"

type registry struct {
	Instances []Instance `json:"instances"`
}

func (m *Manager) registryPath() string { return filepath.Join(m.dir, metaDir, registryFile) }

// load reads the registry; a missing one is empty.
func (m *Manager) load() (registry, error) {
	var r registry
	b, err := os.ReadFile(m.registryPath())
	if errors.Is(err, os.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return r, fmt.Errorf("read the instance registry: %w", err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("read the instance registry %s: %w", m.registryPath(), err)
	}
	return r, nil
}

// save replaces the registry atomically (a crash leaves the old or the new).
func (m *Manager) save(r registry) error {
	sort.Slice(r.Instances, func(i, j int) bool { return r.Instances[i].ID < r.Instances[j].ID })
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := sessions.WriteFileAtomic(m.registryPath(), append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("write the instance registry: %w", err)
	}
	return nil
}

// put adds or replaces one instance in the registry.
func (m *Manager) put(in Instance) error {
	r, err := m.load()
	if err != nil {
		return err
	}
	for i := range r.Instances {
		if r.Instances[i].ID == in.ID {
			r.Instances[i] = in
			return m.save(r)
		}
	}
	r.Instances = append(r.Instances, in)
	return m.save(r)
}

// drop removes one instance from the registry.
func (m *Manager) drop(id string) error {
	r, err := m.load()
	if err != nil {
		return err
	}
	out := r.Instances[:0]
	for _, in := range r.Instances {
		if in.ID != id {
			out = append(out, in)
		}
	}
	r.Instances = out
	return m.save(r)
}

// List returns the workspace's instances (ready or not), by id.
func (m *Manager) List() ([]Instance, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.load()
	return r.Instances, err
}

// Get returns one ready instance.
func (m *Manager) Get(id string) (Instance, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.get(id)
}

func (m *Manager) get(id string) (Instance, error) {
	r, err := m.load()
	if err != nil {
		return Instance{}, err
	}
	for _, in := range r.Instances {
		if in.ID == id && in.Ready {
			return in, nil
		}
	}
	return Instance{}, fmt.Errorf("instance %s: %w", id, ErrNotFound)
}

// removeUnready removes what a crash during Create left behind.
func (m *Manager) removeUnready() error {
	r, err := m.load()
	if err != nil {
		return err
	}
	for _, in := range r.Instances {
		if in.Ready {
			continue
		}
		if err := m.remove(in); err != nil {
			return fmt.Errorf("remove the half-made instance %s: %w", in.ID, err)
		}
	}
	return nil
}
