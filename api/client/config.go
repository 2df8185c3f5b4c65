package client

import (
	"context"
	"net/http"
	"time"
)

// HostConfig is the configuration a running host uses (GET /v1/config):
// what it loaded, from which files and when, secrets masked. It can differ
// from the files on disk: NotApplied says what the files say that the
// host has not applied, and why.
type HostConfig struct {
	// LoadedAt is when the host last applied its configuration's files
	// (as it started, or a reload since).
	LoadedAt time.Time `json:"loaded_at"`
	// Files are the files the configuration was read from.
	Files []ConfigFile `json:"files"`
	// Entries are the settings in force, as `atelier config` lists them.
	Entries []ConfigEntry `json:"entries"`
	// NotApplied are the changes the host kept out, each "what: why"
	// ([] when it applied everything).
	NotApplied []string `json:"not_applied"`
}

// ConfigFile is one file of a host's configuration.
type ConfigFile struct {
	Path string `json:"path"`
	// Kind is "user" (config.toml) or "workspace" (.atelier.toml).
	Kind string `json:"kind"`
	// Trust is the workspace file's trust as loaded ("trusted",
	// "untrusted", "changed", "none" when there is no file); "" for the
	// user's.
	Trust string `json:"trust,omitempty"`
}

// ConfigEntry is one setting in force: its dotted key, its value written
// as TOML (secrets masked) and the file and line that set it ("" and 0
// for a default).
type ConfigEntry struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	File  string `json:"file,omitempty"`
	Line  int    `json:"line,omitempty"`
}

// Config returns the configuration the host uses.
func (c *Client) Config(ctx context.Context) (HostConfig, error) {
	var out HostConfig
	err := c.do(ctx, http.MethodGet, "/v1/config", nil, &out)
	return out, err
}
