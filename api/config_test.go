package api

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/api/client"
)

// TestConfigRoute: GET /v1/config answers what the host says it uses, its
// lists never null; a host that does not report its configuration answers
// 404 with a problem saying so.
func TestConfigRoute(t *testing.T) {
	at := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	want := client.HostConfig{LoadedAt: at, Entries: []client.ConfigEntry{{Key: "agents.x.approval", Value: `"ask"`, File: "/u/config.toml", Line: 3}},
		Files: []client.ConfigFile{{Path: "/u/config.toml", Kind: "user"}}}
	r := openRig(t, t.TempDir(), Options{Config: func() client.HostConfig { return want }})
	got, err := r.c.Config(ctxFor(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if !got.LoadedAt.Equal(at) || len(got.Entries) != 1 || got.Entries[0] != want.Entries[0] || len(got.Files) != 1 || got.NotApplied == nil {
		t.Fatalf("GET /v1/config: %+v", got)
	}

	r = openRig(t, t.TempDir(), Options{})
	_, err = r.c.Config(ctxFor(t, 10*time.Second))
	var p *client.Problem
	if !errors.As(err, &p) || p.Status != http.StatusNotFound || p.Code != client.CodeNotFound {
		t.Fatalf("a host without Config: %v", err)
	}
}
